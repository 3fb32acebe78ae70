"""Commands that analyse and combine projects: agreement, export, merge, consensus.

Exit statuses: 0 done; 2 an error (one line on stderr: bad input, unknown code or coder,
a source that cannot be merged); 3 ``merge`` refused because values conflict (the
conflicts are listed on stderr, nothing was changed); 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..domain import agreement_settings as limits
from ..domain.errors import ProjectError
from ..domain.export.kinds import EXPORT_KINDS, TABLES, kinds_help
from ..domain.measures import summary as measures_summary
from ..domain.merging import ON_CONFLICT
from .acting import open_as, take
from .selection_options import (
    AGREEMENT_ONLY,
    KIND_OPTIONS,
    add_agreement_options,
    add_filters,
    refuse_ignored,
    selection_of,
    settings_of,
)
from .wording import error_text

# Only light modules at the top (every command builds this parser, `--help` included):
# agreement, export and reconciliation need pandas and scipy, so each command imports
# what it needs inside its function.
if TYPE_CHECKING:
    from ..domain.agreement import AgreementReport
    from ..domain.agreement_settings import AgreementSettings
    from ..domain.progress import ProgressFn
    from ..project import Project
    from ..project.selection import Selection

EXIT_CONFLICTS = 3


def _n(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "agreement", help="inter-rater agreement per code",
        description=_upper_first(measures_summary())
        + "; with --include-users every coder against the "
        "users' own ratings (alpha, kappa, Spearman); the consensus, where there is one, "
        "against the coders and users. Binary codes: a turn a coder marked done without "
        "the code counts as absent (0). Alpha bands: good >= .800, tentative >= .667, "
        "claimed only when the whole 95% interval lies in the band.",
    )
    p.add_argument("project", type=Path)
    add_filters(p)
    add_agreement_options(p)
    p.add_argument("--format", choices=("table", "json", "csv", "report", "latex"),
                   default="table", type=str.lower,
                   help="report: a methods paragraph, table and references in Markdown; "
                   "latex: the same in LaTeX")
    p.add_argument("--latex", action="store_true", help="with --format report: LaTeX")
    p.add_argument("--kappa-weights", choices=limits.KAPPA_BASES,
                   default=limits.KAPPA_BASIS_DEFAULT,
                   help="weighted kappa's weights on the levels' positions (equal steps; the "
                   "default) or on their values (numeric levels), as AC2, alpha and ICC")
    p.add_argument("--codebook-version", type=int, metavar="N",
                   help="only the codings whose value was set under codebook version N "
                   "(see 'codebook versions')")
    p.add_argument("--measures", choices=limits.MEASURES, default=limits.MEASURES_DEFAULT,
                   help="alpha: Krippendorff's alpha alone (the coders', applicability and "
                   "against users/consensus), much faster on big projects; no diagnostics")
    p.add_argument("--diagnostics", choices=("confusion", "bias", "drift"),
                   help="instead of the figures, write a diagnostics table as CSV: confusion "
                   "matrix per coder pair, each coder's mean difference from the others, or "
                   "agreement over each coder's coding order")
    p.add_argument("--gamma", action="store_true",
                   help="span codes: also Mathet's gamma (needs the 'spans' extra, "
                   "pygamma-agreement; slow)")
    p.set_defaults(func=cmd_agreement)

    p = sub.add_parser(
        "export", help="write a tidy table (" + ", ".join(EXPORT_KINDS) + ") as "
        "CSV, Excel or SPSS",
        description=kinds_help() + " "
        "The format follows OUT's extension (.csv, .xlsx, .sav) or --to. "
        "In CSV, text cells that a spreadsheet would run as a formula (starting with "
        "= + - @), and cells starting with ', get a leading ' unless --raw; "
        "import-codings takes exactly one ' off again.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("out", type=Path, metavar="OUT")
    p.add_argument("--kind", choices=EXPORT_KINDS, required=True, metavar="KIND",
                   help="one of " + ", ".join(EXPORT_KINDS) + " (each described above)")
    p.add_argument("--raw", action="store_true",
                   help="write formula-like text cells unchanged (no leading ')")
    p.add_argument("--to", choices=TABLES,
                   help="file format (default: from OUT's extension; none = csv)")
    p.add_argument("--with-text", action="store_true",
                   help="long: add the coded turn's (or sentence's) text")
    p.add_argument("--value", metavar="V",
                   help="segments: only units coded V (a level or NA) on the one --codes code")
    p.add_argument("--provenance", action="store_true",
                   help="long, wide, consensus: add how each value was made (source, blind, "
                   "after_reveal, set_at, origin); final always has them")
    p.add_argument("--scope", choices=("turn", "conversation", "span"), default="turn",
                   help="cooccurrence: codes present in the same turn (default), the same "
                   "conversation, or in overlapping spans")
    p.add_argument("--by", metavar="ATTRIBUTE", default="model",
                   help="codes-by-attribute: the conversation attribute (default: model)")
    add_filters(p)
    add_agreement_options(p)
    # None = not given: an option the kind ignores is refused (see _refuse_ignored)
    p.set_defaults(func=cmd_export, **dict.fromkeys(
        [*AGREEMENT_ONLY, *(dest for dest, _ in KIND_OPTIONS)]))

    p = sub.add_parser(
        "merge", help="merge coders' project files into one project",
        description="Adds the sources' conversations, coders, codings, turn status, memos and "
        "consensus to TARGET in one transaction. Conversations are matched by id and turns by "
        "position (their texts must be equal), codes by key (same kind and levels), coders "
        "by name. Merging a file twice adds nothing. The same coder with a different value "
        "for the same unit is a conflict: by default the merge is refused, conflicts listed, "
        "nothing written (exit status 3); --on-conflict keep-target keeps the target's values "
        "and merges the rest, keep-source takes the source's (a coder's correction in her own "
        "file), newest keeps the value set last by each value's own time (the target's on a "
        "tie or a missing time). Every conflict is listed with the value kept. A turn marked "
        "done in either file is done.",
    )
    p.add_argument("target", type=Path)
    p.add_argument("sources", type=Path, nargs="+", metavar="SOURCE")
    p.add_argument("--dry-run", action="store_true", help="report what would change; write nothing")
    p.add_argument("--on-conflict", choices=ON_CONFLICT, default="refuse",
                   help="what to do where a coder's value differs between the files "
                   "(default: refuse)")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser(
        "consensus", help="reconciliation progress; accept majorities in batch",
        description="Shows, per code, the units two or more coders rated, those where they "
        "differ and how many of those are decided, then the disagreements furthest apart "
        "first and each coder's agreement with the consensus. --accept-majority records the "
        "strict-majority value of the coders (their blind values, as set before a turn was "
        "revealed to them, unless --values final) as the consensus of every unit rated by two "
        "coders or more that has one (undecided units only, unless --overwrite), as "
        "adjudicator --coder NAME. Coders' own codings never change.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("--coder", help="the adjudicator's name (needed for --accept-majority; "
                   "default: the coder named by --as)")
    p.add_argument("--role", choices=("adjudicator",),
                   help="make --coder an adjudicator first")
    p.add_argument("--accept-majority", action="store_true")
    p.add_argument("--overwrite", action="store_true",
                   help="with --accept-majority: replace decisions already taken")
    p.add_argument("--list", type=int, default=10, metavar="N",
                   help="show the N disagreements furthest apart (default 10; 0 = none)")
    p.add_argument("--values", choices=limits.VALUES, default=limits.VALUES_DEFAULT,
                   help="which of the coders' values count, in the majority, the queue and "
                   "the progress: blind (default), as set before the turn was revealed to "
                   "them; final, with the values changed after the reveal")
    p.add_argument("--format", choices=("table", "json"), default="table", type=str.lower)
    add_filters(p)
    p.set_defaults(func=cmd_consensus)


# -- helpers ---------------------------------------------------------------------------------

#: what the consensus command's figures counted, per --values
CONSENSUS_VALUES = {
    "blind": "counted: the coders' blind values (as set before each turn was revealed to "
             "them); --values final counts the values changed after the reveal",
    "final": "counted: the coders' final values (with the changes made after each turn was "
             "revealed to them); --values blind counts the values set before",
}

def _progress(what: str) -> ProgressFn | None:
    """A one-line progress display on stderr, when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        sys.stderr.write(f"\r{what}: {100 * done // max(total, 1):3d}%{end}")
        sys.stderr.flush()

    return show


def _open(args: argparse.Namespace, path: Path, *, backup: bool = False) -> Project:
    return open_as(args, path, backup=backup)


def _fmt(value: float | None, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


def _table(rows: list[list[str]], header: list[str]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    return lines


#: the table's footer on kappa's weights, per ``--kappa-weights``
KAPPA_FOOTER = {
    "positions": "on the levels' positions (equal steps); AC2, alpha and ICC use the level "
                 "values",
    "values": "on the level values (positions where the levels are not numbers), as AC2, "
              "alpha and ICC",
}


def _scope_and_warnings(report: AgreementReport) -> list[str]:
    """The codebook version the codings were restricted to, and each caution printed with
    its figures (ICC1 on a crossed design)."""
    import textwrap

    lines = []
    if report.codebook_version is not None:
        lines += [f"codings set under codebook version {report.codebook_version} only"]
    warned: dict[str, list[str]] = {}
    for r in report.records:
        if r.warning and r.value is not None:
            warned.setdefault(r.warning, []).append(f"{r.code} {r.form or r.measure}")
    for text, figures in warned.items():
        lines += ["", *textwrap.wrap(f"warning ({', '.join(figures)}): {text}", 96)]
    return lines


def agreement_lines(report: AgreementReport, kappa_weights: str = "positions") -> list[str]:
    """The report as an aligned table (undefined figures explained below it)."""
    import textwrap

    from ..domain.agreement.records import BAND_RULE, raters_text
    from ..project.agreement import BY_CONSTRUCTION_NOTE, values_text

    rows = []
    footnotes = []
    for r in report.records:
        if r.form:
            scale = r.form
        elif r.level:
            scale = r.level
        elif r.weights == "none":
            scale = "unweighted"
        elif r.weights:
            scale = f"{r.weights} weights"
        else:
            scale = ""
        ci = limits.interval_short(r.ci_low, r.ci_high, r.ci_method, "")
        if ci and r.undefined_draws:
            ci += f" ({100 * r.undefined_draws / max(r.draws, 1):.0f}% undef.)"
        value = _fmt(r.value)
        if r.value is None:
            reason = r.note.split(";")[0]
            footnotes.append(f"{r.code}, {r.measure}, {raters_text(r.coders)}: {reason}")
            value = f"undefined ({len(footnotes)})"
        band = r.band() if r.value is not None else ""
        rows.append([r.code, r.measure, scale, raters_text(r.coders), value, ci,
                     str(r.n_units), band])
    header = ["code", "measure", "level/weights", "raters", "value", "95% CI", "units", "band"]
    lines = _table(rows, header)
    if footnotes:
        lines += ["", "undefined figures:"]
        lines += [f"  ({i}) {text}" for i, text in enumerate(footnotes, 1)]
    for ref, codes in report.absent.items():
        lines += ["", *textwrap.wrap(f"'{ref}' rated none of {', '.join(codes)}: no figure "
                                     "compares with them there", 96)]
    lines += ["", *textwrap.wrap("alpha bands: good >= .800, tentative >= .667 (Krippendorff), "
                                 f"read from the interval: {BAND_RULE}", 96),
              f"kappa weights over each code's declared scale, {KAPPA_FOOTER[kappa_weights]}"]
    few = next((r.min_units for r in report.records), None)
    if few is not None:
        lines += [f"'too few units': the figure rests on fewer than {few} units"]
    if any(r.by_construction for r in report.records):
        lines += [f"'by construction': {BY_CONSTRUCTION_NOTE}"]
    if report.values:
        lines += [values_text(report)]
    lines += _scope_and_warnings(report)
    if any(r.ci_method in ("F", "GCI") for r in report.records):
        lines += ["ICC intervals marked F: McGraw & Wong's F-based intervals (ICC3/ICC3k coders "
                  "fixed, ICC1/ICC1k one-way); marked GCI: generalized confidence intervals "
                  "(ICC2/ICC2k, coders a random sample); every other interval is a bootstrap "
                  "over units holding the coders fixed"]
    return lines


# -- commands --------------------------------------------------------------------------------

def cmd_agreement(args: argparse.Namespace) -> int:
    from ..domain.export.tables import neutralise
    from ..project.agreement import level_refusals, methods_paragraph, project_agreement

    selection, settings = selection_of(args), settings_of(args)
    if args.diagnostics and settings.measures != "all":
        raise ProjectError("--diagnostics needs every figure; leave out --measures alpha")
    with _open(args, args.project) as project:
        if settings.level and not selection.codes:  # every code: say which keep their own
            kept = [c.key for c in project.codebook.active
                    if level_refusals([c], settings.level)]
            if kept:
                print(f"note: --level {settings.level} applies to the codes that can take it; "
                      f"{', '.join(kept)} keep their own level (name a code with --codes to "
                      "have it checked)", file=sys.stderr)
        spans = _span_agreement(project, args, selection, settings)
        book = project.codebook
        if spans and selection.codes and all(
                (c := book.get(k)) is not None and c.unit == "span" for k in selection.codes):
            # only span codes named: their own figures are the whole answer
            if args.format == "json":
                print(json.dumps([r.as_row() for r in spans], indent=2, ensure_ascii=False))
            else:
                from ..project.spans.agreement import span_agreement_lines

                print("\n".join(span_agreement_lines(spans)))
            return 0
        report = project_agreement(project, selection, settings,
                                   progress=_progress("agreement"))
        fmt = "latex" if args.format == "latex" or args.latex else "markdown"
        methods = (methods_paragraph(project, report, selection, settings, fmt)
                   if args.format in ("report", "latex") else "")
    if args.diagnostics:
        table = report.diagnostics[args.diagnostics]
        sys.stdout.write(neutralise(table).to_csv(index=False, lineterminator="\n"))
    elif methods:
        sys.stdout.write(methods)
    elif args.format == "json":
        print(json.dumps(report.to_records(), indent=2, ensure_ascii=False))
    elif args.format == "csv":
        sys.stdout.write(neutralise(report.to_frame()).to_csv(index=False, lineterminator="\n"))
    else:
        print("\n".join(agreement_lines(report, settings.kappa_weights)))
        if spans:
            from ..project.spans.agreement import span_agreement_lines

            print()
            print("\n".join(span_agreement_lines(spans)))
    return 0


def _span_agreement(project: Any, args: argparse.Namespace, selection: Selection,
                    settings: AgreementSettings) -> list[Any]:
    """Agreement on the span codes (none in the codebook: nothing, at no cost)."""
    from ..project.spans.agreement import span_agreement, span_codes

    if not span_codes(project, selection.codes):
        return []
    return span_agreement(project, selection, draws=settings.bootstrap, seed=settings.seed,
                          gamma=getattr(args, "gamma", False))


def cmd_export(args: argparse.Namespace) -> int:
    from ..project.export import export_project

    refuse_ignored(args)
    with _open(args, args.project) as project:
        # only the agreement kind computes: no other is handed settings to check or ignore
        settings = settings_of(args) if args.kind == "agreement" else None
        summary = export_project(project, args.out, args.kind, selection_of(args), settings,
                                 raw=args.raw, to=args.to, progress=_progress("export"),
                                 with_text=args.with_text, value=args.value,
                                 provenance=args.provenance, scope=args.scope, by=args.by)
    print(summary.line())
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from ..project.merge.merging import MergeConflicts, merge

    with _open(args, args.target, backup=not args.dry_run) as project:
        try:
            report = merge(project, args.sources, dry_run=args.dry_run,
                           on_conflict=args.on_conflict, progress=_progress("merge"))
        except MergeConflicts as e:
            for line in e.report.lines():
                print(line, file=sys.stderr)
            print(f"sense7-coder: error: {error_text(e)}", file=sys.stderr)
            return EXIT_CONFLICTS
    for line in report.lines():
        print(line)
    return 0


def cmd_consensus(args: argparse.Namespace) -> int:
    from ..domain.agreement import ALPHA
    from ..project.reconcile import (
        accept_majorities,
        coders_vs_consensus,
        disagreements,
        reconcile_progress,
    )

    selection = selection_of(args)
    args.coder = args.coder or args.acting  # --as LEAD decides as that lead
    with _open(args, args.project) as project:
        accepted = None
        if args.accept_majority:
            if not args.coder:
                raise ProjectError("--accept-majority needs --coder NAME (an adjudicator)")
            if args.role is None and project.coder_role(args.coder.strip()) != "adjudicator":
                # refused before set_coder, which would add an unknown name as a coder
                raise ProjectError(
                    f"only an adjudicator can set the consensus; '{args.coder.strip()}' is "
                    "not one (add --role adjudicator)"
                )
            take(project, args.coder, args.role)
            before = sum(p.decided for p in reconcile_progress(project, selection))
            cmd = accept_majorities(project, selection, overwrite=args.overwrite,
                                    progress=_progress("consensus"))
            accepted = len(cmd.cells)
        elif args.coder and args.role:
            take(project, args.coder, args.role)
        progress = reconcile_progress(project, selection)
        queue = disagreements(project, selection, undecided_only=True)
        vs = coders_vs_consensus(project, selection, bootstrap=0)
    alphas = [r for r in vs.records if r.measure == ALPHA]
    if args.format == "json":
        print(json.dumps({
            "accepted": accepted,
            "values": args.values,
            "progress": [p.to_dict() for p in progress],
            "open": [d.to_dict() for d in queue[: max(args.list, 0)]],
            "open_total": len(queue),
            "coders_vs_consensus": [r.to_dict() for r in alphas],
        }, indent=2, ensure_ascii=False, default=str))
        return 0
    if accepted is not None:
        # the same counts as the table and the reconciliation window: disagreements decided
        decided = sum(p.decided for p in progress)
        disagreeing = sum(p.disagreeing for p in progress)
        settled = decided - before
        agreed = accepted - settled
        print(f"accepted the majority on {_n(accepted, 'unit')}: "
              f"{_n(settled, 'disagreement')} (now {decided} of {disagreeing} decided) and "
              f"{_n(agreed, 'unit')} where the coders all agreed")
    print("\n".join(_table(
        [[p.code, str(p.compared), str(p.disagreeing), str(p.decided), str(p.open),
          str(p.consensus)] for p in progress],
        ["code", "compared", "disagreeing", "decided", "open", "consensus"],
    )))
    if queue and args.list > 0:
        print(f"\nopen disagreements ({len(queue)}), furthest apart first:")
        for d in queue[: args.list]:
            values = ", ".join(f"{c}={'NA' if v is None else v}" for c, v in d.values.items())
            where = f"{d.unit.conversation_id} turn {d.unit.position}"
            if d.unit.sentence:
                where += f" sentence {d.unit.sentence}"
            majority = "" if not d.has_majority else (
                f"  majority: {'NA' if d.majority is None else d.majority}")
            print(f"  {d.code:<12} {where:<24} {values}{majority}")
            for coder, why in d.rationales.items():
                print(f"  {'':<12} {'':<24} {coder}'s rationale: {why}")
    if alphas:
        print("\ncoders vs consensus (alpha):")
        print("\n".join("  " + line for line in _table(
            [[r.code, r.coders[0], _fmt(r.value), str(r.n_units),
              "by construction" if r.by_construction else ""] for r in alphas],
            ["code", "coder", "alpha", "units", "note"],
        )))
        if any(r.by_construction for r in alphas):
            from ..project.agreement import BY_CONSTRUCTION_NOTE

            print(f"  by construction: {BY_CONSTRUCTION_NOTE}")
    print(f"\n{CONSENSUS_VALUES[args.values]}")
    return 0

"""The calibration procedure on the command line: ``round start|status|close|list|drift``
and ``plan`` (units needed for alpha's interval to clear a threshold)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..domain.agreement_settings import DRAWS_DEFAULT, interval_short
from .acting import open_as
from .lists import ListAction


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "round", help="calibration rounds: a sample every coder codes, agreement per code "
        "against a threshold set before, then a revised codebook and the next round",
        description="start: a lead draws a seeded sample of conversations no one is "
        "assigned yet (stratified by an attribute with --stratify), assigns it to every "
        "listed coder and records the codebook version and the threshold alpha's 95%% "
        "interval's lower end must reach (Krippendorff: .800; .667 for tentative "
        "conclusions). status: alpha per code with its interval and verdict, and the "
        "disagreements furthest apart first. close: records those figures. The next round "
        "starts after the codebook was revised. drift: the main coding's reliability "
        "subsample (conversations assigned with --overlap) against the last closed round.",
    )
    rsub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    r = rsub.add_parser("start", help="start a round (lead only)")
    r.add_argument("project", type=Path)
    r.add_argument("--sample", type=int, required=True, metavar="N",
                   help="conversations in the round")
    r.add_argument("--seed", type=int, default=0, metavar="S")
    r.add_argument("--stratify", metavar="ATTRIBUTE",
                   help="each value of the attribute (model, participant_id, topic or an "
                   "attributes entry) gets its share of the sample")
    r.add_argument("--coders", action=ListAction, required=True, metavar="A,B,...")
    r.add_argument("--threshold", type=float, required=True, metavar="T",
                   help="alpha's interval's lower end must reach T (e.g. .667 or .800)")
    r.add_argument("--same-codebook", action="store_true",
                   help="start the next round though the codebook was not revised")
    r.set_defaults(func=cmd_round_start)
    for name, helptext in (("status", "agreement per code and what to discuss"),
                           ("close", "close the round, recording its figures (lead only)")):
        r = rsub.add_parser(name, help=helptext)
        r.add_argument("project", type=Path)
        r.add_argument("--round", type=int, metavar="N", help="default: the latest")
        r.add_argument("--bootstrap", type=int, default=DRAWS_DEFAULT, metavar="N")
        r.add_argument("--list", type=int, default=10, metavar="N",
                       help="disagreements to show (default 10)")
        r.add_argument("--format", choices=("table", "json"), default="table")
        r.set_defaults(func=cmd_round_status if name == "status" else cmd_round_close)
    r = rsub.add_parser("list", help="every round with its figures per code")
    r.add_argument("project", type=Path)
    r.add_argument("--format", choices=("table", "json"), default="table")
    r.set_defaults(func=cmd_round_list)
    r = rsub.add_parser("drift", help="the main coding's reliability subsample against the "
                        "last closed round")
    r.add_argument("project", type=Path)
    r.add_argument("--bootstrap", type=int, default=DRAWS_DEFAULT, metavar="N")
    r.add_argument("--format", choices=("table", "json"), default="table")
    r.set_defaults(func=cmd_round_drift)
    p = sub.add_parser(
        "plan", help="units a round or reliability subsample needs for alpha's interval to "
        "clear a threshold",
        description="The smallest number of units with which alpha's 95%% interval (BCa "
        "below 100 units, percentile from 100, as every output makes it) has its lower end "
        "at or above THRESHOLD in at least PROBABILITY of seeded simulated studies, when the "
        "coders' true nominal alpha is EXPECTED (each coder gives a unit's true level with "
        "probability sqrt(EXPECTED), else a level at random). Also prints Krippendorff's "
        "(2019) published minimum for two coders, which answers a different question (see "
        "VALIDATION.md).",
    )
    p.add_argument("--threshold", type=float, required=True, metavar="T")
    p.add_argument("--expected", type=float, required=True, metavar="ALPHA",
                   help="the alpha the coders are expected to reach")
    p.add_argument("--coders", type=int, default=2, metavar="M")
    p.add_argument("--levels", type=int, default=2, metavar="K")
    p.add_argument("--probability", type=float, default=0.8, metavar="P",
                   help="how sure the interval should clear the threshold (default .8)")
    p.add_argument("--studies", type=int, default=200, metavar="N")
    p.add_argument("--draws", type=int, default=500, metavar="N")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_plan)
    for nested in rsub.choices.values():  # --as on each action (the project is named there)
        nested.add_argument("--as", dest="acting", metavar="NAME",
                            help="act as this coder of the project (a lead starts and closes "
                            "rounds and sees every coder's values)")


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _ci(v: Any) -> str:
    return interval_short(v.ci_low, v.ci_high, v.ci_method)


def cmd_round_start(args: argparse.Namespace) -> int:
    from ..project.rounds import rounds, start_round

    with open_as(args, args.project) as project:
        number, _ = start_round(project, sample_size=args.sample, seed=args.seed,
                                coders=args.coders, threshold=args.threshold,
                                stratify=args.stratify, same_codebook=args.same_codebook)
        r = rounds(project)[-1]
    strat = f", stratified by {r['stratify']}" if r["stratify"] else ""
    print(f"round {number}: {r['sample']} conversations (seed {r['seed']}{strat}) assigned "
          f"to {', '.join(r['coders'])}; codebook version {r['codebook_version']}; threshold: "
          f"alpha's 95% interval's lower end >= {r['threshold']:.3f}")
    return 0


def _status_lines(status: Any, listed: int) -> list[str]:
    from .analysis import _table

    r = status.round
    state = f"closed {r['closed_at'][:16].replace('T', ' ')}" if r["closed_at"] else "open"
    lines = [f"round {r['number']} ({state}): {r['sample']} conversations, coders "
             f"{', '.join(r['coders'])}, codebook version {r['codebook_version']}, threshold "
             f"{r['threshold']:.3f} (alpha's 95% interval's lower end)"]
    lines += _table([[v.code, _fmt(v.alpha), _ci(v), str(v.units), v.verdict()]
                     for v in status.verdicts],
                    ["code", "alpha", "95% CI", "units", "verdict"])
    met = sum(v.met for v in status.verdicts)
    lines.append(f"{met} of {len(status.verdicts)} codes met the threshold")
    if status.discuss and listed > 0:
        lines.append(f"\nworth discussing first ({len(status.discuss)} disagreements, "
                     "furthest apart first):")
        for d in status.discuss[:listed]:
            values = ", ".join(f"{c}={'NA' if v is None else v}" for c, v in d.values.items())
            where = f"{d.unit.conversation_id} turn {d.unit.position}"
            lines.append(f"  {d.code:<14} {where:<22} {values}")
            for coder, text in d.rationales.items():
                lines.append(f"  {'':<14} {'':<22} {coder}'s rationale: {text[:80]}")
            for coder, text in d.memos.items():
                lines.append(f"  {'':<14} {'':<22} {coder}'s memo: {text[:80]}")
    return lines


def _print_status(args: argparse.Namespace, status: Any) -> int:
    """A round's figures as ``status`` and ``close`` print them (text or JSON)."""
    if args.format == "json":
        print(json.dumps(status.to_dict(args.list), indent=2, ensure_ascii=False, default=str))
    else:
        print("\n".join(_status_lines(status, args.list)))
    return 0


def cmd_round_status(args: argparse.Namespace) -> int:
    from ..project.rounds import round_status

    with open_as(args, args.project) as project:
        status = round_status(project, args.round, args.bootstrap)
    return _print_status(args, status)


def cmd_round_close(args: argparse.Namespace) -> int:
    from ..project.rounds import close_round

    with open_as(args, args.project) as project:
        status = close_round(project, args.round, args.bootstrap)
    return _print_status(args, status)


def cmd_round_list(args: argparse.Namespace) -> int:
    from ..project.rounds import results, rounds

    with open_as(args, args.project) as project:
        found, figures = rounds(project), results(project)
    if args.format == "json":
        print(json.dumps({"rounds": found, "results": figures}, indent=2, ensure_ascii=False))
        return 0
    if not found:
        print("no calibration round yet")
    for r in found:
        state = "closed" if r["closed_at"] else "open"
        print(f"round {r['number']} ({state}): {r['sample']} conversations, "
              f"{len(r['coders'])} coders, codebook version {r['codebook_version']}, "
              f"threshold {r['threshold']:.3f}")
        for f in (f for f in figures if f["round"] == r["number"]):
            ci = "-" if f["ci_low"] is None else f"[{_fmt(f['ci_low'])}, {_fmt(f['ci_high'])}]"
            print(f"  {f['code']:<22} alpha {_fmt(f['alpha'])} {ci:<18} "
                  f"{'met' if f['met'] else 'not met'}")
    return 0


def cmd_round_drift(args: argparse.Namespace) -> int:
    from ..project.rounds import drift
    from .analysis import _table

    with open_as(args, args.project) as project:
        last, n, rows = drift(project, args.bootstrap)
    if args.format == "json":
        print(json.dumps({"round": last, "conversations": n,
                          "codes": [d.to_dict() for d in rows]}, indent=2, default=str))
        return 0
    print(f"reliability subsample of the main coding ({n} conversations every coder codes) "
          f"against round {last['number']}; threshold {last['threshold']:.3f}")
    print("\n".join(_table([[d.code, _fmt(d.round_alpha), _fmt(d.main.alpha), _ci(d.main),
                             str(d.main.units), d.reading()] for d in rows],
                           ["code", "round alpha", "main alpha", "95% CI", "units",
                            "reading"])))
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from ..domain.agreement.planning import krippendorff_minimum, units_needed
    from ..domain.errors import ProjectError

    try:
        plan = units_needed(args.threshold, args.expected, coders=args.coders,
                            levels=args.levels, probability=args.probability,
                            studies=args.studies, draws=args.draws, seed=args.seed)
    except ValueError as e:
        raise ProjectError(str(e)) from None
    published = krippendorff_minimum(args.threshold, 0.05, 1 / args.levels)
    if args.format == "json":
        print(json.dumps({**plan.to_dict(), "krippendorff_minimum_values_2_coders": published},
                         indent=2))
        return 0
    found = (f"{plan.units} units" if plan.units is not None
             else "more than 2,000 units (not found)")
    print(f"{found}: alpha's 95% interval (BCa below 100 units, percentile from 100) reaches "
          f"{args.threshold:.3f} in at least {args.probability:.0%} of {args.studies} "
          f"simulated studies of {args.coders} coders, {args.levels} levels, true alpha "
          f"{args.expected:.3f} (seed {args.seed}, {args.draws} draws)")
    print("  tried: " + ", ".join(f"{n} units {share:.0%}" for n, share
                                  in sorted(plan.tried.items())))
    print(f"Krippendorff (2019, after Bloch & Kraemer 1989) for two coders, alpha_min "
          f"{args.threshold:.3f}, p = .05, least frequent value's share 1/{args.levels}: "
          f"{published} values (another criterion: see VALIDATION.md)")
    return 0

"""Commands for the paper's analyses and empathy-level prediction: analyze, classify.

Heavy libraries (pandas, scikit-learn, matplotlib) load only when a command runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from ..domain.agreement_settings import DRAWS_DEFAULT
from .acting import open_as

METRIC_KEYS = ("accuracy", "macro_f1", "within_one", "mae", "spearman")
#: the environment variable holding an API key for endpoints that need one
API_KEY_ENV = "SENSE7_CODER_API_KEY"


def _filters(items: list[str]) -> dict[str, str]:
    from ..domain.errors import Sense7Error

    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise Sense7Error(f"--filter '{item}': write ATTRIBUTE=VALUE")
        out[name.strip()] = value.strip()
    return out


def _conversation_filter(args: argparse.Namespace) -> Any:
    from ..project import ConversationFilter

    attrs = _filters(args.filter)
    models = attrs.pop("model", None)
    participant = attrs.pop("participant", None)
    return ConversationFilter(
        models=[models] if models else [],
        participants=[participant] if participant else [],
        attributes=attrs or None,
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "analyze", help="the paper's analyses: tables (CSV), figures (PNG, SVG), index.html",
        description="Distribution per dimension; means with 95%% intervals by assistant, task "
        "and participant; individual differences (per-participant mean and SD, ICC(1)); the "
        "course over assistant turns; continuity breaks (a rating falling by 2 levels or "
        "more from one assistant turn to the next, with the turn's text and the message "
        "before it); desired vs experienced empathy (when conversations have a desired-"
        "empathy attribute); code frequency, co-occurrence and crosstabs by conversation "
        "attribute. Writes every table and figure into DIR with an index.html.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("--out", type=Path, required=True, metavar="DIR")
    p.add_argument("--source", default="users", metavar="users|coders|consensus|final|CODER",
                   help="whose values: the users' own ratings (default), every coder, the "
                   "consensus, the final dataset (the consensus, else the one coder's value; "
                   "unresolved units left out), or one coder by name")
    p.add_argument("--filter", action="append", default=[], metavar="ATTR=VALUE",
                   help="only conversations whose attribute ATTR equals VALUE (repeatable; "
                   "model=M and participant=P filter on those columns)")
    p.add_argument("--no-figures", action="store_true", help="tables only")
    p.add_argument("--no-agreement", action="store_true",
                   help="leave out the report's agreement among the coders and with the "
                   f"users (Krippendorff's alpha, {DRAWS_DEFAULT} bootstrap draws)")
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser(
        "classify", help="predict empathy levels and evaluate predictors as the paper did",
        description="--model baseline trains TF-IDF + ridge on the project's own ratings with "
        "cross-validation grouped by participant (by conversation without participants) and "
        "stores its out-of-fold scores; --model llm asks an OpenAI-compatible chat-"
        "completions endpoint (--endpoint, --api-model; answers are cached in the project; "
        f"an API key, if needed, from ${API_KEY_ENV}); --predictions FILE imports scores "
        "made elsewhere (CSV conversation_id,score[,turn][,run]). --evaluate reports "
        "accuracy, macro-F1 and within-one on levels rounded and clipped to 1..5, MAE and "
        "Spearman's rho on raw values, as mean and SD over runs, against the mean over "
        "assistant turns of each turn's mean of the seven dimensions (conversation level) "
        "or the user's overall rating (turn level).",
    )
    p.add_argument("project", type=Path)
    p.add_argument("--model", choices=("baseline", "llm", "none"), default="none")
    p.add_argument("--endpoint", metavar="URL",
                   help="chat-completions base URL, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--api-model", metavar="NAME", help="the model name the endpoint serves")
    p.add_argument("--predictions", type=Path, metavar="FILE",
                   help="import predictions from a CSV file")
    p.add_argument("--predictor", metavar="NAME",
                   help="name for --predictions (default: the file name without .csv) or "
                   "for the LLM judge (default llm:<api model>)")
    p.add_argument("--evaluate", action="store_true")
    p.add_argument("--runs", type=int, default=1, metavar="N",
                   help="runs of the baseline or the judge (default 1)")
    p.add_argument("--level", choices=("conversation", "turn"), default="conversation")
    p.add_argument("--concurrency", type=int, default=4, metavar="N",
                   help="LLM requests in flight at once (default 4)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="seconds one LLM request may take in all, from connecting to the "
                   "last byte of the answer (default 120)")
    p.add_argument("--retries", type=int, default=4, metavar="N",
                   help="retries of a failed LLM request, with exponential backoff "
                   "(default 4)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_classify)


def cmd_analyze(args: argparse.Namespace) -> int:
    from ..project.analyses import NO_USER_RATINGS, run_analyses

    filt = _conversation_filter(args)
    with open_as(args, backup=False) as project:
        out = run_analyses(project, args.out, source=args.source, conversations=filt,
                           figures=not args.no_figures, agreement=not args.no_agreement)
    for note in out.notes:
        if note == NO_USER_RATINGS:
            note = ("the users rated no assistant turn in the selected conversations, and "
                    "--source users (the default) analyses their ratings; to analyse the "
                    "coders' values, run again with --source coders")
        print(f"note: {note}", file=sys.stderr)
    print(f"{len(out.tables)} tables and {len(out.figures)} figure files in {out.out_dir}; "
          f"read the report: {out.index}")
    return 0


def _progress(label: str) -> Any:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        print(f"\r{label}: {done}/{total}", end="" if done < total else "\n", file=sys.stderr,
              flush=True)

    return show


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.3f}"


def _require_target(project: Any, level: str) -> None:
    """Refuse a level whose target the users' ratings lack, in this command's terms."""
    from ..domain.errors import Sense7Error
    from ..project.prediction.evaluation import MissingTarget, check_target

    try:
        check_target(project, level)
    except MissingTarget as e:
        if e.other_level:
            raise Sense7Error(
                f"the {level}-level target is the mean of the seven dimensions over a "
                f"conversation's assistant turns, and this project's users rated only "
                f"{', '.join(e.rated)} ({e.overall_turns} turns with an overall rating); "
                f"use --level {e.other_level} to train and evaluate against the users' "
                "overall rating of each turn") from None
        raise Sense7Error(str(e)) from None


def cmd_classify(args: argparse.Namespace) -> int:
    from ..domain.errors import Sense7Error
    from ..project.prediction import predictors as pred

    if args.runs < 1:
        raise Sense7Error("--runs must be 1 or more")
    if args.model == "llm" and not (args.endpoint and args.api_model):
        raise Sense7Error("--model llm needs --endpoint URL and --api-model NAME")
    if args.model == "llm" and args.level == "turn":
        raise Sense7Error("the LLM judge rates whole conversations; use --level conversation")
    evaluated: list[str] = []
    with open_as(args, backup=args.model != "none" or bool(args.predictions)
                      ) as project:
        if args.evaluate:  # refused before any predictor runs, not after
            project.require_unblinded("evaluate predictors against the users' ratings")
        if args.evaluate or args.model == "baseline":
            _require_target(project, args.level)
        if args.predictions:
            s = pred.import_predictions(project, args.predictions, args.predictor)
            print(f"{s.source}: stored {s.rows} {s.level}-level scores of '{s.predictor}' "
                  f"({s.runs} run{'s' * (s.runs != 1)})", file=sys.stderr)
            if s.level == args.level:
                evaluated.append(s.predictor)
        if args.model == "baseline":
            result = pred.run_baseline(project, level=args.level, runs=args.runs,
                                       progress=_progress("baseline folds"))
            print(f"baseline: {len(result.folds)} folds grouped by {result.group_by}, "
                  f"{args.runs} run{'s' * (args.runs != 1)}", file=sys.stderr)
            evaluated.append(pred.BASELINE)
        if args.model == "llm":
            name = args.predictor if args.predictor and not args.predictions else None
            try:
                out = pred.run_llm(project, args.endpoint, args.api_model, runs=args.runs,
                                   name=name, api_key=os.environ.get(API_KEY_ENV),
                                   concurrency=args.concurrency, timeout_s=args.timeout,
                                   retries=max(0, args.retries),
                                   progress=_progress("LLM requests"))
            except KeyboardInterrupt:
                print("sense7-coder: interrupted; the answers received so far are kept in "
                      "the project and a re-run asks only for the rest", file=sys.stderr)
                return 130
            print(f"LLM judge: {pred.llm_run_line(out)}", file=sys.stderr)
            if out["no_answer"]:
                print(f"LLM judge: {out['no_answer']} conversation"
                      f"{'s' * (out['no_answer'] != 1)} left without a score: no reply held "
                      "one (a re-run asks again)", file=sys.stderr)
            evaluated.append(name or f"llm:{args.api_model}")
        if not args.evaluate:
            return 0
        if evaluated:
            results = [pred.evaluate_predictor(project, n, args.level) for n in evaluated]
        else:
            results = pred.evaluate_all(project, args.level)
            if not results:
                raise Sense7Error(f"no {args.level}-level predictions stored; run --model "
                                  "baseline or llm, or give --predictions FILE")
    if args.format == "json":
        print(json.dumps(results[0] if len(results) == 1 else results, indent=2))
        return 0
    header = ["predictor", "n", "runs", *METRIC_KEYS]
    rows = [[r["predictor"], str(r["n"]), str(r["runs"]),
             *[_fmt(r[k]) + (f" ± {_fmt(r[k + '_sd'])}" if r[k + "_sd"] is not None else "")
               for k in METRIC_KEYS]] for r in results]
    widths = [max(len(x[i]) for x in [header, *rows]) for i in range(len(header))]
    print(f"{args.level} level, against the users' ratings (mean ± SD over runs)")
    for line in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
    return 0

"""The suggest command: a model (an LLM or the baseline) suggests a value for each code of
each unit, stored as a rater ``model:NAME`` apart from every coder's codings."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .acting import open_as
from .lists import ListAction
from .predict import API_KEY_ENV, _conversation_filter, _progress

#: above this many requests the cost is confirmed before the run (--yes skips)
CONFIRM_REQUESTS = 1000


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "suggest", help="a model suggests a value for each code of each unit (model:NAME)",
        description="--model llm asks an OpenAI-compatible chat-completions server "
        "(--endpoint, --api-model) for each unit's codes, with a prompt built from the "
        "codebook (label, description, levels and anchors, include/exclude notes, "
        "examples; --show-prompt CODE shows it, --edit-prompt CODE --file F stores your "
        "own) and the unit marked in its context; structured output (JSON schema) where "
        "the server takes it. One request per unit asks for all its codes (--per-code: one "
        "per code). Unreadable replies are retried, then counted as no answer; the run "
        "stops only when the endpoint fails. --model baseline learns each code from the "
        "project's coded units (grouped cross-validation, out-of-fold values). Suggestions "
        "join agreement as model:NAME (agreement --no-models leaves them out). "
        f"An API key, if needed, from ${API_KEY_ENV}.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("--model", choices=("llm", "baseline"))
    p.add_argument("--codes", nargs="+", action=ListAction, default=[], metavar="CODE",
                   help="codes to suggest, separated by spaces or commas (default: every "
                   "active code)")
    p.add_argument("--unit", choices=("turn", "sentence", "conversation"),
                   help="only the codes of this unit")
    p.add_argument("--filter", action="append", default=[], metavar="ATTR=VALUE",
                   help="only conversations whose attribute ATTR equals VALUE (repeatable)")
    p.add_argument("--name", metavar="NAME",
                   help="the model's name as a rater (default: the API model, or baseline)")
    p.add_argument("--endpoint", metavar="URL",
                   help="chat-completions base URL, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--api-model", metavar="NAME", help="the model name the endpoint serves")
    p.add_argument("--per-code", action="store_true",
                   help="one request per code and unit (default: one per unit)")
    p.add_argument("--context", type=int, default=4, metavar="N",
                   help="turns before the unit sent as its context (default 4)")
    p.add_argument("--concurrency", type=int, default=4, metavar="N",
                   help="requests in flight at once (default 4)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="seconds one request may take in all (default 120)")
    p.add_argument("--retries", type=int, default=4, metavar="N",
                   help="retries of a failed or unreadable request (default 4)")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--no-structured", action="store_true",
                   help="never send response_format (a JSON schema)")
    p.add_argument("--runs", type=int, default=1, metavar="N",
                   help="baseline: reshufflings of the folds; the spread over them is kept "
                   "as the model's uncertainty (default 1)")
    p.add_argument("--yes", action="store_true",
                   help=f"run without asking, whatever the cost (asked above "
                   f"{CONFIRM_REQUESTS:,} requests)")
    p.add_argument("--dry-run", action="store_true",
                   help="print what the run would ask and cost, and stop")
    p.add_argument("--show-prompt", metavar="CODE", help="print a code's prompt and stop")
    p.add_argument("--edit-prompt", metavar="CODE",
                   help="store --file F as the code's prompt (lead only)")
    p.add_argument("--reset-prompt", metavar="CODE",
                   help="build the code's prompt from the codebook again (lead only)")
    p.add_argument("--file", type=Path, metavar="F", help="the prompt for --edit-prompt")
    p.add_argument("--list", action="store_true", help="list the runs stored and stop")
    p.set_defaults(func=cmd_suggest)


def _prompts(args: argparse.Namespace) -> int | None:
    from ..domain.errors import Sense7Error
    from ..domain.file_reading import decode_text, read_bytes
    from ..project.suggestions import asking as sg

    if args.show_prompt:
        with open_as(args) as project:
            shown, own = sg.code_prompt(project, args.show_prompt)
        print(f"# {'stored for this code' if own else 'built from the codebook'}",
              file=sys.stderr)
        print(shown)
        return 0
    if args.edit_prompt or args.reset_prompt:
        if args.edit_prompt and not args.file:
            raise Sense7Error("--edit-prompt CODE needs --file F")
        text: str | None = None
        if args.edit_prompt:
            # read before the project is opened
            text = decode_text(args.file, read_bytes(args.file, 200_001))
        with open_as(args, backup=True) as project:
            sg.set_code_prompt(project, args.edit_prompt or args.reset_prompt, text)
        print(f"stored the prompt of {args.edit_prompt}" if args.edit_prompt else
              f"the prompt of {args.reset_prompt} is built from the codebook again",
              file=sys.stderr)
        return 0
    return None


def _list_runs(args: argparse.Namespace) -> int:
    from ..project.suggestions.stored import suggestion_runs

    with open_as(args) as project:
        runs = suggestion_runs(project)
    if not runs:
        print("no suggestion runs in this project")
    for r in runs:
        where = f" at {r.endpoint_host}" if r.endpoint_host else ""
        print(f"run {r.run}: {r.rater} ({r.method}{where}, {r.unit}), "
              f"{r.answered:,} values, {r.no_answer:,} no answer, prompt {r.prompt_hash or '-'}"
              f", {r.started_at} - {r.finished_at or 'unfinished'}")
    return 0


def _confirm(args: argparse.Namespace, requests: int) -> None:
    from ..domain.errors import Sense7Error

    if args.yes or requests <= CONFIRM_REQUESTS:
        return
    if not sys.stdin.isatty():
        raise Sense7Error(f"{requests:,} requests is more than {CONFIRM_REQUESTS:,}: run "
                          "again with --yes to send them (nothing was sent)")
    answer = input(f"send {requests:,} requests? [y/N] ").strip().casefold()
    if answer not in ("y", "yes"):
        raise Sense7Error("nothing was sent")


def cmd_suggest(args: argparse.Namespace) -> int:
    from ..domain.errors import Sense7Error

    done = _prompts(args)
    if done is not None:
        return done
    if args.list:
        return _list_runs(args)
    if args.model is None:
        raise Sense7Error("say which model suggests: --model llm or --model baseline")
    if args.model == "llm" and not (args.endpoint and args.api_model):
        raise Sense7Error("--model llm needs --endpoint URL and --api-model NAME")
    if args.model == "llm":  # before the plan is counted and shown
        from ..domain.llm.pool import check_settings

        check_settings(args.concurrency, args.timeout, max(0, args.retries))
    filt = _conversation_filter(args)
    with open_as(args, backup=not args.dry_run) as project:
        if args.model == "baseline":
            return _baseline(args, project, filt)
        return _llm(args, project, filt)


def _llm(args: argparse.Namespace, project: Any, filt: Any) -> int:
    from ..project.suggestions import asking as sg

    plan = sg.plan(project, args.codes, unit=args.unit, conversations=filt,
                   per_unit=not args.per_code, context=args.context)
    print(f"{plan.units:,} units, {len(plan.codes)} code{'s' * (len(plan.codes) != 1)}: "
          f"{plan.requests:,} requests, about {plan.prompt_tokens:,} prompt tokens and "
          f"{plan.reply_tokens:,} reply tokens (a token taken as 4 characters)",
          file=sys.stderr)
    if args.dry_run:
        return 0
    _confirm(args, plan.requests)
    try:
        out = sg.run_llm(project, plan, args.endpoint, args.api_model, name=args.name,
                         api_key=os.environ.get(API_KEY_ENV), concurrency=args.concurrency,
                         timeout_s=args.timeout, retries=max(0, args.retries),
                         temperature=args.temperature, structured=not args.no_structured,
                         progress=_progress("requests"))
    except KeyboardInterrupt:
        print("sense7-coder: interrupted; the replies received so far are kept in the "
              "project and a re-run asks only for the rest", file=sys.stderr)
        return 130
    _summary(out.run)
    print(f"{out.asked:,} requests sent, {out.cached:,} answered from the project's cache"
          + ("" if out.structured else "; the server took no JSON schema, so replies were "
             "read as text"), file=sys.stderr)
    for unit, _code, why in out.unanswered[:5]:
        print(f"  no answer: conversation '{unit.conversation_id}', turn {unit.position}: "
              f"{why}", file=sys.stderr)
    return 0


def _baseline(args: argparse.Namespace, project: Any, filt: Any) -> int:
    from ..project.prediction.suggest_baseline import run_baseline

    run = run_baseline(project, args.codes, unit=args.unit, conversations=filt,
                       runs=args.runs, name=args.name or "baseline",
                       progress=_progress("baseline folds"))
    _summary(run)
    for key, note in run.settings.get("notes", {}).items():
        print(f"  {key}: {note}", file=sys.stderr)
    return 0


def _summary(run: Any) -> None:
    print(f"run {run.run}: {run.rater} suggested {run.answered:,} values; "
          f"{run.no_answer:,} without an answer (kept with the reply: export --kind "
          "suggestions)", file=sys.stderr)

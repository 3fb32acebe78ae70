"""Running a model over a project's units: what to ask (a plan with its cost), asking an
LLM, storing its answers as one run of suggestions.

Every unit of the selected conversations that a selected code applies to is asked about
(turn codes: the turns of the roles they apply to; sentence codes: each sentence of those
turns, segmented first where needed; conversation codes: the conversation). With
``per_unit`` one request asks for all the codes of a unit as one JSON object; otherwise one
request per code and unit. Replies are cached in the project by request (model, messages,
seed, temperature), so a run cut short by a cancel or a failing endpoint asks only for
the rest when started again. The run's suggestions are stored in one transaction at its
end: a run is there whole or not at all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ...domain.codebook.codes import Code
from ...domain.errors import ProjectError
from ...domain.llm.prompts import (
    CONTEXT_TURNS,
    REPLY_TOKENS_PER_CODE,
    ShownTurn,
    estimate_tokens,
    messages,
    prompts_digest,
    system_prompt,
    unit_text,
)
from ...domain.llm.replies import Reading
from ...domain.models import Unit
from ...domain.progress import CancelFn as Cancel
from ...domain.progress import ProgressFn as Progress
from ...domain.rows import MAX_REPLY_CHARS
from ...store import conversations as store_conv
from ...store import predictions as store_pred
from ...store import suggestions as store_sug
from ...store.conversations import ConversationFilter
from ..changes import NOTHING, SUGGESTIONS, Changes
from ..project import Project
from .stored import NewSuggestion, SuggestionRun, store_checked_run

UNITS = ("turn", "sentence", "conversation")


# -- prompts per code ----------------------------------------------------------------------------

def code_prompt(project: Project, key: str) -> tuple[str, bool]:
    """A code's guidance as the model reads it and whether it is the lead's own text
    (else built from the codebook)."""
    from ...domain.llm.prompts import code_guidance

    code = project.code(key)
    stored = store_sug.prompt(project.db, key)
    return (stored, True) if stored else (code_guidance(code), False)


def set_code_prompt(project: Project, key: str, text: str | None) -> Changes:
    """Store a code's own guidance for the model (None or blank: built from the codebook
    again). Only a lead may. What changed: the prompts the model reads (nothing when the
    text was already that)."""
    from ...domain import rows

    project.require_lead("change the model's prompt of a code")
    project.code(key)
    if text is not None and text.strip():
        try:
            rows.text(text, "prompt", "prompt", blank=False)
        except rows.RowError as e:
            raise ProjectError(e.message) from None
        if len(text) > 100_000:
            raise ProjectError(f"the prompt of {key} has {len(text):,} characters "
                               "(at most 100,000)")
    new = text.strip() if text and text.strip() else None
    with project.pdb.atomic() as db:
        if store_sug.prompt(db, key) == new:
            return NOTHING
        store_sug.set_prompt(db, key, new)
    return SUGGESTIONS


# -- the plan ----------------------------------------------------------------------------------

@dataclass
class UnitAsk:
    """One unit and the codes asked about it."""

    unit: Unit
    codes: list[Code]
    span: tuple[int, int] | None = None


@dataclass
class Plan:
    codes: list[Code]
    asks: list[UnitAsk]
    per_unit: bool
    context: int
    #: the stored guidance of the codes asked (code key -> text)
    stored: dict[str, str]
    turns: dict[str, list[ShownTurn]] = field(repr=False, default_factory=dict)
    prompt_tokens: int = 0

    @property
    def units(self) -> int:
        return len(self.asks)

    @property
    def requests(self) -> int:
        return sum(1 if self.per_unit else len(a.codes) for a in self.asks)

    @property
    def values(self) -> int:
        return sum(len(a.codes) for a in self.asks)

    @property
    def reply_tokens(self) -> int:
        return self.values * REPLY_TOKENS_PER_CODE

    @property
    def digest(self) -> str:
        return prompts_digest(self.codes, self.stored)

    def batches(self) -> Iterator[tuple[UnitAsk, list[Code]]]:
        for ask in self.asks:
            if self.per_unit:
                yield ask, ask.codes
            else:
                for code in ask.codes:
                    yield ask, [code]

    def messages_of(self, ask: UnitAsk, codes: Sequence[Code]) -> list[dict[str, str]]:
        text = unit_text(self.turns[ask.unit.conversation_id], ask.unit.position, ask.span,
                         context=self.context)
        return messages(system_prompt(codes, self.stored), text)


def _roles(code: Code) -> set[str]:
    return {"user", "assistant", "system"} if code.applies_to == "any" else {code.applies_to}


def selected_codes(project: Project, keys: Sequence[str] = (), unit: str | None = None
                   ) -> list[Code]:
    if unit is not None and unit not in UNITS:
        raise ProjectError(f"unit must be one of {', '.join(UNITS)}")
    codes = [project.code(k) for k in dict.fromkeys(keys)] if keys else \
        [c for c in project.codebook.active if c.unit != "span"]
    spans = [c.key for c in codes if c.unit == "span"]
    if spans:  # a span is a stretch of text a person marks, not a value of a unit
        raise ProjectError(f"{', '.join(spans)}: span codes are marked on the text by coders; "
                           "a model suggests values of turns, sentences and conversations")
    if unit is not None:
        codes = [c for c in codes if c.unit == unit]
    if not codes:
        where = f" at {unit} level" if unit else ""
        raise ProjectError(f"no code to suggest{where} (the codebook's codes: "
                           f"{', '.join(c.key for c in project.codebook.active) or 'none'})")
    return codes


def plan(project: Project, codes: Sequence[str] = (), *, unit: str | None = None,
         conversations: ConversationFilter | None = None, per_unit: bool = True,
         context: int = CONTEXT_TURNS, measure: bool = True) -> Plan:
    """Which units are asked about which codes, and what the requests cost (``measure``:
    estimate the prompt tokens, building every prompt once)."""
    chosen = selected_codes(project, codes, unit)
    if context < 0:
        raise ProjectError("the context must be 0 turns or more")
    stored = {k: v for k, v in store_sug.prompts(project.db).items()
              if k in {c.key for c in chosen}}
    turns: dict[str, list[ShownTurn]] = {}
    for cid, _pid, _m, _t, pos, role, text in store_pred.turn_texts(project.db, conversations):
        turns.setdefault(cid, []).append(ShownTurn(pos, role, text))
    if any(c.unit == "sentence" for c in chosen):
        from ..imports import ensure_sentences

        for cid in turns:
            ensure_sentences(project, cid)
    asks: list[UnitAsk] = []
    for cid, shown in turns.items():
        conv_codes = [c for c in chosen if c.unit == "conversation"]
        if conv_codes:
            asks.append(UnitAsk(Unit(cid, 0), conv_codes))
        spans = (store_conv.sentences_of(project.db, cid)
                 if any(c.unit == "sentence" for c in chosen) else {})
        for turn in shown:
            turn_codes = [c for c in chosen if c.unit == "turn" and turn.role in _roles(c)]
            if turn_codes:
                asks.append(UnitAsk(Unit(cid, turn.position), turn_codes))
            sentence_codes = [c for c in chosen if c.unit == "sentence"
                              and turn.role in _roles(c)]
            for i, span in enumerate(spans.get(turn.position, []) if sentence_codes else [], 1):
                asks.append(UnitAsk(Unit(cid, turn.position, i), sentence_codes, span))
    out = Plan(chosen, asks, per_unit, context, stored, turns)
    if measure:
        system_sizes: dict[tuple[str, ...], int] = {}
        total = 0
        for ask, batch in out.batches():
            key = tuple(c.key for c in batch)
            if key not in system_sizes:
                system_sizes[key] = estimate_tokens(system_prompt(batch, stored))
            total += system_sizes[key] + estimate_tokens(
                unit_text(turns[ask.unit.conversation_id], ask.unit.position, ask.span,
                          context=context))
        out.prompt_tokens = total
    return out


# -- asking an LLM -----------------------------------------------------------------------------

@dataclass
class LLMRunResult:
    run: SuggestionRun
    requests: int
    asked: int
    cached: int
    structured: bool
    #: (unit, code, reason) of each value left without an answer
    unanswered: list[tuple[Unit, str, str]]

    @property
    def changes(self) -> Changes:
        return self.run.changes


def endpoint_host(endpoint: str) -> str:
    """The endpoint's host and port only: what a run records of where it asked."""
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    return f"{host}:{parts.port}" if parts.port else host


def run_llm(project: Project, the_plan: Plan, endpoint: str, api_model: str, *,
            name: str | None = None, api_key: str | None = None, concurrency: int = 4,
            timeout_s: float = 120.0, retries: int = 4, backoff_s: float = 1.0,
            temperature: float = 0.0, structured: bool = True,
            progress: Progress | None = None, cancel: Cancel | None = None) -> LLMRunResult:
    """Ask the server about every unit of ``the_plan`` and store the answers as one run of
    the model ``name`` (default: the API model). Unreadable replies become *no answer*;
    LLMError (the endpoint failed) stops the run, keeping the answers in the cache."""
    from ...domain.llm.judge import request_key
    from ...domain.llm.pool import check_settings
    from ...domain.llm.replies import read_reply
    from ...domain.llm.suggest_client import Answer, Request, SuggestClient, ask_all

    project.require_lead("run a model over the project")
    if not endpoint.startswith(("http://", "https://")):
        raise ProjectError(f"the endpoint '{endpoint}' is not an http(s) URL")
    check_settings(concurrency, timeout_s, retries)
    client = SuggestClient(endpoint, api_model, api_key, timeout_s, retries, backoff_s,
                           temperature, structured)
    results: dict[tuple[Unit, str], Reading | str] = {}
    replies: dict[tuple[Unit, str], str] = {}
    todo: list[Request] = []
    cached = 0
    for ask, batch in the_plan.batches():
        msgs = the_plan.messages_of(ask, batch)
        key = request_key(api_model, msgs, 0, temperature)
        hit = store_pred.llm_answer(project.db, key)
        if hit is not None:
            cached += 1
            for code_key, got in read_reply(hit[0], batch).items():
                results[(ask.unit, code_key)] = got
                replies[(ask.unit, code_key)] = hit[0]
            continue
        todo.append(Request(key, msgs, batch, 0, ask))

    def save(req: Request, answer: Answer) -> None:
        ask: UnitAsk = req.tag
        for code_key, got in answer.readings.items():
            results[(ask.unit, code_key)] = got
            replies[(ask.unit, code_key)] = answer.reply
        if all(isinstance(r, Reading) for r in answer.readings.values()):
            with project.pdb.atomic() as db:
                store_pred.save_llm_answer(db, req.key, ask.unit.conversation_id, api_model,
                                           0, answer.reply, None)

    def where(req: Request) -> str:
        u: Unit = req.tag.unit
        at = "the conversation" if u.position == 0 else f"turn {u.position}" + (
            f", sentence {u.sentence}" if u.sentence else "")
        return f"conversation '{u.conversation_id}', {at}"

    asked = ask_all(todo, client, save=save, concurrency=concurrency, progress=progress,
                    cancel=cancel, where=where)
    items: list[NewSuggestion] = []
    unanswered: list[tuple[Unit, str, str]] = []
    for ask in the_plan.asks:
        for code in ask.codes:
            got = results.get((ask.unit, code.key), f"{code.key}: never asked")
            if isinstance(got, Reading):
                items.append(NewSuggestion(ask.unit, code.key, "ok", got.value, got.rationale))
            else:
                kept = replies.get((ask.unit, code.key), "")[:MAX_REPLY_CHARS]
                items.append(NewSuggestion(ask.unit, code.key, "no_answer", reply=kept,
                                           rationale=got[:MAX_REPLY_CHARS]))
                unanswered.append((ask.unit, code.key, got))
    settings: dict[str, Any] = {
        "codes": [c.key for c in the_plan.codes], "per_unit": the_plan.per_unit,
        "context_turns": the_plan.context, "temperature": temperature, "retries": retries,
        "structured_output": client.structured, "concurrency": concurrency}
    units = sorted({c.unit for c in the_plan.codes})
    run = store_checked_run(
        project, name or api_model, "llm", "+".join(units), items, api_model=api_model,
        endpoint_host=endpoint_host(endpoint), prompt_digest=the_plan.digest,
        settings=settings, requests=the_plan.requests)
    return LLMRunResult(run, the_plan.requests, asked, cached, client.structured, unanswered)

"""The suggest command against a local OpenAI-compatible server started by the test."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_llm_judge import FakeServer, completion

from sense7_coder.domain.errors import Cancelled
from sense7_coder.domain.llm.judge import LLMError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.suggestions.asking import code_prompt, plan, run_llm, set_code_prompt
from sense7_coder.project.suggestions.stored import suggestion_runs, suggestions

FAST = {"retries": 2, "backoff_s": 0.01, "timeout_s": 5.0}
Reply = Callable[[dict[str, Any], int], tuple[int, str]]


@pytest.fixture
def serve() -> Iterator[Callable[..., FakeServer]]:
    servers: list[FakeServer] = []

    def start(reply: Reply, delay: float = 0.0) -> FakeServer:
        servers.append(FakeServer(reply, delay))
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


def _keys(body: dict[str, Any]) -> list[str]:
    return re.findall(r'"([a-z_]+)"', body["messages"][0]["content"].rsplit("Keys:", 1)[1])


def _turn(body: dict[str, Any]) -> int:
    return int(re.findall(r"\[turn (\d+), assistant\]\n>>>", body["messages"][1]["content"])[0])


def json_answer(body: dict[str, Any], n: int) -> tuple[int, str]:
    """Every code asked: level (turn % 5) + 1, as one JSON object."""
    value = _turn(body) % 5 + 1
    return 200, completion(json.dumps({k: {"value": value, "rationale": f"turn {_turn(body)}"}
                                       for k in _keys(body)}))


def test_every_dimension_of_every_assistant_turn_is_suggested(
        demo_project: Path, serve: Callable[..., FakeServer]):
    server = serve(json_answer)
    with Project.open(demo_project, backup=False) as p:
        the_plan = plan(p)
        assistant = p.db.execute("SELECT COUNT(*) FROM turns WHERE role = 'assistant'"
                                 ).fetchone()[0]
        assert the_plan.units == assistant and the_plan.requests == assistant
        assert the_plan.values == assistant * 8 and the_plan.prompt_tokens > 0
        out = run_llm(p, the_plan, server.url, "qwen", concurrency=3, **FAST)
        assert out.run.answered == assistant * 8 and out.run.no_answer == 0
        assert out.run.rater == "model:qwen" and out.run.endpoint_host.startswith("127.0.0.1:")
        assert server.max_in_flight <= 3
        got = suggestions(p, Unit("101", 2))
        assert {s.code for s in got} == {c.key for c in p.codebook.active if c.unit != "span"}
        assert all(s.value == 3 and s.rationale == "turn 2" for s in got)
        # structured output was asked for, with each code's levels
        fmt = server.requests[0]["response_format"]
        assert fmt["json_schema"]["schema"]["properties"]["affective"]["properties"][
            "value"]["enum"] == [1, 2, 3, 4, 5, None]
        # a second run asks nothing: the replies are cached in the project
        again = run_llm(p, plan(p), server.url, "qwen", **FAST)
        assert (again.asked, again.cached) == (0, assistant)
        assert len(suggestion_runs(p)) == 2


def test_replies_in_the_papers_and_other_formats_and_unreadable_ones_counted(
        demo_project: Path, serve: Callable[..., FakeServer]):
    shapes = ["<S1>4</S1>", "Empathy level: 4", "level: 4", "4/5", "good",
              '```json\n{"value": 4}\n```', "I will not answer that."]

    seen: dict[str, int] = {}

    def reply(body: dict[str, Any], n: int) -> tuple[int, str]:
        unit = body["messages"][1]["content"]
        return 200, completion(shapes[seen.setdefault(unit, len(seen)) % len(shapes)])

    server = serve(reply)
    with Project.open(demo_project, backup=False) as p:
        the_plan = plan(p, ["affective"], conversations=None)
        out = run_llm(p, the_plan, server.url, "m", concurrency=1, **FAST)
        unreadable = [u for u, i in seen.items() if i % len(shapes) == 6]
        assert out.run.no_answer == len(unreadable) > 0
        assert out.run.answered == the_plan.units - len(unreadable)
        values = {s.unit: s for s in suggestions(p, "101", "affective")}
        for _unit, s in values.items():
            if s.status == "ok":
                assert s.value == 4
            else:
                assert s.reply == "I will not answer that." and "no level" in s.rationale
        # each unreadable unit was asked again before it was given up
        assert len(server.requests) == the_plan.requests + 2 * len(unreadable)


def test_a_server_that_refuses_the_schema_is_asked_without_it(
        demo_project: Path, serve: Callable[..., FakeServer]):
    def reply(body: dict[str, Any], n: int) -> tuple[int, str]:
        if "response_format" in body:
            return 400, json.dumps({"error": "response_format not supported"})
        return json_answer(body, n)

    server = serve(reply)
    with Project.open(demo_project, backup=False) as p:
        out = run_llm(p, plan(p, ["overall"]), server.url, "m", concurrency=1, **FAST)
        assert not out.structured and out.run.no_answer == 0
        assert out.run.settings["structured_output"] is False
        assert sum("response_format" in r for r in server.requests) == 1


def test_an_endpoint_failure_stops_the_run_with_one_message_and_stores_no_run(
        demo_project: Path, serve: Callable[..., FakeServer]):
    def reply(body: dict[str, Any], n: int) -> tuple[int, str]:
        return (500, "{}") if n > 3 else json_answer(body, n)

    server = serve(reply)
    with Project.open(demo_project, backup=False) as p:
        with pytest.raises(LLMError, match=r"conversation '.*', turn \d+: .*HTTP 500.*after 3 "
                                           "attempts"):
            run_llm(p, plan(p), server.url, "m", concurrency=1, **FAST)
        assert suggestion_runs(p) == []
        # what was answered is kept: the next run asks only for the rest
        ok = serve(json_answer)
        out = run_llm(p, plan(p), ok.url, "m", concurrency=1, **FAST)
        assert out.cached == 3 and out.asked == out.requests - 3
    with Project.open(demo_project, backup=False) as p, \
            pytest.raises(LLMError, match="HTTP 401"):
        run_llm(p, plan(p), serve(lambda b, n: (401, "{}")).url, "other", **FAST)


def test_cancel_stops_within_a_second(demo_project: Path, serve: Callable[..., FakeServer]):
    import time

    server = serve(json_answer, delay=3.0)
    start = time.monotonic()
    with Project.open(demo_project, backup=False) as p, pytest.raises(Cancelled):
        run_llm(p, plan(p), server.url, "m", cancel=lambda: time.monotonic() - start > 0.3,
                **FAST)
    assert time.monotonic() - start < 1.5


def test_prompts_are_built_from_the_codebook_and_editable_per_code(
        demo_project: Path, serve: Callable[..., FakeServer]):
    server = serve(json_answer)
    with Project.open(demo_project, backup=False) as p:
        text, own = code_prompt(p, "affective")
        code = p.code("affective")
        assert not own and code.label in text and code.levels[0].label in text
        before = plan(p, ["affective"]).digest
        set_code_prompt(p, "affective", "Rate only the feelings named.\n- 1 = none ... 5 = all")
        assert code_prompt(p, "affective") == ("Rate only the feelings named.\n- 1 = none ... "
                                               "5 = all", True)
        the_plan = plan(p, ["affective"], per_unit=False)
        assert the_plan.digest != before
        run_llm(p, the_plan, server.url, "m", **FAST)
        assert "Rate only the feelings named" in server.requests[0]["messages"][0]["content"]
        assert ">>>" in server.requests[0]["messages"][1]["content"]
        assert suggestion_runs(p)[-1].prompt_hash == the_plan.digest
        set_code_prompt(p, "affective", None)
        assert not code_prompt(p, "affective")[1]


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sense7_coder", *args], capture_output=True,
                          text=True, input=stdin, timeout=120)


def test_the_command_line_prints_the_cost_and_refuses_a_big_run_without_yes(
        demo_project: Path, serve: Callable[..., FakeServer], monkeypatch: pytest.MonkeyPatch):
    from sense7_coder.cli import suggest as cli_suggest

    server = serve(json_answer)
    out = _cli("suggest", str(demo_project), "--model", "llm", "--endpoint", server.url,
               "--api-model", "qwen", "--dry-run")
    assert out.returncode == 0, out.stderr
    assert re.search(r"\d+ units, 8 codes: \d+ requests, about [\d,]+ prompt tokens", out.stderr)
    assert server.requests == []
    assert cli_suggest.CONFIRM_REQUESTS >= 100
    big = _cli("suggest", str(demo_project), "--model", "llm", "--endpoint", server.url,
               "--api-model", "qwen", "--per-code", "--retries", "0", stdin="")
    n = int(re.search(r"([\d,]+) requests", big.stderr).group(1).replace(",", ""))  # type: ignore[union-attr]
    if n > cli_suggest.CONFIRM_REQUESTS:
        assert big.returncode != 0 and "--yes" in big.stderr and server.requests == []
    done = _cli("suggest", str(demo_project), "--model", "llm", "--endpoint", server.url,
                "--api-model", "qwen", "--codes", "affective", "overall", "--yes")
    assert done.returncode == 0, done.stderr
    assert "model:qwen suggested" in done.stderr
    listed = _cli("suggest", str(demo_project), "--list")
    assert "model:qwen (llm at 127.0.0.1:" in listed.stdout
    shown = _cli("suggest", str(demo_project), "--show-prompt", "affective")
    assert "Affective" in shown.stdout and "built from the codebook" in shown.stderr


@pytest.mark.slow
def test_every_sense7_dimension_of_the_322_conversations(
        shared_data: Path, tmp_path: Path, serve: Callable[..., FakeServer]):
    """SENSE-7 and WildChat conversations: every dimension of every assistant turn."""
    from sense7_coder.domain.importers import ImportOptions
    from sense7_coder.project.imports import import_files
    from sense7_coder.resources import resolve_codebook

    source = shared_data / "mint-empathy" / "training" / "conversations_322.json"
    server = serve(json_answer)
    with Project.create(tmp_path / "mint.sense7", resolve_codebook("sense7")) as p:
        import_files(p, [source], ImportOptions())
        the_plan = plan(p)
        assert the_plan.units == 1719 and the_plan.values == 1719 * 8
        out = run_llm(p, the_plan, server.url, "qwen", concurrency=16, **FAST)
        assert out.run.answered == 1719 * 8 and out.run.no_answer == 0
        per_code = dict(p.db.execute("SELECT code, COUNT(*) FROM suggestions GROUP BY code"))
        assert per_code == {c.key: 1719 for c in p.codebook.active if c.unit != "span"}


def test_every_kind_of_code_at_every_unit(demo_project: Path,
                                          serve: Callable[..., FakeServer]):
    from sense7_coder.domain.codebook.codes import Code, Level
    from sense7_coder.project.codebook.editing import add_code

    def reply(body: dict[str, Any], n: int) -> tuple[int, str]:
        answer = {"stance": {"value": "refuse", "rationale": "says no"},
                  "apology": {"value": 1, "rationale": "says sorry"},
                  "affective": {"value": None, "rationale": "nothing to judge"}}
        return 200, completion(json.dumps({k: answer[k] for k in _keys(body)}))

    server = serve(reply)
    with Project.open(demo_project, backup=False) as p:
        add_code(p, Code("stance", "Stance", kind="nominal", unit="conversation",
                         levels=[Level("agree", "agrees"), Level("refuse", "refuses")]))
        add_code(p, Code("apology", "Apology", kind="binary", unit="sentence",
                         allow_na=False, levels=[Level(0, "absent"), Level(1, "present")]))
        the_plan = plan(p, ["stance", "apology", "affective"], conversations=None)
        kinds = {(a.unit.position == 0, a.unit.sentence > 0) for a in the_plan.asks}
        assert kinds == {(True, False), (False, True), (False, False)}
        sentence = next(a for a in the_plan.asks if a.unit.sentence)
        assert ">>>" in the_plan.messages_of(sentence, sentence.codes)[1]["content"]
        out = run_llm(p, the_plan, server.url, "m", concurrency=4, **FAST)
        assert out.run.no_answer == 0 and out.run.answered == the_plan.values
        got = {(s.unit.position == 0, s.unit.sentence > 0, s.code): s.value
               for s in suggestions(p, "101")}
        assert got == {(True, False, "stance"): "refuse", (False, True, "apology"): 1,
                       (False, False, "affective"): None}
        # --unit keeps only the codes of that unit
        assert [c.key for c in plan(p, unit="conversation", measure=False).codes] == ["stance"]


def test_hostile_replies_and_endpoints(demo_project: Path, serve: Callable[..., FakeServer]):
    from sense7_coder.domain.errors import ProjectError

    huge = "blah " * 600_000  # 3 MB of text with no level in it

    def reply(body: dict[str, Any], n: int) -> tuple[int, str]:
        if "[turn 2, assistant]\n>>>" in body["messages"][1]["content"]:
            return 200, completion(huge)
        return 200, completion('{"affective": {"value": 123456789012345678901234567890}}')

    server = serve(reply)
    secret_url = server.url.replace("http://", "http://user:secret@")
    with Project.open(demo_project, backup=False) as p:
        out = run_llm(p, plan(p, ["affective"]), secret_url, "m", **FAST)
        assert out.run.answered == 0 and out.run.no_answer == out.requests
        assert out.run.endpoint_host == server.url.split("//")[1].split("/")[0]
        assert "secret" not in str(p.db.execute("SELECT * FROM suggestion_runs").fetchall())
        kept = [s for s in suggestions(p, "101") if s.unit.position == 2]
        assert kept and all(len(s.reply or "") == 100_000 for s in kept)
        # a coder who is not the lead runs no model
        p.set_coder("lee", "adjudicator")
        p.set_coder("dora")
        with pytest.raises(ProjectError, match="only a lead"):
            run_llm(p, plan(p, ["affective"]), server.url, "m", **FAST)

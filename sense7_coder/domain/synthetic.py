"""Generated studies with a known empathy signal, for tests and benchmarks.

Each participant has their own leniency (a shift of every rating), each assistant turn a
true empathy level that shows in its words: warm phrases for high levels, curt ones for low
levels, plus neutral filler. Ratings are that level plus the participant's shift and noise,
rounded and clipped to 1..5; some dimensions are left unrated or marked not applicable.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from .models import DIMENSIONS

WARM = ["that sounds really hard", "I hear you", "it makes sense you feel this way",
        "thank you for sharing", "how are you holding up", "I am here for you"]
CURT = ["just do it", "that is not a problem", "move on", "read the manual",
        "this is simple", "stop worrying"]
FILLER = ["about the meeting", "with the report", "for next week", "in the project",
          "on the schedule", "regarding the email", "for the team"]
TASKS = ["feedback", "deadline", "conflict", "career"]
MODELS = ["GPT4", "IC", "Llama"]


def _clip(x: float) -> int:
    return int(min(5, max(1, round(x))))


def study_lines(n_conversations: int, *, participants: int | None = None,
                assistant_turns: int = 3, seed: int = 0) -> list[str]:
    """JSON lines (the native layout) of a generated study."""
    rng = random.Random(seed)
    n_people = participants or max(2, n_conversations // 10)
    shift = {f"P{i:04d}": rng.gauss(0, 0.5) for i in range(n_people)}
    people = list(shift)
    lines = []
    for i in range(n_conversations):
        pid = people[i % n_people]
        model = MODELS[i % len(MODELS)]
        base = rng.choice([1, 2, 3, 4, 5])
        messages: list[dict[str, Any]] = []
        for _t in range(assistant_turns):
            level = min(5, max(1, base + rng.choice([-1, 0, 0, 1])))
            messages.append({"role": "user",
                             "content": f"I am stressed {rng.choice(FILLER)}."})
            warm = [rng.choice(WARM) for _ in range(level - 1)]
            curt = [rng.choice(CURT) for _ in range(5 - level)]
            words = warm + curt + [rng.choice(FILLER), rng.choice(FILLER)]
            rng.shuffle(words)
            ratings: dict[str, Any] = {}
            for dim in DIMENSIONS:
                r = rng.random()
                if r < 0.05:
                    continue  # not rated
                ratings[dim] = ("unknown" if r < 0.1
                                else _clip(level + shift[pid] + rng.gauss(0, 0.6)))
            ratings["overall"] = _clip(level + shift[pid] + rng.gauss(0, 0.6))
            messages.append({"role": "assistant", "content": ". ".join(words) + ".",
                             "ratings": ratings})
        lines.append(json.dumps({
            "conversation_id": f"g{i:05d}", "participant_id": pid, "model": model,
            "topic": TASKS[i % len(TASKS)],
            "attributes": {"PreTaskDesiredEmpathy": _clip(3 + shift[pid] * 2),
                           "week": 1 + i % 2},
            "messages": messages}))
    return lines


def write_study(path: Path, n_conversations: int, **kwargs: int) -> Path:
    path.write_text("\n".join(study_lines(n_conversations, **kwargs)) + "\n", encoding="utf-8")
    return path

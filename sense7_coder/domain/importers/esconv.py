"""ESConv (Emotional Support Conversation) files: ``ESConv.json`` and ``FailedESConv.json``.

A list of conversations, each with ``experience_type``, ``emotion_type``, ``problem_type``,
``situation``, ``survey_score`` and a ``dialog`` of ``{"speaker", "annotation", "content"}``.
In the file the help-seeker is ``speaker`` (-> role user, speaker name ``seeker``) and the
supporter is ``listener`` (-> role assistant, speaker name ``supporter``); ``--roles`` can
override.

* The file has no ids: conversation n (from 1) gets ``<file stem>-<n>``.
* The supporter's ``strategy`` annotation is kept as the turn attribute ``strategy``.
* The seeker's ``feedback`` annotation (1-5) rates the supporter's help so far. It is kept
  as the seeker turn's attribute ``feedback`` and also stored as the ``overall`` user rating
  of the most recent supporter turn before it (the turn it judges). When two feedbacks
  follow the same supporter turn, the later one is the rating (a warning says how often);
  a feedback before any supporter turn stays only on the seeker turn.
* ``experience_type``, ``emotion_type``, ``problem_type``, ``situation`` and the survey
  scores become conversation attributes (``survey_seeker_empathy``, ... with numbers as
  numbers); ``problem_type`` is also the conversation's topic.
* ``feedback`` and the survey scores are marked as the users' own judgments
  (``ImportBatch.judgments``): blind coders do not see them unless the lead shows them.
* Texts are stripped of the surrounding blanks and line breaks the collection tool left.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InputError
from ..models import Conversation, ImportBatch, Turn
from .jsonchat import load_json
from .options import ImportOptions
from .roles import RoleResolver
from .ticker import CHECK_EVERY, Ticker
from .values import RecordError, coerce_scalar

ESCONV_ROLES = {"speaker": "user", "seeker": "user", "usr": "user",
                "listener": "assistant", "supporter": "assistant", "sys": "assistant"}
SPEAKER_NAMES = {"user": "seeker", "assistant": "supporter"}
#: turn annotations that are the help-seeker's own judgment (with every ``survey_*`` score)
USER_JUDGMENTS = frozenset({"feedback"})


def looks_like_esconv(data: Any) -> bool:
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        return False
    first = data[0]
    dialog = first.get("dialog")
    return (isinstance(dialog, list) and bool(dialog) and isinstance(dialog[0], dict)
            and "annotation" in dialog[0] and "speaker" in dialog[0])


def _scalar(value: Any) -> Any:
    return coerce_scalar(value.strip()) if isinstance(value, str) else value


def _conversation(obj: dict[str, Any], n: int, stem: str, resolver: RoleResolver,
                  where: str) -> tuple[Conversation, int]:
    dialog = obj.get("dialog")
    if not isinstance(dialog, list):
        raise RecordError("the conversation has no 'dialog' list", where, "dialog")
    conv = Conversation(conversation_id=f"{stem}-{n}")
    for key, value in obj.items():
        if key == "dialog":
            continue
        if key == "survey_score" and isinstance(value, dict):
            for who, scores in value.items():
                if isinstance(scores, dict):
                    for item, score in scores.items():
                        conv.attributes[f"survey_{who}_{item}"] = _scalar(score)
            continue
        conv.attributes[key] = _scalar(value)
    topic = obj.get("problem_type")
    conv.topic = str(topic) if topic else None
    overrides = 0
    last_supporter: Turn | None = None
    for i, item in enumerate(dialog, 1):
        here = f"{where}, message {i}"
        if not isinstance(item, dict):
            raise RecordError("a message must be an object", here)
        raw_role = item.get("speaker")
        if not isinstance(raw_role, str):
            raise RecordError("the message has no speaker", here, "speaker")
        role = resolver.role(raw_role)
        if role is None:
            raise RecordError(resolver.unknown_message(raw_role, "speaker"), here, "speaker",
                              resolver.unknown_hint(raw_role))
        content = item.get("content")
        text = content.strip() if isinstance(content, str) else ""
        turn = Turn(position=i, role=role, text=text,
                    speaker=SPEAKER_NAMES.get(role, raw_role))
        annotation = item.get("annotation") or {}
        if not isinstance(annotation, dict):
            raise RecordError("'annotation' must be an object", here, "annotation")
        for key, value in annotation.items():
            turn.attributes[key] = _scalar(value)
        if "feedback" in annotation:
            value = turn.attributes["feedback"]
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
                raise RecordError(f"feedback '{annotation['feedback']}' is not a rating 1-5",
                                  here, "annotation.feedback")
            if last_supporter is not None:
                if "overall" in last_supporter.ratings:
                    overrides += 1
                last_supporter.ratings["overall"] = value
        if role == "assistant":
            last_supporter = turn
        conv.turns.append(turn)
    return conv, overrides


def read_esconv(path: Path, options: ImportOptions, ticker: Ticker | None = None,
                data: Any = None) -> ImportBatch:
    if data is None:
        data = load_json(path, options.encoding)
    if not isinstance(data, list):
        raise InputError(str(path), "an ESConv file is a list of conversations with a 'dialog'")
    if not data:
        raise InputError(str(path), "no conversations in the file")
    resolver = RoleResolver(options.roles, ESCONV_ROLES)
    conversations: list[Conversation] = []
    overrides = 0
    for n, obj in enumerate(data, 1):
        if ticker is not None and n % max(1, CHECK_EVERY // 20) == 0:
            ticker.rows(n, len(data))
        where = f"conversation {n}"
        if not isinstance(obj, dict):
            raise InputError(str(path), "a conversation must be an object", location=where)
        try:
            conv, extra = _conversation(obj, n, path.stem, resolver, where)
        except RecordError as e:
            raise InputError(str(path), e.message, location=e.where, field=e.field,
                             hint=e.hint) from None
        conv.source = path.name
        overrides += extra
        conversations.append(conv)
    warnings = []
    if overrides:
        warnings.append(
            f"{overrides} feedback(s) followed a supporter turn that already had one; "
            "the later feedback is that turn's overall rating")
    judged = {k for c in conversations for k in c.attributes if k.startswith("survey_")}
    judged |= {k for c in conversations for t in c.turns for k in t.attributes
               if k in USER_JUDGMENTS}
    return ImportBatch(source=str(path), conversations=conversations, warnings=warnings,
                       judgments=judged)

"""The paper's analyses of a project, written as CSV tables, PNG/SVG figures and an index.

Sources: ``users`` (the users' own ratings), ``coders`` (every coder's codings), ``consensus``
(the adjudicated values), ``final`` (the final dataset: the consensus, else the one coder's
value; unresolved units left out) or one coder's name. Ordinal codes (and the users' rating keys) are
the dimensions of the rating analyses; every code enters the code frequency, co-occurrence
(binary codes) and crosstab tables. See :mod:`..domain.analyses` for the definitions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..domain.errors import Cancelled, ProjectError
from ..domain.models import RATING_KEYS
from ..domain.progress import CancelFn, ProgressFn
from ..store import predictions as store_pred
from ..store.conversations import ConversationFilter, json_object
from .project import Project

SOURCES = ("users", "coders", "consensus", "final")
DROP = 2
#: the note when the default source has nothing: front ends word the remedy in their terms
NO_USER_RATINGS = ("the users rated no assistant turn in the selected conversations; the "
                   "coders' values can be analysed instead (source: coders)")


@dataclass
class AnalysisOutput:
    out_dir: Path
    source: str
    tables: list[Path] = field(default_factory=list)
    figures: list[Path] = field(default_factory=list)
    index: Path | None = None
    notes: list[str] = field(default_factory=list)
    #: name -> frame, for the window
    frames: dict[str, Any] = field(default_factory=dict)


def _conversations(project: Project, filt: ConversationFilter | None) -> Any:
    import pandas as pd

    rows = store_pred.conversation_table(project.db, filt)
    frame = pd.DataFrame(rows, columns=["conversation_id", "participant_id", "model", "topic",
                                        "attributes"])
    frame["attributes"] = [json_object(a) for a in frame["attributes"]]
    return frame


def _assistant_index(project: Project, filt: ConversationFilter | None) -> Any:
    from ..store.frames import turns_frame

    turns = turns_frame(project.db, roles=["assistant"], conversations=filt)
    turns["turn_index"] = turns.groupby("conversation_id", sort=False).cumcount() + 1
    return turns[["conversation_id", "position", "turn_index"]]


def rating_values(project: Project, source: str, filt: ConversationFilter | None = None
                  ) -> tuple[Any, Any, Any]:
    """(values for the rating analyses, all codings for the code analyses, conversations)."""
    project.require_unblinded("analyse the users' ratings and the coders' values")
    import pandas as pd

    from ..store.frames import codings_frame, consensus_frame, user_ratings_frame

    conversations = _conversations(project, filt)
    if source == "users":
        raw = user_ratings_frame(project.db, conversations=filt).rename(
            columns={"rating": "code"})
        raw["rater"] = "users"
        raw["sentence"] = 0
        present = set(raw["code"])
        numeric_codes = [k for k in RATING_KEYS if k in present]
        numeric_codes += sorted(present - set(numeric_codes))
    else:
        if source == "consensus":
            raw = consensus_frame(project.db, conversations=filt)
            raw["rater"] = "consensus"
        elif source == "final":
            raw = _final_values(project, filt)
        else:
            coders = [] if source == "coders" else [source]
            if coders and source not in {c["name"] for c in project.coders()}:
                known = ", ".join(c["name"] for c in project.coders()) or "none"
                raise ProjectError(f"no coder '{source}' in this project (sources: "
                                   f"{', '.join(SOURCES)} or a coder: {known})")
            raw = codings_frame(project.db, coders=coders, conversations=filt)
            raw = raw.rename(columns={"coder": "rater"})
        raw = raw[["rater", "conversation_id", "position", "sentence", "code", "value"]].copy()
        numeric_codes = [c.key for c in project.codebook.codes
                         if c.kind == "ordinal" and c.unit in ("turn", "conversation")]
    codings = raw[["rater", "conversation_id", "position", "code", "value"]].copy()
    values = raw[raw["code"].isin(numeric_codes) & (raw["sentence"] == 0)]
    values = values.rename(columns={"code": "dimension"})
    values = values.merge(conversations.drop(columns=["attributes"]), on="conversation_id",
                          how="left")
    values = values.merge(_assistant_index(project, filt), on=["conversation_id", "position"],
                          how="left")
    values["turn_index"] = values["turn_index"].fillna(0).astype("int64")
    na = values["value"].astype(object).map(pd.isna)
    values["na"] = na.to_numpy(bool)
    values["value"] = pd.to_numeric(values["value"].where(~na), errors="coerce").astype(float)
    values["position"] = values["position"].astype("int64")
    order = {d: i for i, d in enumerate(numeric_codes)}
    values["_o"] = values["dimension"].map(order).fillna(len(order))
    values = values.sort_values(["_o"], kind="stable").drop(columns="_o")
    cols = ["conversation_id", "participant_id", "model", "topic", "position", "turn_index",
            "rater", "dimension", "value", "na"]
    return values[cols].reset_index(drop=True), codings, conversations


def _final_values(project: Project, filt: ConversationFilter | None) -> Any:
    """The final dataset (export kind ``final``) as rater ``final``: the consensus, else
    the one coder's value; unresolved units are left out."""
    import pandas as pd

    from ..domain.export.tables import NA_TEXT
    from ..domain.provenance import UNRESOLVED
    from .export import export_frame
    from .selection import Selection

    table = export_frame(project, "final", Selection.of_conversations(filt))
    table = table[table["source"] != UNRESOLVED]

    def number(column: str) -> Any:
        return pd.to_numeric(table[column].astype(object), errors="coerce").fillna(0
                                                                                 ).astype("int64")

    value = table["value"].astype(object)
    return pd.DataFrame({
        "rater": "final",
        "conversation_id": table["conversation_id"].astype(object).to_numpy(),
        "position": number("turn").to_numpy(),
        "sentence": number("sentence").to_numpy(),
        "code": table["code"].astype(object).to_numpy(),
        "value": value.where(value != NA_TEXT, None).to_numpy(),
    })


def _find_attributes(conversations: Any) -> tuple[str | None, list[str]]:
    names: list[str] = list(dict.fromkeys(k for a in conversations["attributes"] for k in a))
    desired = next((n for n in names if "desired" in n.casefold()), None)
    experienced = [n for n in names if "posttaskempathy" in n.casefold().replace("_", "")
                   or "experienced" in n.casefold()]
    return desired, experienced


def run_analyses(
    project: Project,
    out_dir: str | Path,
    *,
    source: str = "users",
    conversations: ConversationFilter | None = None,
    figures: bool = True,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    agreement: bool = True,
) -> AnalysisOutput:
    """Compute every analysis for ``source`` and write it under ``out_dir`` (every table
    read from one state of the file, see :meth:`Project.snapshot`)."""
    project.require_unblinded("analyse the users' ratings and the coders' values")
    with project.snapshot():
        return _run_analyses(project, Path(out_dir), source, conversations, figures,
                             progress, cancel, agreement)


def _make_folder(out_dir: Path) -> None:
    """Make ``out_dir``; a file at its place or above it is named, not left to the system's
    "File exists" / "Not a directory"."""
    in_the_way = next((p for p in (out_dir, *out_dir.parents) if p.is_file()), None)
    if in_the_way is not None:
        raise ProjectError(f"{out_dir}: {in_the_way} is a file; the analyses are written "
                           "into a folder: give a folder's name")
    out_dir.mkdir(parents=True, exist_ok=True)


def _run_analyses(project: Project, out_dir: Path, source: str,
                  conversations: ConversationFilter | None, figures: bool,
                  progress: ProgressFn | None,
                  cancel: CancelFn | None, agreement: bool = True) -> AnalysisOutput:
    """:func:`run_analyses`, inside its snapshot."""
    from ..domain import analyses as an
    from ..domain import plots
    from ..domain.export.tables import write_csv

    _make_folder(out_dir)
    out = AnalysisOutput(out_dir, source)
    steps = 11
    step = 0

    def tick() -> None:
        nonlocal step
        if cancel is not None and cancel():
            raise Cancelled()
        step += 1
        if progress is not None:
            progress(min(step, steps), steps)

    def table(name: str, frame: Any) -> None:
        path = out_dir / f"{name}.csv"
        write_csv(frame, path)
        out.tables.append(path)
        out.frames[name] = frame

    def figure(name: str, fig: Any) -> None:
        if figures:
            out.figures += plots.save(fig, out_dir / name)

    values, codings, convs = rating_values(project, source, conversations)
    tick()
    if values.empty:
        out.notes.append(NO_USER_RATINGS if source == "users" else
                         f"no ratings from source '{source}' in the selected conversations")
    else:
        dist = an.distribution(values)
        table("distribution", dist)
        figure("distribution", plots.distribution(dist, f"Distribution of levels ({source})"))
        tick()
        conv_means = an.conversation_means(values)
        for group, label in (("model", "assistant"), ("topic", "task"),
                             ("participant_id", "participant")):
            means = an.means_by(values, group, conv_means)
            table(f"means_by_{label}", means)
            if means[group].astype(str).str.len().sum() and len(means):
                figure(f"means_by_{label}", plots.means(means, group, f"Mean by {label}"))
        tick()
        per, icc = an.individual_differences(values)
        table("participants", per)
        table("icc", icc)
        if len(per):
            dim = "overall" if "overall" in set(per["dimension"]) else per["dimension"].iloc[0]
            row = icc[icc["dimension"] == dim]
            value = row["icc1"].iloc[0] if len(row) else None
            figure("participants", plots.participants(
                per, dim, None if value is None or value != value else float(value)))
        tick()
        crs = an.course(values)
        table("course", crs)
        if len(crs):
            figure("course", plots.course(crs))
        tick()
        breaks = an.continuity_breaks(values, DROP)
        texts = {(c, p): (role, text) for c, _pid, _m, _t, p, role, text
                 in store_pred.turn_texts(project.db, conversations)}
        breaks["text"] = [texts.get((c, p), ("", ""))[1]
                          for c, p in zip(breaks["conversation_id"], breaks["position"],
                                          strict=True)]
        breaks["turn_before"] = [texts.get((c, p - 1), ("", ""))[1]
                                 for c, p in zip(breaks["conversation_id"], breaks["position"],
                                                 strict=True)]
        table("continuity_breaks", breaks)
        tick()
        desired, experienced = _find_attributes(convs)
        if desired:
            dve, summary = an.desired_vs_experienced(convs, conv_means, desired, experienced)
            table("desired_vs_experienced", dve)
            table("desired_vs_experienced_summary", summary)
            other = "experienced" if experienced else "mean_turn_rating"
            rho = summary.loc[summary["compared"] == other, "spearman"].iloc[0]
            figure("desired_vs_experienced", plots.desired_vs_experienced(
                dve, other, None if rho is None or rho != rho else float(rho)))
        else:
            out.notes.append("no desired-empathy attribute: desired vs experienced skipped")
        tick()
    if codings.empty:
        out.notes.append("no codings: code frequency, co-occurrence and crosstabs skipped")
    else:
        freq = an.code_frequency(codings)
        table("code_frequency", freq)
        figure("code_frequency", plots.code_frequency(freq, f"Code frequency ({source})"))
        tick()
        binary = [c.key for c in project.codebook.codes if c.kind == "binary"]
        binary = [b for b in binary if b in set(codings["code"])]
        if len(binary) >= 2:
            co = an.cooccurrence(codings, binary)
            table("cooccurrence", co)
            figure("cooccurrence", plots.cooccurrence(co))
        tick()
        table("crosstabs", an.crosstabs(codings, convs))
    tick()
    _evaluation(project, conversations, table, figure, cancel)
    tick()
    out.index = _write_index(project, out, conversations, figures, agreement, cancel)
    return out


def _evaluation(project: Project, conversations: ConversationFilter | None, table: Any,
                figure: Any, cancel: CancelFn | None) -> None:
    """The predictors (and models' suggestions) against the users' ratings, per dimension
    and per turn, with intervals over conversations: a table and a figure, when any exist."""
    import pandas as pd

    from ..domain.prediction import figure as plots_evaluation
    from .prediction.evaluation import evaluate_per_dimension

    rows = evaluate_per_dimension(project, conversations, cancel=cancel)
    if rows:
        frame = pd.DataFrame(rows)
        table("evaluation_per_dimension", frame)
        figure("evaluation_per_dimension", plots_evaluation.evaluation(frame))


def _write_index(project: Project, out: AnalysisOutput,
                 filt: ConversationFilter | None, figures: bool, agreement: bool = True,
                 cancel: CancelFn | None = None) -> Path:
    """The report (see :mod:`.analysis_report`): agreement first, then every table."""
    from .analysis_report import ReportInput, agreement_part, write_report

    part = agreement_part(project, filt, out.out_dir, figures, cancel=cancel) if agreement \
        else None
    if part is not None:
        out.figures += part.figures
        out.notes += part.notes
    return write_report(project, ReportInput(
        out.out_dir, out.source, {p.stem: p for p in out.tables}, out.frames, out.figures,
        out.notes), filt, part)

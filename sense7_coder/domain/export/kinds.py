"""The export kinds, one row each (:data:`EXPORT_KIND_TABLE`): the label and description the
export dialog shows, the help the command line prints, the file formats a kind is written
in, the selections (codes, coders, conversations) it takes, and whether it shows what
blind coding hides (then only an unblinded coder or the lead may write it).

Adding an export kind is one row here plus its table in :mod:`sense7_coder.project.export`;
``tests/test_tables.py`` fails when a row is incomplete or a kind has no row.

Light (no pandas): the command line builds its choices and help from it at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..measures import in_order, names_text

#: the file formats a table is written in, with the file dialog's words for each
FILE_FORMATS: dict[str, str] = {
    "csv": "CSV file",
    "xlsx": "Excel workbook",
    "sav": "SPSS data file",
}
TABLES = tuple(FILE_FORMATS)

#: the selections an export may take (the analysis filters)
CODES = "codes"
CODERS = "coders"
CONVERSATIONS = ("models", "participants", "attributes")


@dataclass(frozen=True)
class ExportKind:
    """One export kind."""

    key: str
    #: the export dialog's choice
    label: str
    #: what the file holds, a sentence or two (the dialog, the command-line help)
    description: str
    #: the selections it takes (:data:`CODES`, :data:`CODERS`, :data:`CONVERSATIONS`)
    selections: tuple[str, ...]
    #: whether it shows others' values or anything else blind coding hides
    reveals_blinded: bool
    #: the file formats it is written in (keys of :data:`FILE_FORMATS`)
    formats: tuple[str, ...] = TABLES
    #: whether it can carry how each value was made (provenance columns)
    provenance: bool = False

    def file_filters(self) -> str:
        """A file dialog's filter for this kind: one entry per file format."""
        return ";;".join(f"{FILE_FORMATS[f]} (*.{f})" for f in self.formats)


EXPORT_KIND_TABLE: tuple[ExportKind, ...] = (
    ExportKind("long", "Long: one row per coder, unit and code",
               "Columns coder, conversation_id, participant_id, model, turn, sentence, role, "
               "code, value, level_label, user_rating. “NA” = not applicable. Reads back with "
               "import-codings; the shape for R, pandas and mixed models.",
               (CODES, CODERS, *CONVERSATIONS), True, provenance=True),
    ExportKind("wide", "Wide: one row per unit, a column per code and coder",
               "Columns named <code>__<coder>; an empty cell = that coder did not code it.",
               (CODES, CODERS, *CONVERSATIONS), True, provenance=True),
    ExportKind("consensus", "Consensus: the adjudicated values",
               "One row per decided unit and code, with the adjudicator, rationale and time.",
               (CODES, *CONVERSATIONS), True, provenance=True),
    ExportKind("final", "Final: one row per unit and code, with where each value came from",
               "The consensus where decided, else the one coder's value, else “unresolved” "
               "with every coder's value; columns source, decided_by, blind, after_reveal, "
               "set_at, origin. The rows per source are also written beside the file "
               "(<file>.meta.json).",
               (CODES, CODERS, *CONVERSATIONS), True, provenance=True),
    ExportKind("agreement", "Agreement: every agreement figure",
               f"One row per figure: {names_text(in_order())} (alpha with its bootstrap "
               "interval), and every coder against the users and the consensus.",
               (CODES, CODERS, *CONVERSATIONS), True),
    ExportKind("codebook", "Codebook: one row per code and level",
               "Keys, labels, kinds, units and level descriptions, for a paper's appendix.",
               (CODES,), False),
    ExportKind("assignments", "Assignments: who codes which conversations",
               "Columns coder, conversation_id, overlap (1 = coded by every assigned coder, "
               "for reliability), in each coder's presentation order.",
               (), False),
    ExportKind("history", "History: every change, oldest first",
               "Columns time, coder, action, kind, conversation_id, turn, sentence, code, "
               "before, after, source, actor, origin: who changed which value, how and when.",
               (), True),
    ExportKind("segments", "Segments: the coded text, one row per coded unit or span",
               "Columns coder, conversation_id, turn, sentence, code, value, level_label, "
               "text (the coded sentence, turn or span), start, end (a span's code points) "
               "and context (the turn around a span), for reading what was coded.",
               (CODES, CODERS, *CONVERSATIONS), True),
    ExportKind("memos", "Memos: every memo written while coding",
               "Columns coder, conversation_id, turn, sentence, text, then start, end, "
               "code: a memo on a span with its offsets (code points, end exclusive) and "
               "code, empty for a memo on a turn, sentence or conversation.",
               (CODERS, *CONVERSATIONS), True),
    ExportKind("rationales", "Rationales: why each coder gave a value",
               "One row per rationale: coder, conversation_id, turn, sentence, code, the "
               "value it explains, rationale, updated_at.",
               (), True),
    ExportKind("ratings", "Ratings: the users' own ratings",
               "The users' own ratings, whether or not anyone coded: conversation_id, "
               "participant_id, model, turn, rating, value (“NA” = the user marked it not "
               "applicable).",
               CONVERSATIONS, True),
    ExportKind("suggestions", "Suggestions: a model's values, apart from the coders'",
               "One row per model, unit and code: model, run, status (ok or no_answer), "
               "value, rationale and the prompt's hash; never mixed into long or wide.",
               (CODES, *CONVERSATIONS), True),
    ExportKind("cooccurrence", "Co-occurrence: codes present together",
               "A code-by-code matrix: how many turns (or conversations, or overlapping "
               "spans) hold both codes, from the chosen coders' values.",
               (CODES, CODERS, *CONVERSATIONS), True),
    ExportKind("codes-by-attribute", "Codes by attribute: each code across a conversation "
               "attribute",
               "One row per code, one column per value of a conversation attribute (model "
               "by default): how many units hold the code present.",
               (CODES, CODERS, *CONVERSATIONS), True),
)

#: the rows by key
EXPORT_KINDS_BY_KEY: dict[str, ExportKind] = {k.key: k for k in EXPORT_KIND_TABLE}
#: the kinds' keys, in the table's order (``export --kind`` choices)
EXPORT_KINDS: tuple[str, ...] = tuple(EXPORT_KINDS_BY_KEY)
#: the kinds anyone may write: they show nothing blind coding hides
UNBLINDED_KINDS: tuple[str, ...] = tuple(k.key for k in EXPORT_KIND_TABLE
                                         if not k.reveals_blinded)
#: the kinds that can carry how each value was made
PROVENANCE_KINDS: tuple[str, ...] = tuple(k.key for k in EXPORT_KIND_TABLE if k.provenance)


def kinds_help() -> str:
    """Every kind with what it holds, for the command line's help."""
    return " ".join(f"{k.key}: {k.description[:1].lower()}{k.description[1:]}"
                    for k in EXPORT_KIND_TABLE)

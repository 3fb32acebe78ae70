"""The check the import dialog runs before anything is written (no Qt; runs on a worker).

Each file (or SENSE-7 Tasks + Messages pair) is previewed on its own, so that every file's
problem is reported, not only the first; when all of them read cleanly, a dry run of the
import against the project finds what only the project can tell (conversations already
present, clashing ids).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...domain.errors import Cancelled, Hint, InputError, Sense7Error
from ...domain.importers import ImportOptions, PreviewResult, preview
from ...domain.importers.reading import plan
from ...domain.models import ROLES
from ...domain.progress import CancelFn, ProgressFn
from ...project import Project
from ...project.imports import ImportSummary, import_files
from ..wording import error_text

PREVIEW_ROWS = 50


def counted(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


@dataclass(frozen=True)
class Message:
    kind: str  # "error" | "warning" | "info"
    text: str


@dataclass
class GroupCheck:
    """One file, or files read together (the two SENSE-7 CSV tables)."""

    paths: list[Path]
    format: str
    preview: PreviewResult | None = None
    error: str | None = None
    #: the way out of ``error`` (an unknown speaker's name travels in it)
    hint: Hint | None = None

    @property
    def hints(self) -> list[Hint]:
        """The ways out of this group's problems (its own error's, its preview's)."""
        found = [self.hint]
        if self.preview is not None and self.preview.error is not None:
            found.append(self.preview.error.hint)
        return [h for h in found if h is not None]

    @property
    def name(self) -> str:
        return " + ".join(p.name for p in self.paths)

    @property
    def ok(self) -> bool:
        return self.error is None and self.preview is not None and self.preview.ok

    @property
    def error_text(self) -> str | None:
        if self.error is not None:
            return self.error
        if self.preview is not None and self.preview.error is not None:
            return error_text(self.preview.error)
        return None


@dataclass
class ImportCheck:
    groups: list[GroupCheck] = field(default_factory=list)
    summary: ImportSummary | None = None
    error: str | None = None  # from the dry run: across files or against the project
    error_hint: Hint | None = None

    @property
    def ok(self) -> bool:
        return bool(self.groups) and all(g.ok for g in self.groups) and self.error is None \
            and self.summary is not None

    @property
    def new_conversations(self) -> int:
        return self.summary.conversations if self.summary is not None else 0

    @property
    def columns(self) -> list[str]:
        out: list[str] = []
        for g in self.groups:
            if g.preview is not None:
                out.extend(c for c in g.preview.columns if c not in out)
        return out

    def speakers(self) -> dict[str, str | None]:
        """Speaker names seen in the previews with the role they were read as; names an
        error called unknown map to None (the user has to choose)."""
        seen: dict[str, str | None] = {}
        for g in self.groups:
            if g.preview is not None and not g.preview.frame.empty:
                frame = g.preview.frame
                for speaker, role in zip(frame["speaker"], frame["role"], strict=True):
                    if isinstance(speaker, str) and speaker and speaker.casefold() not in ROLES:
                        seen.setdefault(speaker, role)
        hints = [h for g in self.groups for h in g.hints]
        if self.error_hint is not None:
            hints.append(self.error_hint)
        for hint in hints:
            if hint.option == "roles":  # an unknown speaker: NAME=role
                seen.setdefault(hint.value.rpartition("=")[0], None)
        return seen

    def messages(self) -> list[Message]:
        """Every problem found, errors first within each file, then what would be imported."""
        out: list[Message] = []
        for g in self.groups:
            text = g.error_text
            if text:
                out.append(Message("error", text))
            if g.preview is not None:
                out.extend(Message("warning", f"{g.name}: {w}") for w in g.preview.messages
                           if g.preview.error is None or w != str(g.preview.error))
        if self.error:
            out.append(Message("error", self.error))
        if self.summary is not None:
            for f in self.summary.files:
                source = " + ".join(Path(s).name for s in f.source.split(" + "))
                text = (f"{source}: "
                        f"{counted(f.conversations, 'conversation')}, {counted(f.turns, 'turn')}, "
                        f"{counted(f.user_ratings, 'user rating')} to import")
                if f.already_present:
                    text += f"; {f.already_present} already in the project (will be skipped)"
                if f.skipped_rows:
                    text += f"; {counted(f.skipped_rows, 'row')} skipped (e.g. error rows)"
                out.append(Message("info", text))
            if self.ok and self.new_conversations == 0:
                out.append(Message("warning", "nothing new to import: every conversation is "
                                   "already in the project"))
        return out


def plan_groups(paths: Sequence[Path], options: ImportOptions) -> list[GroupCheck]:
    """Group the files as the importer will; a file whose format cannot be told is its own
    group carrying that error."""
    failed: list[GroupCheck] = []
    good: list[Path] = []
    for path in paths:
        try:
            plan([path], options)
        except (InputError, ValueError) as e:
            fmt = options.format if options.format != "auto" else "not recognised"
            failed.append(GroupCheck([path], fmt, error=error_text(e),
                                     hint=getattr(e, "hint", None)))
        else:
            good.append(path)
    groups = [GroupCheck(list(g.paths), g.format) for g in plan(good, options)] if good else []
    order = {p: i for i, p in enumerate(paths)}
    return sorted(groups + failed, key=lambda g: min(order.get(p, 0) for p in g.paths))


def check_import(
    project: Project,
    paths: Sequence[Path],
    options: ImportOptions,
    progress: ProgressFn,
    cancel: CancelFn,
) -> ImportCheck:
    """Preview every file and dry-run the import. Nothing is written to the project."""
    check = ImportCheck(groups=plan_groups([Path(p) for p in paths], options))
    steps = len(check.groups) + 1
    for i, group in enumerate(check.groups):
        if cancel():
            raise Cancelled()
        progress(i, steps)
        if group.error is None:
            group.preview = preview(group.paths, options, n=PREVIEW_ROWS)
            if group.format == "auto" or not group.format:
                group.format = group.preview.format
    if all(g.ok for g in check.groups) and check.groups:
        def sub_progress(done: int, total: int) -> None:
            progress(len(check.groups) * total + done, steps * max(total, 1))

        try:
            check.summary = import_files(project, paths, options, dry_run=True,
                                         progress=sub_progress, cancel=cancel)
        except Cancelled:
            raise
        except Sense7Error as e:
            check.error, check.error_hint = error_text(e), e.hint
    progress(steps, steps)
    return check

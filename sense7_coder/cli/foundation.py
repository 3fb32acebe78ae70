"""Commands that build and fill a project: init, codebook, import, import-codings, info, demo, gui."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..domain.codebook.codes import Code, code_from_dict, default_levels, parse_levels_spec
from ..domain.errors import CodebookError, Sense7Error
from ..domain.file_reading import check_encoding
from ..domain.importers import FORMATS, ImportOptions, parse_mapping, parse_roles
from ..domain.importers.formats import CLAIMED, IMPORT_FORMATS
from ..domain.names import names_text
from ..domain.words import count
from ..resources import resolve_codebook
from .acting import open_as

if TYPE_CHECKING:  # the project layer is imported by the commands that open one, not by --help
    from ..project import Project

# Only light modules at the top: `--help`, `info` and `codebook list` build the whole
# parser. A command that needs pandas, spaCy, Qt... imports it inside its function.
ENCODING_HELP = "text encoding of the files when not UTF-8 (e.g. utf-16, cp1252, latin-1)"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="create a new project file")
    p.add_argument("project", type=Path)
    p.add_argument("--codebook", default="sense7",
                   help="bundled codebook name, or a codebook file: JSON or REFI-QDA "
                   ".qdc/.qdpx (default: sense7)")
    p.add_argument("--from", dest="from_qdpx", type=Path, metavar="FILE.qdpx",
                   help="a REFI-QDA project (QualCoder, ATLAS.ti, MAXQDA, NVivo): its codes, "
                   "texts, coders, codings and memos")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("codebook", help="list or add codes")
    p.add_argument("project", type=Path)
    csub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    c = csub.add_parser("list", help="list the codes")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_codebook_list)
    c = csub.add_parser("add", help="add a code")
    c.add_argument("key")
    c.add_argument("--kind", choices=("ordinal", "nominal", "binary"), required=True)
    c.add_argument("--levels", help="1..5 or a,b,c")
    c.add_argument("--unit", choices=("turn", "sentence", "conversation", "span"), default="turn")
    c.add_argument("--label")
    c.add_argument("--applies-to", choices=("assistant", "user", "any"), default="assistant")
    c.add_argument("--no-na", action="store_true", help="do not allow 'not applicable'")
    c.add_argument("--shortcut", metavar="LETTER",
                   help="the key that focuses the code in the workspace (a span code's marks "
                   "the selected text; a span code gets a free letter when none is given)")
    c.set_defaults(func=cmd_codebook_add)
    c = csub.add_parser("import", help="merge a codebook file (.json, or REFI-QDA .qdc/.qdpx) "
                        "into the project")
    c.add_argument("file", type=Path)
    c.set_defaults(func=cmd_codebook_import)
    c = csub.add_parser("export", help="write the project's codebook as a JSON file (or "
                        "REFI-QDA .qdc by the extension)")
    c.add_argument("file", type=Path)
    c.add_argument("--version", type=int, metavar="N",
                   help="the codebook as version N recorded it (see 'codebook versions')")
    c.set_defaults(func=cmd_codebook_export)
    c = csub.add_parser("versions", help="list the codebook's versions: number, date, by "
                        "whom, what changed, codings set under each")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_codebook_versions)
    c = csub.add_parser("diff", help="what changed in what the codes mean between two "
                        "versions (+ added, - removed, ~ changed: old -> new)")
    c.add_argument("old", type=int, metavar="A")
    c.add_argument("new", type=int, metavar="B")
    c.set_defaults(func=cmd_codebook_diff)

    p = sub.add_parser("import", help="import conversation files (or REFI-QDA .qdpx "
                       "projects with their codings)")
    p.add_argument("project", type=Path)
    p.add_argument("files", type=Path, nargs="+", metavar="FILE")
    p.add_argument("--format", choices=FORMATS, default="auto", type=str.lower,
                   help="auto (default): from each file's name and content ("
                   + ", ".join(sorted(CLAIMED)) + " by the ending alone); "
                   + "; ".join(f"{f.key}: {f.name} ({', '.join(f.endings)})"
                               for f in IMPORT_FORMATS))
    p.add_argument("--roles", default="", help="map speaker names to roles: NAME=ROLE,...")
    p.add_argument("--map", default="", dest="mapping", help="map fields to columns: FIELD=COLUMN,...")
    p.add_argument("--dry-run", action="store_true", help="check and report; write nothing")
    p.add_argument("--encoding", default=None, help=ENCODING_HELP)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("import-codings", help="import coders' codings from CSV")
    p.add_argument("project", type=Path)
    p.add_argument("file", type=Path)
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--encoding", default=None, help=ENCODING_HELP)
    p.set_defaults(func=cmd_import_codings)

    p = sub.add_parser(
        "import-ratings", help="import rater files: one per rater, one column per code",
        description="Each file holds one rater's ratings (as published rating sets come): a "
        "conversation_id column, a turn column for turn-level codes, and one column per code. "
        "A column named like a code key maps to it; --map maps others (COLUMN=conversation_id "
        "names the id column, as in --map conv_id=conversation_id). The rater is named "
        "after the file (expert1_ratings.csv -> expert1) unless --coder is given. All files "
        "land in one transaction, or none.")
    p.add_argument("project", type=Path)
    p.add_argument("files", type=Path, nargs="+", metavar="FILE")
    p.add_argument("--map", default="", dest="mapping", metavar="COLUMN=CODE,...")
    p.add_argument("--coder", help="the rater's name (one file only)")
    p.add_argument("--turn-column", default="turn")
    p.add_argument("--dry-run", action="store_true")
    p.set_defaults(func=cmd_import_ratings)

    p = sub.add_parser("info", help="what a project holds")
    p.add_argument("project", type=Path)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser(
        "restore", help="list a project's backups, or bring one back",
        description="Without BACKUP: list the backups kept beside PROJECT (newest first). "
        "With BACKUP (a number from that list, a backup's name or a path): check it is a "
        "healthy project, keep the current file (with its -wal and -shm) in the backups "
        "folder, and put a copy of the backup in its place. Refused while another window "
        "or program has the project open.")
    p.add_argument("project", type=Path)
    p.add_argument("backup", nargs="?")
    p.set_defaults(func=cmd_restore)

    p = sub.add_parser("demo", help="build the demo project (and open it where a display exists)")
    p.add_argument("dir", type=Path, nargs="?", default=None)
    p.add_argument("--no-gui", action="store_true", help="only build it")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("gui", help="open a project in the coding workspace")
    p.add_argument("project", type=Path, nargs="?")
    p.set_defaults(func=lambda a: launch_gui(a.project))


def _open(args: argparse.Namespace) -> Project:
    return open_as(args)


def cmd_init(args: argparse.Namespace) -> int:
    if args.from_qdpx is not None:
        from .qdpx import init_from_qdpx

        return init_from_qdpx(args)
    from ..project import Project

    codebook = resolve_codebook(args.codebook)
    with Project.create(args.project, codebook) as project:
        n = len(project.codebook.codes)
    print(f"created {args.project} with the '{codebook.name}' codebook ({count(n, 'code')})")
    return 0


def cmd_codebook_list(args: argparse.Namespace) -> int:
    with _open(args) as project:
        codes = project.codebook.codes
        if args.json:
            print(json.dumps([c.to_dict() for c in codes], indent=2, ensure_ascii=False))
            return 0
        # columns as wide as their longest entry, so a long key never pushes a row out of line
        width = max([len(c.key) for c in codes] + [3])
        kind = max([len(c.kind) for c in codes] + [4])
        unit = max([len(c.unit) for c in codes] + [4])
        for c in codes:
            scale = ", ".join(f"{lv.value}={lv.label}" if str(lv.value) != lv.label else str(lv.value) for lv in c.levels)
            flags = (" [retired]" if c.retired else "") + (" +NA" if c.allow_na else "")
            key = f"[{c.shortcut}]" if c.shortcut else "   "
            print(f"{c.key:<{width}}  {key} {c.kind:<{kind}}  {c.unit:<{unit}}  {c.label}: "
                  f"{scale}{flags}")
    return 0


def cmd_codebook_add(args: argparse.Namespace) -> int:
    from ..project.codebook import editing as codebook_ops

    levels = parse_levels_spec(args.levels, args.kind) if args.levels else default_levels(args.kind)
    if not levels:
        raise CodebookError("nominal codes need --levels a,b,c")
    data = {
        "key": args.key, "label": args.label or args.key, "kind": args.kind, "unit": args.unit,
        "applies_to": args.applies_to,
        "levels": [{"value": lv.value, "label": lv.label} for lv in levels],
        "allow_na": not args.no_na if args.kind != "binary" else False,
        "shortcut": args.shortcut or "",
    }
    code: Code = code_from_dict(data, "--levels/--kind/--shortcut")
    with _open(args) as project:
        codebook_ops.add_code(project, code)
        code = project.code(code.key)
    key = f", key {code.shortcut}" if code.shortcut else ""
    print(f"added code '{code.key}' ({code.kind}, {code.unit}, levels "
          f"{', '.join(map(str, code.values))}{key})")
    return 0


def cmd_codebook_import(args: argparse.Namespace) -> int:
    from ..project.codebook import editing as codebook_ops

    book = codebook_ops.read_codebook_file(args.file)
    notes: list[str] = []
    with _open(args) as project:
        result = codebook_ops.apply_codebook(project, book, notes)
    print(f"{args.file}: {count(result.added, 'code')} added, {result.updated} updated")
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


def cmd_codebook_versions(args: argparse.Namespace) -> int:
    from ..project.codebook import versions as cv

    with _open(args) as project:
        found = cv.versions(project)
        before = cv.unversioned_codings(project)
    if args.json:
        print(json.dumps({"versions": [v.to_dict() for v in found],
                          "codings_before_versions": before}, indent=2, ensure_ascii=False))
        return 0
    if not found:
        print("no codebook version yet: the first is recorded at the first codebook change "
              "or coding")
    for v in found:
        print(f"{v.number:>3}  {v.at[:16].replace('T', ' ')}  {v.by or '-':<12} "
              f"{count(v.codings, 'coding'):>12}  {v.changed}")
    if before:
        print(f"{count(before, 'coding')} set before versions were recorded")
    return 0


def cmd_codebook_diff(args: argparse.Namespace) -> int:
    from ..project.codebook import versions as cv

    with _open(args) as project:
        lines = cv.diff(project, args.old, args.new)
    print(f"codebook version {args.old} -> {args.new}: "
          f"{count(len(lines), 'difference') if lines else 'no difference in meaning'}")
    for line in lines:
        print(f"  {line}")
    return 0


def cmd_codebook_export(args: argparse.Namespace) -> int:
    if args.version is not None:
        from ..project.codebook.versions import export_at

        with _open(args) as project:
            export_at(project, args.version, args.file)
        print(f"wrote {args.file} (codebook version {args.version})")
        return 0
    from ..project.codebook import editing as codebook_ops

    with _open(args) as project:
        if args.file.suffix.lower() == ".qdc":
            from ..project.exchange import export_qdc

            export_qdc(project, args.file)
        else:
            codebook_ops.export_codebook(project, args.file)
    print(f"wrote {args.file}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    if any(f.suffix.lower() == ".qdpx" for f in args.files):
        from .qdpx import import_qdpx_files

        return import_qdpx_files(args)
    from ..project.imports import import_files

    try:
        options = ImportOptions(
            format=args.format, roles=parse_roles(args.roles), mapping=parse_mapping(args.mapping),
            encoding=check_encoding(args.encoding) if args.encoding else None,
        )
    except ValueError as e:
        raise CodebookError(str(e)) from None  # reported as a plain error line
    with _open(args) as project:
        summary = import_files(project, args.files, options, dry_run=args.dry_run)
    for line in summary.lines():
        print(line)
    if args.dry_run:
        print("dry run: nothing was written")
    return 0


def cmd_import_codings(args: argparse.Namespace) -> int:
    try:
        encoding = check_encoding(args.encoding) if args.encoding else None
    except ValueError as e:
        raise CodebookError(str(e)) from None  # reported as a plain error line

    from ..project.imports import import_codings

    with _open(args) as project:
        s = import_codings(project, args.file, dry_run=args.dry_run, encoding=encoding)
    verb = "would import" if args.dry_run else "imported"
    extra = f" ({s.unchanged} already present)" if s.unchanged else ""
    coders = f"; new coders: {names_text(s.new_coders, 'coders')}" if s.new_coders else ""
    done = f"; {s.done} turn{'s' if s.done != 1 else ''} marked done" if s.done else ""
    noun = "coding" if s.codings == 1 else "codings"
    spans = f" and {s.spans} span{'s' if s.spans != 1 else ''}" if s.spans else ""
    print(f"{s.source}: {verb} {s.codings} {noun}{spans}{extra}{coders}{done}")
    return 0


def cmd_import_ratings(args: argparse.Namespace) -> int:
    from ..project.imports import import_rater_files

    mapping = {}
    for item in (x.strip() for x in args.mapping.split(",") if x.strip()):
        column, sep, key = item.partition("=")
        if not sep or not column.strip() or not key.strip():
            raise Sense7Error(f"--map {item!r}: write COLUMN=CODE")
        mapping[column.strip()] = key.strip()
    with _open(args) as project:
        summary = import_rater_files(project, args.files, mapping=mapping, rater=args.coder,
                                     turn_column=args.turn_column, dry_run=args.dry_run)
    print("\n".join(summary.lines(args.dry_run)))
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    from ..project.prediction.predictors import predictor_counts

    with _open(args) as project:
        info = project.info()
        info["coder_names"] = [c["name"] for c in project.coders()]
        info["predictors"] = predictor_counts(project)
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    info["predictors"] = [f"{name} ({c['conversation']} conversation, {c['turn']} turn scores)"
                          for name, c in info["predictors"].items()]
    width = max(len(k) for k in info)
    for k, v in info.items():
        if isinstance(v, list):
            v = ", ".join(v) or "-"
        print(f"{k:<{width}}  {v}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from ..project.demo import build_demo

    target = build_demo(args.dir)
    print(f"demo project: {target}")
    if args.no_gui or not _display_available():
        if not args.no_gui:
            print("no display found; open it later with: sense7-coder gui " + str(target))
        return 0
    return launch_gui(target)


def _display_available() -> bool:
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        or os.environ.get("QT_QPA_PLATFORM")
    )


def launch_gui(project: Path | None) -> int:
    if not _display_available():
        raise Sense7Error(
            "no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the window cannot "
            "open; the command line works without one (sense7-coder --help)"
        )
    from ..ui.launch import launch  # imports Qt only after checking what it needs

    return launch(project)


def _size(n: int) -> str:
    size = float(n)
    for unit in ("bytes", "KB", "MB"):
        if size < 1024:
            return f"{n} bytes" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def cmd_restore(args: argparse.Namespace) -> int:
    from ..project.restore import list_backups, pick_backup, restore_backup

    project: Path = args.project
    if args.backup is None:
        backups = list_backups(project)
        if not backups:
            print(f"{project}: no backups (they are made in {project.name}.backups beside it "
                  "each time the window opens the project)")
            return 1
        print(f"{len(backups)} backups of {project}, newest first:")
        for i, b in enumerate(backups, 1):
            print(f"  {i:>2}  {b.modified:%Y-%m-%d %H:%M:%S}  {_size(b.size):>9}  {b.path.name}")
        print(f"restore one with: sense7-coder restore {project} NUMBER")
        return 0
    backup = pick_backup(project, args.backup)
    kept = restore_backup(project, backup)
    print(f"restored {project} from {backup.name}")
    if kept is not None:
        print(f"the file it replaced is kept as {kept}")
    return 0

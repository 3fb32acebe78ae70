"""Migrations m010 onwards (models' suggestions, spans, attribute history, the coders'
open windows, the append-only history), appended to the list :mod:`.schema` holds;
released ones are frozen like the first nine (a change is a new migration at the end of
this file, pinned in ``tests/test_migrations_pinned.py``)."""

from __future__ import annotations

from sqlite_utils import Database

from .migrating import _script, migrations


@migrations()
def m010_suggestions(db: Database) -> None:
    """A model's suggested values, kept apart from every coder's codings.

    ``suggestion_runs`` holds one row per run of a model (the LLM judge or the baseline):
    its rater name (shown as ``model:NAME``), the method, the endpoint's host only (never a
    key or a path), the hash of the prompts it was sent, its settings as JSON, when it
    started and finished, and its counts. ``suggestions`` holds each run's value of a code
    on a unit (``status`` ok or no_answer; the reply of a unit that stayed unreadable is
    kept in ``reply`` for inspection; ``spread`` is the model's own uncertainty where it
    has one). ``code_prompts`` holds a code's prompt where the lead edited it."""
    _script(db,
        """
        CREATE TABLE suggestion_runs (
            run INTEGER PRIMARY KEY,
            model TEXT NOT NULL,
            method TEXT NOT NULL,
            api_model TEXT,
            endpoint_host TEXT,
            prompt_hash TEXT NOT NULL DEFAULT '',
            unit TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}',
            started_at TEXT,
            finished_at TEXT,
            requests INTEGER NOT NULL DEFAULT 0,
            answered INTEGER NOT NULL DEFAULT 0,
            no_answer INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX suggestion_runs_model ON suggestion_runs(model);
        CREATE TABLE suggestions (
            run INTEGER NOT NULL REFERENCES suggestion_runs(run) ON DELETE CASCADE,
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            sentence INTEGER NOT NULL DEFAULT 0,
            code TEXT NOT NULL REFERENCES codes(key) ON DELETE CASCADE,
            status TEXT NOT NULL DEFAULT 'ok',
            value,
            rationale TEXT NOT NULL DEFAULT '',
            reply TEXT,
            spread REAL,
            PRIMARY KEY (run, conversation_id, position, sentence, code)
        );
        CREATE INDEX suggestions_unit ON suggestions(conversation_id, position, sentence,
                                                     code, run);
        CREATE INDEX suggestions_code ON suggestions(code);
        CREATE TABLE code_prompts (
            code TEXT PRIMARY KEY REFERENCES codes(key) ON DELETE CASCADE,
            prompt TEXT NOT NULL,
            updated_at TEXT
        );
        """
    )
@migrations()
def m011_spans(db: Database) -> None:
    """Coded spans: a stretch of a turn's text given a code.

    ``start`` and ``end`` are code-point offsets into the turn's text (as REFI-QDA counts
    them), end exclusive. A span is keyed by its coder, conversation, turn, offsets and
    code, so it outlives anything but its conversation: a conversation imported again with
    the same messages is skipped and keeps its spans, one with other messages is refused.
    ``value`` is the level the span shows (1 for a binary code), ``memo`` a note on it;
    ``source``, ``blind`` and ``origin`` say how it was made, as for ``codings``. The
    history follows spans (kind ``span``: before/after read ``start-end: value``) and
    their memos (kind ``span memo``)."""
    _script(db,
        """
        CREATE TABLE spans (
            coder TEXT NOT NULL REFERENCES coders(name),
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            code TEXT NOT NULL REFERENCES codes(key),
            value,
            memo TEXT NOT NULL DEFAULT '',
            updated_at TEXT,
            source TEXT NOT NULL DEFAULT 'coded',
            blind INTEGER NOT NULL DEFAULT 0,
            origin TEXT,
            PRIMARY KEY (coder, conversation_id, position, start, end, code)
        );
        CREATE INDEX spans_unit ON spans(conversation_id, position, start);
        CREATE INDEX spans_code ON spans(code);
        """
    )
    now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    ctx = "(SELECT source FROM history_context WHERE id = 1), " \
          "(SELECT actor FROM history_context WHERE id = 1)"
    cols = ("at, coder, action, kind, conversation_id, position, sentence, code, before, "
            "after, source, actor")

    def shown(r: str) -> str:  # a span as the history holds it
        return f"({r}.start || '-' || {r}.end || ': ' || COALESCE({r}.value, 'NA'))"

    def row(r: str, action: str, kind: str, before: str, after: str) -> str:
        return (f"INSERT INTO history({cols}) VALUES ({now}, {r}.coder, '{action}', '{kind}', "
                f"{r}.conversation_id, {r}.position, NULL, {r}.code, {before}, {after}, "
                f"{ctx});")

    _script(db, "\n".join([
        "CREATE TRIGGER history_spans_insert AFTER INSERT ON spans BEGIN "
        + row("new", "set", "span", "NULL", shown("new")) + " END;",
        "CREATE TRIGGER history_spans_memo_insert AFTER INSERT ON spans "
        "WHEN new.memo <> '' BEGIN "
        + row("new", "set", "span memo", "NULL", "new.memo") + " END;",
        "CREATE TRIGGER history_spans_update AFTER UPDATE ON spans "
        "WHEN old.value IS NOT new.value BEGIN "
        + row("new", "change", "span", shown("old"), shown("new")) + " END;",
        "CREATE TRIGGER history_spans_memo_update AFTER UPDATE ON spans "
        "WHEN old.memo IS NOT new.memo BEGIN "
        + row("new", "change", "span memo", "NULLIF(old.memo, '')", "NULLIF(new.memo, '')")
        + " END;",
        "CREATE TRIGGER history_spans_delete AFTER DELETE ON spans BEGIN "
        + row("old", "clear", "span", shown("old"), "NULL") + " END;",
    ]))


@migrations()
def m012_attributes(db: Database) -> None:
    """The history follows a lead's edits of conversation attributes: the model, the
    participant and the topic (``code`` names the column) and the
    ``attributes`` object (``code`` empty, ``before``/``after`` the object's JSON text: the
    project shows which entries changed). Imports insert conversations and
    are not followed (the import itself is the record)."""
    now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    ctx = "(SELECT source FROM history_context WHERE id = 1), " \
          "(SELECT actor FROM history_context WHERE id = 1)"
    cols = ("at, coder, action, kind, conversation_id, position, sentence, code, before, "
            "after, source, actor")
    script = []
    for column in ("model", "participant_id", "topic"):
        script.append(
            f"CREATE TRIGGER history_conversations_{column} AFTER UPDATE OF {column} "
            f"ON conversations WHEN old.{column} IS NOT new.{column} BEGIN "
            f"INSERT INTO history({cols}) VALUES ({now}, NULL, CASE WHEN old.{column} IS NULL "
            f"THEN 'set' WHEN new.{column} IS NULL THEN 'clear' ELSE 'change' END, "
            f"'attribute', new.conversation_id, NULL, NULL, '{column}', old.{column}, "
            f"new.{column}, {ctx}); END;")
    # the attributes object as a whole (SQLite refuses JSON functions in triggers of a
    # file it does not trust; the project reads which entries changed from the two texts)
    script.append(
        "CREATE TRIGGER history_conversations_attributes AFTER UPDATE OF attributes "
        "ON conversations WHEN old.attributes IS NOT new.attributes BEGIN "
        f"INSERT INTO history({cols}) VALUES ({now}, NULL, 'change', 'attribute', "
        f"new.conversation_id, NULL, NULL, NULL, old.attributes, new.attributes, {ctx}); END;")
    _script(db, "\n".join(script))


@migrations()
def m013_coder_windows(db: Database) -> None:
    """Who codes in a window on this file now: one row per open window (``coder``, the
    ``host`` and ``pid`` of its program, when it started), written when the window takes
    a coder and deleted when it closes. A second window -- in this program or another --
    asks who is coding when another window is open, and says so before two windows write
    as the same coder. A row whose program has ended on this host (killed) is stale and
    not counted. Nothing here is merged, packaged or followed by the history."""
    _script(db,
        """
        CREATE TABLE coder_windows (
            id INTEGER PRIMARY KEY,
            coder TEXT NOT NULL,
            host TEXT NOT NULL,
            pid INTEGER NOT NULL,
            started_at TEXT NOT NULL
        );
        """
    )


@migrations()
def m014_history_append_only(db: Database) -> None:
    """The history is append-only, whoever writes: a row once written is never changed,
    deleted or replaced (an ``INSERT OR REPLACE`` of its id) -- by this program, another
    window or another tool going through SQLite; the statement is refused instead."""
    refuse = "SELECT RAISE(ABORT, 'the history is append-only: its rows are never changed')"
    _script(db, "\n".join([
        f"CREATE TRIGGER history_no_update BEFORE UPDATE ON history BEGIN {refuse}; END;",
        f"CREATE TRIGGER history_no_delete BEFORE DELETE ON history BEGIN {refuse}; END;",
        "CREATE TRIGGER history_no_replace BEFORE INSERT ON history WHEN EXISTS (SELECT 1 "
        f"FROM history WHERE id = new.id) BEGIN {refuse}; END;",
    ]))


@migrations()
def m015_study_settings(db: Database) -> None:
    """The history also follows the reveal lock and the attributes the lead chose to show
    coders although an importer marked them as the users' own judgments
    (``shown_attributes``): every setting of a study's set-up is a history row."""
    now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    ctx = "(SELECT source FROM history_context WHERE id = 1), " \
          "(SELECT actor FROM history_context WHERE id = 1)"
    cols = ("at, coder, action, kind, conversation_id, position, sentence, code, before, "
            "after, source, actor")
    keys = ("('blind_coding', 'hidden_attributes', 'require_all_codes', 'lead_passphrase', "
            "'lock_after_reveal', 'shown_attributes')")

    def shown(r: str) -> str:  # a setting's value as the history holds it
        return (f"CASE WHEN {r}.key = 'lead_passphrase' THEN CASE WHEN {r}.value IS NULL "
                f"OR {r}.value = '' THEN NULL ELSE 'set' END ELSE {r}.value END")

    _script(db, f"""
        DROP TRIGGER history_meta_insert;
        DROP TRIGGER history_meta_update;
        DROP TRIGGER history_meta_delete;
        CREATE TRIGGER history_meta_insert AFTER INSERT ON meta WHEN new.key IN {keys} BEGIN
        INSERT INTO history({cols}) VALUES ({now}, NULL, 'set', 'setting', NULL, NULL, NULL,
            new.key, NULL, {shown('new')}, {ctx}); END;
        CREATE TRIGGER history_meta_update AFTER UPDATE ON meta
        WHEN new.key IN {keys} AND old.value IS NOT new.value BEGIN
        INSERT INTO history({cols}) VALUES ({now}, NULL, 'change', 'setting', NULL, NULL,
            NULL, new.key, {shown('old')}, {shown('new')}, {ctx}); END;
        CREATE TRIGGER history_meta_delete AFTER DELETE ON meta WHEN old.key IN {keys} BEGIN
        INSERT INTO history({cols}) VALUES ({now}, NULL, 'clear', 'setting', NULL, NULL,
            NULL, old.key, {shown('old')}, NULL, {ctx}); END;
        """)
    # a project imported before imports marked the users' judgments learns them by name
    mark_judgments_by_name(db)


def mark_judgments_by_name(db: Database) -> None:
    """Add the attributes of conversations and turns named as the users' own judgments
    (:func:`..domain.attributes.looks_like_judgment`) to ``judgment_attributes``."""
    from ..domain.attributes import looks_like_judgment

    names = {r[0] for r in db.execute(
        "SELECT DISTINCT j.key FROM conversations x, json_each(x.attributes) j "
        "WHERE json_valid(x.attributes) AND json_type(x.attributes) = 'object' "
        "UNION SELECT DISTINCT j.key FROM turns x, json_each(x.attributes) j "
        "WHERE x.attributes NOT IN ('', '{}') AND json_valid(x.attributes) "
        "AND json_type(x.attributes) = 'object'")
        if isinstance(r[0], str) and looks_like_judgment(r[0])}
    row = db.execute("SELECT value FROM meta WHERE key = 'judgment_attributes'").fetchone()
    known = {n for n in (row[0] if row and row[0] else "").split("\n") if n}
    if names - known:
        db.execute("INSERT INTO meta(key, value) VALUES ('judgment_attributes', ?) "
                   "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                   ["\n".join(sorted(names | known))])


@migrations()
def m016_codebook_versions(db: Database) -> None:
    """Codebook versions: every change to what a code means (its label, description,
    levels and their anchors, include/exclude notes, examples) is a new numbered version,
    with when and by whom, holding the whole codebook as JSON and a line on what changed
    (``store/codebook_versions.py``); each coding records the version it was set under
    (NULL: set before versions were recorded)."""
    _script(db,
        """
        CREATE TABLE codebook_versions (
            number INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            by TEXT,
            codebook TEXT NOT NULL,
            changed TEXT NOT NULL DEFAULT ''
        );
        ALTER TABLE codings ADD COLUMN codebook_version INTEGER;
        """)


@migrations()
def m017_rounds(db: Database) -> None:
    """Calibration rounds (``store/rounds.py``): each a seeded sample of conversations
    assigned to every listed coder, under the codebook version it records, with the
    threshold set before it (alpha's interval's lower end must reach it); ``round_results``
    keeps each code's alpha with its interval as the round was closed."""
    _script(db,
        """
        CREATE TABLE rounds (
            number INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL,
            started_by TEXT,
            closed_at TEXT,
            codebook_version INTEGER,
            threshold REAL NOT NULL,
            seed INTEGER NOT NULL,
            sample INTEGER NOT NULL,
            stratify TEXT,
            coders TEXT NOT NULL
        );
        CREATE TABLE round_conversations (
            round INTEGER NOT NULL REFERENCES rounds(number),
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            PRIMARY KEY (round, conversation_id)
        );
        CREATE TABLE round_results (
            round INTEGER NOT NULL REFERENCES rounds(number),
            code TEXT NOT NULL,
            alpha REAL,
            ci_low REAL,
            ci_high REAL,
            ci_method TEXT NOT NULL DEFAULT '',
            units INTEGER NOT NULL DEFAULT 0,
            met INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (round, code)
        );
        """)


@migrations()
def m018_value_rationales(db: Database) -> None:
    """A coder's short rationale for one of their values (``store/rationales.py``): why
    this level, shown beside the disagreeing values where they are discussed."""
    _script(db,
        """
        CREATE TABLE value_rationales (
            coder TEXT NOT NULL REFERENCES coders(name),
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            sentence INTEGER NOT NULL DEFAULT 0,
            code TEXT NOT NULL REFERENCES codes(key),
            text TEXT NOT NULL,
            updated_at TEXT,
            PRIMARY KEY (coder, conversation_id, position, sentence, code)
        );
        """)


@migrations()
def m019_team_sync(db: Database) -> None:
    """The team folder (project/team.py): which change files this file has read and what
    became of each (``team_files``, by the hash in the file's name), which change of a
    coder's row is the newest it holds (``team_stamps``: the writer's install and counter,
    so that files arriving in any order leave the same rows), and on a coder's side what
    was last sent of each of her rows (``team_sent``: a digest per row)."""
    _script(db, """
        CREATE TABLE team_files (
            hash TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            coder TEXT NOT NULL,
            install TEXT NOT NULL,
            counter INTEGER NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('applied', 'refused', 'sent')),
            reason TEXT,
            seen_at TEXT NOT NULL
        );
        CREATE TABLE team_stamps (
            coder TEXT NOT NULL,
            tbl TEXT NOT NULL,
            key TEXT NOT NULL,
            install TEXT NOT NULL,
            counter INTEGER NOT NULL,
            PRIMARY KEY (coder, tbl, key)
        );
        CREATE TABLE team_sent (
            tbl TEXT NOT NULL,
            key TEXT NOT NULL,
            digest TEXT NOT NULL,
            PRIMARY KEY (tbl, key)
        );
        """)

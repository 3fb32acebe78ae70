"""The project file's schema as numbered sqlite-utils migrations.

Every migration runs in its own transaction together with the record of it being applied.
``PRAGMA user_version`` mirrors the number of applied migrations so that a file made by a
newer version of sense7-coder can be recognised and refused before anything is written.
"""

from __future__ import annotations

from sqlite_utils import Database

from .migrating import _script, migrations
from .values import restore_nominal_values

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "migrations"]

#: PRAGMA application_id of every sense7-coder project file ("S7CP").
APPLICATION_ID = 0x53374350

#: RELEASED MIGRATIONS ARE FROZEN. Every project file is trusted by comparing its schema
#: with the one these migrations build (:mod:`.trust`): editing one that was released would
#: make every existing project be refused as changed by another program. A change is a new
#: migration appended at the end of :mod:`.later_migrations`;
#: ``tests/test_migrations_pinned.py`` pins each one's schema.


@migrations()
def m001_initial(db: Database) -> None:
    _script(db,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE participants (
            participant_id TEXT PRIMARY KEY,
            attributes TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE conversations (
            conversation_id TEXT NOT NULL UNIQUE,
            participant_id TEXT REFERENCES participants(participant_id),
            model TEXT,
            topic TEXT,
            source TEXT,
            attributes TEXT NOT NULL DEFAULT '{}',
            n_turns INTEGER NOT NULL DEFAULT 0,
            imported_at TEXT
        );
        CREATE INDEX conversations_model ON conversations(model);
        CREATE INDEX conversations_participant ON conversations(participant_id);
        CREATE TABLE turns (
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            role TEXT NOT NULL,
            speaker TEXT,
            text TEXT NOT NULL,
            time_offset REAL,
            comment TEXT,
            attributes TEXT NOT NULL DEFAULT '{}',
            PRIMARY KEY (conversation_id, position)
        );
        CREATE TABLE user_ratings (
            conversation_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            rating TEXT NOT NULL,
            value INTEGER,
            PRIMARY KEY (conversation_id, position, rating),
            FOREIGN KEY (conversation_id, position)
                REFERENCES turns(conversation_id, position) ON DELETE CASCADE
        );
        CREATE TABLE codes (
            key TEXT PRIMARY KEY,
            ord INTEGER NOT NULL,
            label TEXT NOT NULL,
            kind TEXT NOT NULL,
            unit TEXT NOT NULL,
            applies_to TEXT NOT NULL DEFAULT 'assistant',
            levels TEXT NOT NULL,
            allow_na INTEGER NOT NULL DEFAULT 1,
            description TEXT NOT NULL DEFAULT '',
            include TEXT NOT NULL DEFAULT '',
            exclude TEXT NOT NULL DEFAULT '',
            examples TEXT NOT NULL DEFAULT '[]',
            shortcut TEXT NOT NULL DEFAULT '',
            color TEXT NOT NULL DEFAULT '',
            grp TEXT NOT NULL DEFAULT '',
            user_rating TEXT,
            retired INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE coders (
            name TEXT PRIMARY KEY,
            role TEXT NOT NULL DEFAULT 'coder',
            created_at TEXT
        );
        CREATE TABLE codings (
            coder TEXT NOT NULL REFERENCES coders(name),
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            sentence INTEGER NOT NULL DEFAULT 0,
            code TEXT NOT NULL REFERENCES codes(key),
            value ANY,
            updated_at TEXT,
            PRIMARY KEY (coder, conversation_id, position, sentence, code)
        );
        CREATE INDEX codings_unit ON codings(conversation_id, position);
        CREATE INDEX codings_code ON codings(code);
        CREATE TABLE turn_status (
            coder TEXT NOT NULL REFERENCES coders(name),
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            done INTEGER NOT NULL DEFAULT 0,
            updated_at TEXT,
            PRIMARY KEY (coder, conversation_id, position)
        );
        CREATE TABLE memos (
            coder TEXT NOT NULL REFERENCES coders(name),
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            sentence INTEGER NOT NULL DEFAULT 0,
            text TEXT NOT NULL,
            updated_at TEXT,
            PRIMARY KEY (coder, conversation_id, position, sentence)
        );
        CREATE TABLE consensus (
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            sentence INTEGER NOT NULL DEFAULT 0,
            code TEXT NOT NULL REFERENCES codes(key),
            value ANY,
            adjudicator TEXT REFERENCES coders(name),
            rationale TEXT NOT NULL DEFAULT '',
            decided_at TEXT,
            PRIMARY KEY (conversation_id, position, sentence, code)
        );
        """
    )


@migrations()
def m002_sentences(db: Database) -> None:
    """Sentence offsets, stored once so views never re-segment."""
    _script(db,
        """
        CREATE TABLE sentences (
            conversation_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            sentence INTEGER NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            PRIMARY KEY (conversation_id, position, sentence),
            FOREIGN KEY (conversation_id, position)
                REFERENCES turns(conversation_id, position) ON DELETE CASCADE
        );
        """
    )


@migrations()
def m003_predictions(db: Database) -> None:
    """Model predictions (the paper's classifier evaluation): one score per conversation/run."""
    _script(db,
        """
        CREATE TABLE predictions (
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            predictor TEXT NOT NULL,
            run INTEGER NOT NULL DEFAULT 1,
            score REAL,
            reasoning TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (conversation_id, predictor, run)
        );
        """
    )


@migrations()
def m004_untyped_values(db: Database) -> None:
    """Coded values keep the type they were written with.

    ``value ANY`` had NUMERIC affinity, which turned nominal levels such as "1" or "007"
    into numbers; the columns are now declared without a type (rebuilt, as SQLite cannot
    change a column's type) and the numbers that stood for nominal levels become text
    again (see :mod:`.values`).
    """
    _script(db,
        """
        CREATE TABLE codings_v4 (
            coder TEXT NOT NULL REFERENCES coders(name),
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            sentence INTEGER NOT NULL DEFAULT 0,
            code TEXT NOT NULL REFERENCES codes(key),
            value,
            updated_at TEXT,
            PRIMARY KEY (coder, conversation_id, position, sentence, code)
        );
        INSERT INTO codings_v4 (coder, conversation_id, position, sentence, code, value,
                                updated_at)
            SELECT coder, conversation_id, position, sentence, code, value, updated_at
            FROM codings;
        DROP TABLE codings;
        ALTER TABLE codings_v4 RENAME TO codings;
        CREATE INDEX codings_unit ON codings(conversation_id, position);
        CREATE INDEX codings_code ON codings(code);
        CREATE TABLE consensus_v4 (
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            sentence INTEGER NOT NULL DEFAULT 0,
            code TEXT NOT NULL REFERENCES codes(key),
            value,
            adjudicator TEXT REFERENCES coders(name),
            rationale TEXT NOT NULL DEFAULT '',
            decided_at TEXT,
            PRIMARY KEY (conversation_id, position, sentence, code)
        );
        INSERT INTO consensus_v4 (conversation_id, position, sentence, code, value,
                                  adjudicator, rationale, decided_at)
            SELECT conversation_id, position, sentence, code, value, adjudicator, rationale,
                   decided_at
            FROM consensus;
        DROP TABLE consensus;
        ALTER TABLE consensus_v4 RENAME TO consensus;
        """
    )
    restore_nominal_values(db, ["codings", "consensus"])


@migrations()
def m005_team_workflow(db: Database) -> None:
    """Assignments of conversations to coders, and an append-only history of every change.

    ``history`` is written by triggers on the tables it follows, so that every way a row
    changes (a keystroke, an import, a set-based merge, undo) is recorded the same way.
    Who acts and why is read from the one row of ``history_context``, which the store sets
    at the start of each write transaction. Trigger bodies use only built-in functions
    SQLite calls innocuous (``trusted_schema`` is off on every connection). Values already
    in the file are recorded once, as found by this upgrade.
    """
    _script(db,
        """
        CREATE TABLE assignments (
            coder TEXT NOT NULL REFERENCES coders(name),
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            overlap INTEGER NOT NULL DEFAULT 0,
            ord INTEGER NOT NULL DEFAULT 0,
            assigned_at TEXT,
            PRIMARY KEY (coder, conversation_id)
        );
        CREATE INDEX assignments_conversation ON assignments(conversation_id);
        CREATE TABLE history (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            coder TEXT,
            action TEXT NOT NULL,
            kind TEXT NOT NULL,
            conversation_id TEXT,
            position INTEGER,
            sentence INTEGER,
            code TEXT,
            before,
            after,
            source TEXT NOT NULL DEFAULT '',
            actor TEXT,
            origin TEXT
        );
        CREATE INDEX history_unit ON history(conversation_id, position);
        CREATE TABLE history_context (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            actor TEXT,
            source TEXT NOT NULL DEFAULT 'edit'
        );
        INSERT INTO history_context(id, actor, source) VALUES (1, NULL, 'edit');
        """
    )
    now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    ctx = "(SELECT source FROM history_context WHERE id = 1), " \
          "(SELECT actor FROM history_context WHERE id = 1)"
    cols = ("at, coder, action, kind, conversation_id, position, sentence, code, before, "
            "after, source, actor")
    # table -> (kind, coder column, sentence, code, followed value)
    followed = {
        "codings": ("coding", "coder", "sentence", "code", "value"),
        "turn_status": ("done", "coder", "NULL", "NULL", "done"),
        "memos": ("memo", "coder", "sentence", "NULL", "text"),
        "consensus": ("consensus", "adjudicator", "sentence", "code", "value"),
        "assignments": ("assignment", "coder", "NULL", "NULL", "overlap"),
    }
    position = {"assignments": "NULL"}
    script = []
    for table, (kind, coder, sentence, code, value) in followed.items():
        pos = position.get(table, "position")

        def row(r: str, action: str, before: str, after: str, table: str = table,
                kind: str = kind, coder: str = coder, sentence: str = sentence,
                code: str = code, pos: str = pos) -> str:
            def col(c: str) -> str:
                return c if c == "NULL" else f"{r}.{c}"
            return (f"INSERT INTO history({cols}) VALUES ({now}, {col(coder)}, '{action}', "
                    f"'{kind}', {r}.conversation_id, {col(pos)}, {col(sentence)}, {col(code)}, "
                    f"{before}, {after}, {ctx});")

        script.append(
            f"CREATE TRIGGER history_{table}_insert AFTER INSERT ON {table} BEGIN "
            + row("new", "set", "NULL", f"new.{value}") + " END;"
        )
        changed = f"old.{value} IS NOT new.{value}"
        if table == "consensus":
            changed += " OR old.adjudicator IS NOT new.adjudicator"
        script.append(
            f"CREATE TRIGGER history_{table}_update AFTER UPDATE ON {table} "
            f"WHEN {changed} BEGIN "
            + row("new", "change", f"old.{value}", f"new.{value}") + " END;"
        )
        script.append(
            f"CREATE TRIGGER history_{table}_delete AFTER DELETE ON {table} BEGIN "
            + row("old", "clear", f"old.{value}", "NULL") + " END;"
        )
        # what the file already holds, as found by this upgrade
        script.append(
            f"INSERT INTO history({cols}) SELECT {now}, {coder if coder != 'NULL' else 'NULL'}, "
            f"'set', '{kind}', conversation_id, {pos}, {sentence}, {code}, NULL, {value}, "
            f"'upgrade', NULL FROM {table};"
        )
    # the codebook: a code's definition in one line of text
    def code_text(r: str) -> str:
        return (f"{r}.label || ' (' || {r}.kind || ', ' || {r}.unit || ', ' || {r}.applies_to "
                f"|| ', levels ' || {r}.levels || CASE WHEN {r}.allow_na THEN ', NA allowed' "
                f"ELSE '' END || CASE WHEN {r}.retired THEN ', retired' ELSE '' END || ')'")
    code_cols = ("ord", "label", "kind", "unit", "applies_to", "levels", "allow_na",
                 "description", "include", "exclude", "examples", "shortcut", "color", "grp",
                 "user_rating", "retired")
    differs = " OR ".join(f"old.{c} IS NOT new.{c}" for c in code_cols)
    script.append(
        "CREATE TRIGGER history_codes_insert AFTER INSERT ON codes BEGIN "
        f"INSERT INTO history({cols}) VALUES ({now}, NULL, 'set', 'code', NULL, NULL, NULL, "
        f"new.key, NULL, {code_text('new')}, {ctx}); END;"
    )
    script.append(
        f"CREATE TRIGGER history_codes_update AFTER UPDATE ON codes WHEN {differs} BEGIN "
        f"INSERT INTO history({cols}) VALUES ({now}, NULL, 'change', 'code', NULL, NULL, NULL, "
        f"new.key, {code_text('old')}, {code_text('new')}, {ctx}); END;"
    )
    script.append(
        "CREATE TRIGGER history_codes_delete AFTER DELETE ON codes BEGIN "
        f"INSERT INTO history({cols}) VALUES ({now}, NULL, 'clear', 'code', NULL, NULL, NULL, "
        f"old.key, {code_text('old')}, NULL, {ctx}); END;"
    )
    script.append(
        f"INSERT INTO history({cols}) SELECT {now}, NULL, 'set', 'code', NULL, NULL, NULL, key, "
        f"NULL, {code_text('codes')}, 'upgrade', NULL FROM codes ORDER BY ord;"
    )
    _script(db, "\n".join(script))


@migrations()
def m006_prediction_runs(db: Database) -> None:
    """Turn-level predictions and the LLM judge's answers, kept so a re-run sends nothing
    already answered (the judge's prompt lives in ``meta``)."""
    _script(db,
        """
        CREATE TABLE turn_predictions (
            conversation_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            predictor TEXT NOT NULL,
            run INTEGER NOT NULL DEFAULT 1,
            score REAL,
            reasoning TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (conversation_id, position, predictor, run),
            FOREIGN KEY (conversation_id, position)
                REFERENCES turns(conversation_id, position) ON DELETE CASCADE
        );
        CREATE TABLE llm_answers (
            request_key TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            api_model TEXT NOT NULL,
            run INTEGER NOT NULL,
            reply TEXT NOT NULL,
            score REAL,
            answered_at TEXT
        );
        """
    )


@migrations()
def m007_covering_reads(db: Database) -> None:
    """Indexes that hold everything agreement, export and analysis read of a coding and of
    a user's rating, in conversation and turn order.

    A whole-project read walks them conversation by conversation (``GROUP BY``) and never
    visits the tables nor looks a conversation up row by row: reading 2.4 million codings
    and 800,000 users' ratings took 4.7 s through the tables and a join, and takes 3.0 to
    3.7 s through the indexes (the file grows by about a quarter). ``codings_unit`` keeps
    its leading columns, so the window's reads of one turn's codings use it as before."""
    _script(db,
        """
        DROP INDEX codings_unit;
        CREATE INDEX codings_unit ON codings(conversation_id, position, sentence, coder, code,
                                             value, updated_at);
        CREATE INDEX user_ratings_values ON user_ratings(conversation_id, position, rating,
                                                         value);
        """
    )


@migrations()
def m008_identity_history(db: Database) -> None:
    """Who may do what, in the history: a coder's role being set or changed, and the
    settings that decide what coders see (blind coding, the attributes hidden from blind
    coders, whether marking done needs every code, the lead passphrase).

    ``kind`` is ``role`` (``coder`` is whose role, ``before``/``after`` the roles) or
    ``setting`` (``code`` names the setting). The passphrase's hash never enters the
    history: only that one was ``set`` or cleared. Identity switches (``kind`` ``identity``)
    are written by the project itself, not by a trigger: they change no table."""
    now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    ctx = "(SELECT source FROM history_context WHERE id = 1), " \
          "(SELECT actor FROM history_context WHERE id = 1)"
    cols = ("at, coder, action, kind, conversation_id, position, sentence, code, before, "
            "after, source, actor")
    keys = "('blind_coding', 'hidden_attributes', 'require_all_codes', 'lead_passphrase')"

    def shown(r: str) -> str:  # a setting's value as the history holds it
        return (f"CASE WHEN {r}.key = 'lead_passphrase' THEN CASE WHEN {r}.value IS NULL "
                f"OR {r}.value = '' THEN NULL ELSE 'set' END ELSE {r}.value END")

    _script(db, f"""
        CREATE TRIGGER history_coders_insert AFTER INSERT ON coders BEGIN
        INSERT INTO history({cols}) VALUES ({now}, new.name, 'set', 'role', NULL, NULL, NULL,
            NULL, NULL, new.role, {ctx}); END;
        CREATE TRIGGER history_coders_update AFTER UPDATE ON coders
        WHEN old.role IS NOT new.role BEGIN
        INSERT INTO history({cols}) VALUES ({now}, new.name, 'change', 'role', NULL, NULL,
            NULL, NULL, old.role, new.role, {ctx}); END;
        CREATE TRIGGER history_coders_delete AFTER DELETE ON coders BEGIN
        INSERT INTO history({cols}) VALUES ({now}, old.name, 'clear', 'role', NULL, NULL,
            NULL, NULL, old.role, NULL, {ctx}); END;
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
        INSERT INTO history({cols}) SELECT {now}, name, 'set', 'role', NULL, NULL, NULL, NULL,
            NULL, role, 'upgrade', NULL FROM coders ORDER BY name;
        INSERT INTO history({cols}) SELECT {now}, NULL, 'set', 'setting', NULL, NULL, NULL,
            key, NULL, {shown('meta')}, 'upgrade', NULL FROM meta WHERE key IN {keys}
            ORDER BY key;
        """)

@migrations()
def m009_provenance(db: Database) -> None:
    """How every coding and consensus value was made, and the values changed after a reveal.

    ``codings`` gain ``source`` (coded, imported, merged, suggestion_accepted), ``blind``
    (1 when its coder worked blind to the others' values as it was set) and ``origin`` (the
    file a merged or imported value came from); ``updated_at`` is when it was set.
    ``consensus`` gains ``source`` (adjudicated, majority, merged, imported) and
    ``origin``. ``revisions`` holds a blind coder's value changed after the turn was
    revealed to them (when the project does not lock revealed turns): the blind value in
    ``codings`` stays as it was. The history follows ``revisions`` like ``codings``, its
    rows' source ending in "after reveal".

    Values already in the file take their source from their latest history event (an
    import, a merge, a majority decision), else ``coded``; a value counts as blind when
    the project codes blind, its coder is not an adjudicator and the coder had not marked
    its turn done before it was set."""
    _script(db,
        """
        ALTER TABLE codings ADD COLUMN source TEXT NOT NULL DEFAULT 'coded';
        ALTER TABLE codings ADD COLUMN blind INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE codings ADD COLUMN origin TEXT;
        ALTER TABLE consensus ADD COLUMN source TEXT NOT NULL DEFAULT 'adjudicated';
        ALTER TABLE consensus ADD COLUMN origin TEXT;
        CREATE TABLE revisions (
            coder TEXT NOT NULL REFERENCES coders(name),
            conversation_id TEXT NOT NULL
                REFERENCES conversations(conversation_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            sentence INTEGER NOT NULL DEFAULT 0,
            code TEXT NOT NULL REFERENCES codes(key),
            value,
            updated_at TEXT,
            PRIMARY KEY (coder, conversation_id, position, sentence, code)
        );
        CREATE TEMP TABLE m009_last AS
            SELECT coder, conversation_id, position, sentence, code, source, origin,
                   MAX(id) AS id
            FROM history WHERE kind = 'coding' AND action <> 'clear'
            GROUP BY coder, conversation_id, position, sentence, code;
        CREATE UNIQUE INDEX temp.m009_last_key
            ON m009_last(conversation_id, position, sentence, code, coder);
        UPDATE codings SET
            source = CASE WHEN l.origin IS NOT NULL OR l.source LIKE 'merge%' THEN 'merged'
                          ELSE 'imported' END,
            origin = CASE WHEN l.origin IS NOT NULL THEN l.origin
                          WHEN l.source LIKE 'merge %' THEN substr(l.source, 7) END
        FROM temp.m009_last l
        WHERE l.coder = codings.coder AND l.conversation_id = codings.conversation_id
          AND l.position = codings.position AND l.sentence = codings.sentence
          AND l.code = codings.code
          AND (l.origin IS NOT NULL OR l.source LIKE 'merge%' OR l.source LIKE 'import%');
        CREATE TEMP TABLE m009_done AS
            SELECT coder, conversation_id, position, MIN(id) AS id FROM history
            WHERE kind = 'done' AND after = 1 GROUP BY coder, conversation_id, position;
        CREATE UNIQUE INDEX temp.m009_done_key ON m009_done(conversation_id, position, coder);
        UPDATE codings SET blind = 1
        WHERE (SELECT value FROM meta WHERE key = 'blind_coding') = '1'
          AND (SELECT role FROM coders WHERE name = codings.coder) IS NOT 'adjudicator'
          AND NOT (((SELECT d.id FROM temp.m009_done d
                     WHERE d.conversation_id = codings.conversation_id
                       AND d.position = codings.position AND d.coder = codings.coder)
                    < (SELECT l.id FROM temp.m009_last l
                       WHERE l.conversation_id = codings.conversation_id
                         AND l.position = codings.position AND l.sentence = codings.sentence
                         AND l.code = codings.code AND l.coder = codings.coder)) IS TRUE);
        DROP TABLE temp.m009_done;
        DROP TABLE temp.m009_last;
        CREATE TEMP TABLE m009_last AS
            SELECT conversation_id, position, sentence, code, source, origin, MAX(id) AS id
            FROM history WHERE kind = 'consensus' AND action <> 'clear'
            GROUP BY conversation_id, position, sentence, code;
        CREATE UNIQUE INDEX temp.m009_last_key ON m009_last(conversation_id, position, sentence,
                                                             code);
        UPDATE consensus SET
            source = CASE WHEN l.origin IS NOT NULL OR l.source LIKE 'merge%' THEN 'merged'
                          ELSE 'imported' END,
            origin = CASE WHEN l.origin IS NOT NULL THEN l.origin
                          WHEN l.source LIKE 'merge %' THEN substr(l.source, 7) END
        FROM temp.m009_last l
        WHERE l.conversation_id = consensus.conversation_id
          AND l.position = consensus.position AND l.sentence = consensus.sentence
          AND l.code = consensus.code
          AND (l.origin IS NOT NULL OR l.source LIKE 'merge%' OR l.source LIKE 'import%');
        UPDATE consensus SET source = 'majority'
        WHERE source = 'adjudicated' AND rationale = 'majority of coders';
        DROP TABLE temp.m009_last;
        """
    )
    now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    ctx = ("(SELECT source FROM history_context WHERE id = 1) || ' after reveal', "
           "(SELECT actor FROM history_context WHERE id = 1)")
    cols = ("at, coder, action, kind, conversation_id, position, sentence, code, before, "
            "after, source, actor")

    def row(r: str, action: str, before: str, after: str) -> str:
        return (f"INSERT INTO history({cols}) VALUES ({now}, {r}.coder, '{action}', 'coding', "
                f"{r}.conversation_id, {r}.position, {r}.sentence, {r}.code, {before}, "
                f"{after}, {ctx});")

    _script(db, "\n".join([
        "CREATE TRIGGER history_revisions_insert AFTER INSERT ON revisions BEGIN "
        + row("new", "set", "NULL", "new.value") + " END;",
        "CREATE TRIGGER history_revisions_update AFTER UPDATE ON revisions "
        "WHEN old.value IS NOT new.value BEGIN "
        + row("new", "change", "old.value", "new.value") + " END;",
        "CREATE TRIGGER history_revisions_delete AFTER DELETE ON revisions BEGIN "
        + row("old", "clear", "old.value", "NULL") + " END;",
    ]))



from . import later_migrations  # noqa: E402,F401  (m010 onwards, registered in order)

SCHEMA_VERSION = len(migrations._migrations)

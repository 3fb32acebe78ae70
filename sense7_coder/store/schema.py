"""The project file's schema as numbered sqlite-utils migrations.

Every migration runs in its own transaction together with the record of it being applied.
``PRAGMA user_version`` mirrors the number of applied migrations so that a file made by a
newer version of sense7-coder can be recognised and refused before anything is written.
"""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from .values import restore_nominal_values

#: PRAGMA application_id of every sense7-coder project file ("S7CP").
APPLICATION_ID = 0x53374350

migrations = Migrations("sense7-coder")


@migrations()
def m001_initial(db: Database) -> None:
    db.executescript(
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
    db.executescript(
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
    db.executescript(
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
    db.executescript(
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
def m006_prediction_runs(db: Database) -> None:
    """Turn-level predictions and the LLM judge's answers, kept so a re-run sends nothing
    already answered (the judge's prompt lives in ``meta``)."""
    db.executescript(
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


SCHEMA_VERSION = len(migrations._migrations)

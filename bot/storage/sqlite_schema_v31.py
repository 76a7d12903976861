"""The SQLite scripts of release v0.31 (migrations 11-15): each only expands the schema, so
the release before runs beside it (CONTRIBUTING.md, "Adding a migration")."""

# House rules (options): a table's and a stored match's, as JSON holding only the options not
# at their default ('{}': the rules without options, as every table and match before this).
SCHEMA_V11 = """
ALTER TABLE game_tables ADD COLUMN options TEXT NOT NULL DEFAULT '{}';
ALTER TABLE matches ADD COLUMN options TEXT NOT NULL DEFAULT '{}';
"""

# A post's buttons; who asked to hear of a chat's next table.
SCHEMA_V12 = """
ALTER TABLE outbox ADD COLUMN buttons TEXT;
CREATE TABLE next_game (
    chat_id    INTEGER NOT NULL,
    thread_id  INTEGER NOT NULL DEFAULT 0,
    user_id    INTEGER NOT NULL,
    created_at REAL    NOT NULL,
    PRIMARY KEY (chat_id, thread_id, user_id)
) WITHOUT ROWID;
"""

# Which release each running worker is (``releases``): a release may write what the one before
# it cannot read only once no worker of that one is alive. A row is renewed while its worker
# runs and ages out after ``expires_at``; a clean stop deletes it. And the oldest release that
# may run on each schema version from this one on (``migrations``): an old worker restarted
# in the middle of an upgrade starts on the newer schema if it is one of those.
SCHEMA_V13 = """
CREATE TABLE worker_releases (
    holder     TEXT PRIMARY KEY,
    release    INTEGER NOT NULL,
    version    TEXT NOT NULL,
    started_at REAL NOT NULL,
    expires_at REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE schema_readers (
    version        INTEGER PRIMARY KEY,
    oldest_release INTEGER NOT NULL
);
"""

# Achievements: earned once per chat and person, for ever, in the transaction that records the
# match that earned them (an older release beside this one records matches and awards none).
# Who waits for whom: each seat's turns timed out and deals a computer played for the person
# (an older release's matches count 0), and each person's running totals of them per chat.
# Partnerships: running totals per chat and pair of people of four-player matches; a match adds
# to them once (``in_pairs``), when this release records one or first reads the chat's pairs
# (so matches an older release recorded, and every match before, count too).
SCHEMA_V14 = """
CREATE TABLE achievements (
    chat_id     INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    achievement TEXT    NOT NULL,
    match_id    INTEGER NOT NULL,
    earned_at   REAL    NOT NULL,
    PRIMARY KEY (chat_id, user_id, achievement)
) WITHOUT ROWID;
CREATE INDEX achievements_match ON achievements (match_id);
CREATE INDEX achievements_user ON achievements (user_id);
ALTER TABLE match_players ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE match_players ADD COLUMN stand_in_deals INTEGER NOT NULL DEFAULT 0;
CREATE TABLE player_waits (
    chat_id        INTEGER NOT NULL,
    user_id        INTEGER NOT NULL,
    timeouts       INTEGER NOT NULL,
    stand_in_deals INTEGER NOT NULL,
    PRIMARY KEY (chat_id, user_id)
) WITHOUT ROWID;
ALTER TABLE matches ADD COLUMN in_pairs INTEGER NOT NULL DEFAULT 0 CHECK (in_pairs IN (0, 1));
CREATE INDEX matches_not_in_pairs ON matches (chat_id, id) WHERE in_pairs = 0;
CREATE TABLE pair_lines (
    chat_id       INTEGER NOT NULL,
    low_user      INTEGER NOT NULL,
    high_user     INTEGER NOT NULL,
    matches       INTEGER NOT NULL,
    wins          INTEGER NOT NULL,
    defeat_points INTEGER NOT NULL,
    PRIMARY KEY (chat_id, low_user, high_user)
) WITHOUT ROWID;
CREATE INDEX pair_lines_high ON pair_lines (chat_id, high_user);
"""

# A cup for four (``cups``): four people sign up in one message, then play three matches of a
# four-player variant, each partnering each other once. ``message_id``: the one group message
# that is the sign-up and then the standings (edited, never posted again). ``cup_rounds``
# links a cup's matches to their tables (game_tables stays as the release before reads it).
SCHEMA_V15 = """
CREATE TABLE cups (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id     INTEGER NOT NULL,
    thread_id   INTEGER,
    variant     TEXT    NOT NULL,
    options     TEXT    NOT NULL DEFAULT '{}',
    status      TEXT    NOT NULL CHECK (status IN ('signup', 'playing', 'finished')),
    creator_id  INTEGER NOT NULL,
    message_id  INTEGER,
    created_at  REAL    NOT NULL,
    finished_at REAL
);
CREATE INDEX cups_chat ON cups (chat_id, id);
CREATE TABLE cup_players (
    cup_id    INTEGER NOT NULL REFERENCES cups (id) ON DELETE CASCADE,
    seat      INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    user_id   INTEGER NOT NULL,
    name      TEXT    NOT NULL,
    forfeited INTEGER NOT NULL DEFAULT 0 CHECK (forfeited IN (0, 1)),
    PRIMARY KEY (cup_id, seat),
    UNIQUE (cup_id, user_id)
) WITHOUT ROWID;
CREATE TABLE cup_rounds (
    cup_id   INTEGER NOT NULL REFERENCES cups (id) ON DELETE CASCADE,
    round    INTEGER NOT NULL CHECK (round BETWEEN 1 AND 3),
    table_id INTEGER NOT NULL UNIQUE,
    PRIMARY KEY (cup_id, round)
) WITHOUT ROWID;
"""

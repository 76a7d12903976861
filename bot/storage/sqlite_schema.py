"""The SQLite schema, one script per version (``migrations`` applies them; ``pg_schema`` holds
their PostgreSQL twins). Never edit a script that has shipped: append the next one."""

# Table names: ``game_tables`` rather than ``tables`` (a card table, not an SQL one).
# Booleans are INTEGER 0/1; times are REAL epoch seconds; *_json-like columns hold JSON text.
SCHEMA_V1 = """
CREATE TABLE users (
    user_id         INTEGER PRIMARY KEY,
    first_name      TEXT    NOT NULL,
    username        TEXT,
    language_code   TEXT,
    language        TEXT,
    can_message     INTEGER NOT NULL DEFAULT 0 CHECK (can_message IN (0, 1)),
    private_chat_id INTEGER,
    created_at      REAL    NOT NULL,
    updated_at      REAL    NOT NULL
);

CREATE TABLE chats (
    chat_id      INTEGER PRIMARY KEY,
    title        TEXT    NOT NULL DEFAULT '',
    language     TEXT,
    turn_timeout INTEGER NOT NULL DEFAULT 60 CHECK (turn_timeout >= 0),
    settings     TEXT    NOT NULL DEFAULT '{}',
    created_at   REAL    NOT NULL,
    updated_at   REAL    NOT NULL
);

CREATE TABLE game_tables (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id          INTEGER NOT NULL,
    status           TEXT    NOT NULL
                     CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
    variant          TEXT    NOT NULL,
    creator_id       INTEGER NOT NULL,
    seed             INTEGER NOT NULL,
    version          INTEGER NOT NULL CHECK (version >= 1),
    match_state      TEXT,
    table_message_id INTEGER,
    lobby_message_id INTEGER,
    created_at       REAL    NOT NULL,
    updated_at       REAL    NOT NULL,
    finished_at      REAL
);
-- At most one active table per chat, enforced by the database.
CREATE UNIQUE INDEX game_tables_one_active_per_chat
    ON game_tables (chat_id) WHERE status IN ('lobby', 'playing');
CREATE INDEX game_tables_chat ON game_tables (chat_id, id);
CREATE INDEX game_tables_active ON game_tables (status) WHERE status IN ('lobby', 'playing');

CREATE TABLE seats (
    table_id          INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    seat              INTEGER NOT NULL CHECK (seat >= 0),
    user_id           INTEGER,
    name              TEXT    NOT NULL,
    ai_level          TEXT,
    hand_message_id   INTEGER,
    notice_message_id INTEGER,
    timeouts          INTEGER NOT NULL DEFAULT 0,
    away              INTEGER NOT NULL DEFAULT 0 CHECK (away IN (0, 1)),
    deadline          REAL,
    selection         TEXT    NOT NULL DEFAULT '[]',
    PRIMARY KEY (table_id, seat),
    UNIQUE (table_id, user_id)
) WITHOUT ROWID;
CREATE INDEX seats_user ON seats (user_id) WHERE user_id IS NOT NULL;

CREATE TABLE table_log (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    at       REAL    NOT NULL,
    kind     TEXT    NOT NULL,
    ply      INTEGER,
    seat     INTEGER,
    text     TEXT    NOT NULL,
    data     TEXT,
    by       TEXT    NOT NULL
);
CREATE INDEX table_log_table ON table_log (table_id, id);

-- Finished matches for the ladder. No foreign key to game_tables: ladder history outlives
-- any pruning of old tables. One match per table (a retried record_match cannot count twice).
CREATE TABLE matches (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id       INTEGER NOT NULL UNIQUE,
    chat_id        INTEGER NOT NULL,
    variant        TEXT    NOT NULL,
    players        INTEGER NOT NULL,
    started_at     REAL    NOT NULL,
    finished_at    REAL    NOT NULL,
    deals          INTEGER NOT NULL,
    goat_with_eggs INTEGER NOT NULL CHECK (goat_with_eggs IN (0, 1)),
    result         TEXT    NOT NULL
);
CREATE INDEX matches_chat_finished ON matches (chat_id, finished_at);

CREATE TABLE match_players (
    match_id      INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat          INTEGER NOT NULL,
    side          INTEGER NOT NULL,
    user_id       INTEGER,
    name          TEXT    NOT NULL,
    ai_level      TEXT,
    won           INTEGER NOT NULL CHECK (won IN (0, 1)),
    goat          INTEGER NOT NULL CHECK (goat IN (0, 1)),
    defeat_points INTEGER NOT NULL,
    deals_won     INTEGER NOT NULL,
    deals_lost    INTEGER NOT NULL,
    eggs          INTEGER NOT NULL,
    queens_caught INTEGER NOT NULL,
    tricks        INTEGER NOT NULL,
    card_points   INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;
CREATE INDEX match_players_user ON match_players (user_id);
"""

# Per-chat ladders: seasons, standings (one line per chat, season, scope and player, kept up to
# date as matches are rated, so /top is one indexed range scan) and every rating change.
# A scope (column ``variant``) is a variant name or '*' for all variants together. A player is
# 'u<user id>' for a person or 'ai:<level>' for a computer level (records.player_key).
# Matches recorded before this version land in season 1 with in_ladder = 0: the service rates
# every such match, in id order, the next time it touches the chat's ladder (storage.ladder.update).
SCHEMA_V2 = """
ALTER TABLE matches ADD COLUMN season INTEGER NOT NULL DEFAULT 1 CHECK (season >= 1);
ALTER TABLE matches ADD COLUMN in_ladder INTEGER NOT NULL DEFAULT 0 CHECK (in_ladder IN (0, 1));
CREATE INDEX matches_chat_season ON matches (chat_id, season, id);
CREATE INDEX matches_chat_season_variant ON matches (chat_id, season, variant, id);
CREATE INDEX matches_not_in_ladder ON matches (chat_id, id) WHERE in_ladder = 0;

CREATE INDEX users_username ON users (username COLLATE NOCASE) WHERE username IS NOT NULL;

-- A chat has no row here until its first reset: season 1 is implicit.
CREATE TABLE ladder_seasons (
    chat_id    INTEGER NOT NULL,
    season     INTEGER NOT NULL CHECK (season >= 1),
    started_at REAL    NOT NULL,
    started_by INTEGER,
    PRIMARY KEY (chat_id, season)
) WITHOUT ROWID;

CREATE TABLE ladder_standings (
    chat_id             INTEGER NOT NULL,
    season              INTEGER NOT NULL,
    variant             TEXT    NOT NULL,
    player              TEXT    NOT NULL,
    user_id             INTEGER,
    ai_level            TEXT,
    name                TEXT    NOT NULL,
    matches             INTEGER NOT NULL,
    wins                INTEGER NOT NULL,
    goats               INTEGER NOT NULL,
    deals_won           INTEGER NOT NULL,
    deals_lost          INTEGER NOT NULL,
    defeat_points_taken INTEGER NOT NULL,
    defeat_points_given INTEGER NOT NULL,
    eggs                INTEGER NOT NULL,
    queens_caught       INTEGER NOT NULL,
    tricks              INTEGER NOT NULL,
    card_points         INTEGER NOT NULL,
    mu                  REAL    NOT NULL,
    sigma               REAL    NOT NULL,
    rating              REAL    NOT NULL,
    last_match_id       INTEGER NOT NULL,
    last_played_at      REAL    NOT NULL,
    PRIMARY KEY (chat_id, player, season, variant)
) WITHOUT ROWID;
CREATE INDEX ladder_standings_top
    ON ladder_standings (chat_id, season, variant, rating DESC, matches DESC, player);
CREATE INDEX ladder_standings_player ON ladder_standings (player, variant);

CREATE TABLE rating_changes (
    match_id      INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat          INTEGER NOT NULL,
    variant       TEXT    NOT NULL,
    chat_id       INTEGER NOT NULL,
    season        INTEGER NOT NULL,
    player        TEXT    NOT NULL,
    rank          INTEGER NOT NULL CHECK (rank >= 1),
    mu_before     REAL    NOT NULL,
    sigma_before  REAL    NOT NULL,
    rating_before REAL    NOT NULL,
    mu_after      REAL    NOT NULL,
    sigma_after   REAL    NOT NULL,
    rating_after  REAL    NOT NULL,
    PRIMARY KEY (match_id, seat, variant)
) WITHOUT ROWID;
CREATE INDEX rating_changes_player ON rating_changes (chat_id, player, variant, season, match_id);
"""

# What the bot owes Telegram is written in the transaction of the change that owes it, and a
# sender delivers it. Marks (table, hand, lobby) say "render this message again": one row per
# message, merged by the unique index (seat is -1 for table and lobby). Posts and deletions are
# rows of their own, delivered once, in id order per chat. ``renew`` is the version at which a
# new message was asked for instead of an edit (0: none).
SCHEMA_V3 = """
ALTER TABLE game_tables ADD COLUMN note TEXT;
ALTER TABLE seats ADD COLUMN active_at REAL;

CREATE TABLE outbox (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT    NOT NULL CHECK (kind IN ('table', 'hand', 'lobby', 'post', 'delete')),
    chat_id    INTEGER NOT NULL,
    table_id   INTEGER,
    seat       INTEGER NOT NULL DEFAULT -1,
    priority   INTEGER NOT NULL,
    renew      INTEGER NOT NULL DEFAULT 0,
    text       TEXT,
    message_id INTEGER,
    notify     INTEGER NOT NULL DEFAULT 0,
    not_before REAL    NOT NULL DEFAULT 0,
    attempts   INTEGER NOT NULL DEFAULT 0,
    version    INTEGER NOT NULL DEFAULT 1,
    created_at REAL    NOT NULL
);
CREATE UNIQUE INDEX outbox_marks ON outbox (kind, table_id, seat)
    WHERE kind IN ('table', 'hand', 'lobby');
CREATE INDEX outbox_due ON outbox (not_before, priority, id);
CREATE INDEX outbox_table ON outbox (table_id) WHERE table_id IS NOT NULL;
"""

# Forum topics: a table lives in one topic of its chat (``thread_id``, the topic's message thread;
# NULL: no topic, or a forum's General topic), and each topic may hold an active table of its
# own. SQLite cannot change an index: the one-per-chat index goes and a per-topic one replaces it
# (NULLs never collide in a unique index, hence ``coalesce``: thread ids are positive).
SCHEMA_V4 = """
ALTER TABLE game_tables ADD COLUMN thread_id INTEGER CHECK (thread_id IS NULL OR thread_id > 0);
DROP INDEX game_tables_one_active_per_chat;
CREATE UNIQUE INDEX game_tables_one_active_per_topic
    ON game_tables (chat_id, coalesce(thread_id, 0)) WHERE status IN ('lobby', 'playing');
"""

# One seat per person, kept by the database even when two joins race in two chats: a seat row
# copies whether its table is active (written with the seats; the trigger covers any other
# status change) and a unique index admits one active seat per person. ``left_user_id`` keeps
# the person a computer plays for after a /kick in a running match: the seat stays theirs for
# the ladder and for this rule. Persons seated at two active tables before this version keep
# the newest seat; their older ones go to a computer player.
SCHEMA_V5 = """
ALTER TABLE seats ADD COLUMN left_user_id INTEGER;
ALTER TABLE seats ADD COLUMN active INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1));
UPDATE seats SET active = 1
 WHERE table_id IN (SELECT id FROM game_tables WHERE status IN ('lobby', 'playing'));
UPDATE seats SET user_id = NULL, ai_level = 'strong', away = 0, deadline = NULL
 WHERE active = 1 AND user_id IS NOT NULL
   AND EXISTS (SELECT 1 FROM seats AS newer
                WHERE newer.active = 1 AND newer.user_id = seats.user_id
                  AND newer.table_id > seats.table_id);
CREATE UNIQUE INDEX seats_one_active_seat ON seats (coalesce(user_id, left_user_id))
    WHERE active = 1;
CREATE TRIGGER seats_follow_table_status AFTER UPDATE OF status ON game_tables
BEGIN
    UPDATE seats SET active = (NEW.status IN ('lobby', 'playing')) WHERE table_id = NEW.id;
END;
"""

# One running bot per database: the process that runs holds a lease and renews it; another one
# waits until it is released (a clean stop) or has expired (a crash).
SCHEMA_V6 = """
CREATE TABLE leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at REAL NOT NULL
) WITHOUT ROWID;
"""

# A person removed from a running match leaves their seat to a computer player: the seat keeps
# their name and says who finished it.
SCHEMA_V7 = """
ALTER TABLE seats ADD COLUMN replaced INTEGER NOT NULL DEFAULT 0;
"""

# What a table waits for (a computer's move, a turn timer, its expiry), written with the change
# that set it. Any worker may run a due one: it claims the row until ``claimed_until``, and a
# claim whose worker died runs out, so another worker takes it.
SCHEMA_V8 = """
CREATE TABLE timers (
    table_id      INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    slot          TEXT NOT NULL,
    kind          TEXT NOT NULL,
    ply           INTEGER NOT NULL,
    seat          INTEGER,
    due_at        REAL NOT NULL,
    claimed_by    TEXT,
    claimed_until REAL,
    PRIMARY KEY (table_id, slot)
) WITHOUT ROWID;
CREATE INDEX timers_due ON timers (due_at);
"""

# A turn notice was a message of its own until the hand carried the turn; its column was only
# ever cleared since. Such an old notice, if any is left, stays in the chat.
SCHEMA_V9 = """
ALTER TABLE seats DROP COLUMN notice_message_id;
"""

# While Telegram cannot be reached, people cannot move: their turn timers stop (``pauses`` says
# since when), each keeping the seconds it had left (``paused_left``) until it runs again. And
# the updates the bot took lately, so that one Telegram delivers twice (to two workers, say)
# is handled once: ``done`` once handled, else taken at ``taken_at`` by ``taken_by``.
SCHEMA_V10 = """
ALTER TABLE timers ADD COLUMN paused_left REAL;
CREATE TABLE pauses (
    name  TEXT PRIMARY KEY,
    since REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE updates (
    update_id INTEGER PRIMARY KEY,
    taken_by  TEXT NOT NULL,
    taken_at  REAL NOT NULL,
    done      INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1))
);
CREATE INDEX updates_taken ON updates (taken_at);
"""

# The scripts of release v0.31 (migrations 11-15): ``sqlite_schema_v31``.

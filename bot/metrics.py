"""Every metric the bot keeps, declared once (Prometheus' client, its default registry): the
few places that count (the Telegram client, the budget, the sender, the table saves, the timer
runner, the database wrapper) import their family from here. What is a fact of the database
(tables by status, the outbox) is not kept here: ``GET /metrics`` asks the database for it at
each scrape (``bot/web/metrics.py``). docs/operating.md ("Metrics") describes each family.
"""

from __future__ import annotations

import time
from collections import deque

from prometheus_client import Counter, Gauge, Histogram

# Seconds: from a millisecond (a database read) to a minute (a budget wait at the flood limit).
SECONDS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

MATCHES = Counter(
    "kozel_matches",
    "Matches by what happened: started, finished (played to the end; rated), abandoned "
    "(nobody moved for KOZEL_IDLE_MATCH), cancelled (/cancel, the bot removed, the topic gone)",
    ["event"],
)
LOBBIES = Counter(
    "kozel_lobbies",
    "Tables opened (/newgame) and lobbies closed without a match (cancelled, expired)",
    ["event"],
)
CARDS = Counter("kozel_cards_played", "Cards played (led, beaten, played, discarded)")
MOVES = Counter("kozel_moves", "Accepted moves by who made them: human, computer, timeout", ["by"])
PRESSES = Counter(
    "kozel_presses",
    "Button presses: answered (handled), refused (over the person's fair share)",
    ["outcome"],
)
TELEGRAM_CALLS = Counter(
    "kozel_telegram_calls",
    "Bot API calls by method and outcome: ok, 429 (flood control), 4xx, 5xx, timeout, network",
    ["method", "outcome"],
)
BUDGET_WAIT = Histogram(
    "kozel_budget_wait_seconds",
    "How long a call to Telegram waited for the bot's own flood budget before it went out",
    buckets=SECONDS,
)
TURN_LAG = Histogram(
    "kozel_turn_lag_seconds",
    "From an accepted move to the next player's turn shown to them (their hand delivered)",
    buckets=SECONDS,
)
OUTBOX_SENT = Counter(
    "kozel_outbox_delivered",
    "Posts and edits the sender delivered from the outbox, by outcome: sent, dropped, retried",
    ["outcome"],
)
TIMERS_DUE = Counter("kozel_timers_due", "Stored timers run (turns, computers, expiries)", ["kind"])
TIMERS_LATE = Counter(
    "kozel_timers_late", "Stored timers run more than a second after they were due", ["kind"]
)
TIMER_LATENESS = Histogram(
    "kozel_timer_lateness_seconds",
    "How long after its due time a stored timer ran",
    buckets=SECONDS,
)
DB_SECONDS = Histogram(
    "kozel_db_seconds",
    "Database transactions: time from asking for a connection to the end (commit included)",
    ["op"],
    buckets=SECONDS,
)
MINI_APP_STREAMS = Gauge("kozel_mini_app_streams", "Mini App pages open (their event streams)")

# Set at each scrape (``bot/web/metrics.py``), from the database and the process.
TABLES = Gauge("kozel_tables", "Live tables by status (lobby, playing)", ["status"])
PLAYERS = Gauge("kozel_players", "People seated at live tables")
OUTBOX_DEPTH = Gauge("kozel_outbox_depth", "Posts and edits owed to Telegram (the outbox's rows)")
OUTBOX_AGE = Gauge(
    "kozel_outbox_oldest_age_seconds", "How long the oldest row of the outbox has waited (0: none)"
)
WORKERS = Gauge("kozel_workers_live", "Bot processes alive on this database (polling: 1)")
TASKS_DOWN = Gauge(
    "kozel_tasks_down", "Background loops of this process waiting to start again after a failure"
)
DATABASE_UP = Gauge("kozel_database_up", "1 when the database answered this scrape's queries")


class Recent:
    """When something happened lately (at most ``kept`` times): "how many in the last hour"."""

    def __init__(self, kept: int = 10_000) -> None:
        self._times: deque[float] = deque(maxlen=kept)

    def add(self, at: float | None = None) -> None:
        self._times.append(time.time() if at is None else at)

    def since(self, at: float) -> int:
        return sum(1 for t in self._times if t >= at)


FLOOD_ANSWERS = Recent()  # Telegram's 429 answers, for the owner's /status

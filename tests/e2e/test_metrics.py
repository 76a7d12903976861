"""``GET /metrics`` after a short match: every family docs/operating.md lists, with the counts a
match makes (Prometheus' own parser reads it)."""

from __future__ import annotations

import aiohttp
import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.process import free_port
from fakebot.server import FakeTelegram
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from .driver import BOTH_BACKENDS, ENV_FAST, Table

pytestmark = [pytest.mark.e2e, BOTH_BACKENDS]

# The families docs/operating.md's "Metrics" lists, each with the samples a played match makes
# non-zero (label values, or None for a family whose samples must merely be there).
FAMILIES: dict[str, dict[str, str] | None] = {
    "kozel_matches": {"event": "started"},
    "kozel_lobbies": {"event": "opened"},
    "kozel_cards_played": {},
    "kozel_moves": {"by": "computer"},
    "kozel_presses": {"outcome": "answered"},
    "kozel_telegram_calls": {"method": "sendMessage", "outcome": "ok"},
    "kozel_budget_wait_seconds": {},
    "kozel_turn_lag_seconds": {},
    "kozel_outbox_delivered": {"outcome": "sent"},
    "kozel_timers_due": {"kind": "ai"},
    "kozel_timers_late": None,
    "kozel_timer_lateness_seconds": {},
    "kozel_db_seconds": {"op": "write"},
    "kozel_tables": None,
    "kozel_players": None,
    "kozel_outbox_depth": None,
    "kozel_outbox_oldest_age_seconds": None,
    "kozel_workers_live": {},
    "kozel_tasks_down": None,
    "kozel_database_up": {},
    "kozel_mini_app_streams": None,
}


def counted(samples: list[Sample], labels: dict[str, str]) -> float:
    """The family's count with these labels: a counter's total, a histogram's ``_count``, a
    gauge's value."""
    total = 0.0
    for sample in samples:
        if sample.name.endswith(("_bucket", "_sum", "_created")):
            continue
        if all(sample.labels.get(key) == value for key, value in labels.items()):
            total += sample.value
    return total


async def test_metrics_after_a_short_match(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    port = free_port()
    env = {**ENV_FAST, "KOZEL_METRICS": "1", "KOZEL_LISTEN": f"127.0.0.1:{port}"}
    bot = bot_process(env={**env, "KOZEL_LOG_LEVEL": "INFO"})
    await bot.start()
    users = [fake_telegram.add_user(name) for name in ("Anna", "Boris")]
    group = fake_telegram.add_group("Kozel club", users, admins=users[:1])
    table = Table(fake_telegram, group)
    for user in users:
        await table.start_private(user)
    await table.open(users[0], "moscow goat=6")
    await table.join(users[1])
    await table.add_computer(users[0])
    fake_telegram.inject_error("sendMessage", 429, retry_after=1)  # one flood answer
    await table.start(users[0])
    await table.play(users)

    base = f"http://127.0.0.1:{port}"
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/metrics") as response:
            assert response.status == 200
            assert response.content_type == "text/plain"
            text = await response.text()
        async with http.get(f"{base}/healthz") as health:  # polling: no listener needed
            assert health.status == 200
    families = {family.name: family for family in text_string_to_metric_families(text)}
    for name, labels in FAMILIES.items():
        assert name in families, f"{name} missing from /metrics"
        if labels is not None:
            assert counted(families[name].samples, labels) > 0, (name, labels)
    calls = families["kozel_telegram_calls"].samples
    assert counted(calls, {"outcome": "429"}) >= 1
    assert counted(families["kozel_matches"].samples, {"event": "finished"}) == 1
    assert counted(families["kozel_tables"].samples, {"status": "playing"}) == 0
    assert counted(families["kozel_workers_live"].samples, {}) == 1
    assert "123456:TEST" not in text  # a call's method is its label, never its URL

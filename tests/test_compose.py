"""The sample deployment (compose.yaml, deploy/Caddyfile) and its README section describe a
configuration the bot accepts: docker is not on this machine, so the files are read here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.config import Config

ROOT = Path(__file__).resolve().parents[1]
# What an operator exports before `docker compose up` (compose.yaml's header says so).
SHELL = {
    "KOZEL_BOT_TOKEN": "123456:ABC-token",
    "KOZEL_DOMAIN": "bot.example.org",
    "KOZEL_WEBHOOK_SECRET": "0123abcd" * 8,
    "KOZEL_DB_PASSWORD": "pw0123",
}
VARIABLE = re.compile(r"\$\{(\w+)(?::([?-])([^}]*))?\}")


def interpolate(value: str, shell: dict[str, str]) -> str:
    """Compose's ``${NAME}``, ``${NAME:-default}`` and ``${NAME:?error}``."""

    def one(match: re.Match[str]) -> str:
        name, kind, rest = match.groups()
        if shell.get(name):
            return shell[name]
        if kind == "-":
            return rest
        raise LookupError(f"{name} is required: {rest}")

    return VARIABLE.sub(one, value)


def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def worker_env(service: dict[str, Any], shell: dict[str, str]) -> dict[str, str]:
    return {k: interpolate(str(v), shell) for k, v in service["environment"].items()}


def config_names() -> set[str]:
    return set(re.findall(r"KOZEL_[A-Z_]+", (ROOT / "bot" / "config.py").read_text()))


def test_compose_runs_postgres_two_webhook_workers_and_a_proxy() -> None:
    services = compose()["services"]
    assert set(services) == {"db", "worker1", "worker2", "proxy"}
    assert services["db"]["image"].startswith("postgres:")
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])
    configs = []
    for name in ("worker1", "worker2"):
        worker = services[name]
        assert worker["build"] == "."  # the repository's Dockerfile
        assert worker["depends_on"]["db"]["condition"] == "service_healthy"
        env = worker_env(worker, SHELL)
        assert set(env) <= config_names(), set(env) - config_names()  # no misspelt setting
        config = Config.from_env(env)  # the bot accepts it
        configs.append(config)
        assert config.webhook_url == "https://bot.example.org/telegram"
        assert config.database_url == "postgresql://kozel:pw0123@db:5432/kozel"
        assert (config.listen_host, config.listen_port) == ("0.0.0.0", 8080)
    assert configs[0] == configs[1]  # the workers differ in nothing but their container
    # The password and the database name agree between PostgreSQL and the workers.
    db_env = {k: interpolate(str(v), SHELL) for k, v in services["db"]["environment"].items()}
    assert db_env == {
        "POSTGRES_USER": "kozel",
        "POSTGRES_PASSWORD": "pw0123",
        "POSTGRES_DB": "kozel",
    }
    proxy = services["proxy"]
    assert {"80:80", "443:443"} <= set(proxy["ports"])
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]


@pytest.mark.parametrize("missing", ["KOZEL_BOT_TOKEN", "KOZEL_DOMAIN", "KOZEL_WEBHOOK_SECRET"])
def test_compose_refuses_to_start_without_the_required_settings(missing: str) -> None:
    shell = {k: v for k, v in SHELL.items() if k != missing}
    with pytest.raises(LookupError, match=missing):
        worker_env(compose()["services"]["worker1"], shell)


def test_the_caddyfile_balances_over_both_workers_and_checks_healthz() -> None:
    text = (ROOT / "deploy" / "Caddyfile").read_text(encoding="utf-8")
    lines = [line.split("#")[0].strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    assert lines[0] == "{$KOZEL_DOMAIN} {"
    proxy = next(line for line in lines if line.startswith("reverse_proxy "))
    port = Config.from_env(worker_env(compose()["services"]["worker1"], SHELL)).listen_port
    assert proxy.split()[1:-1] == [f"worker1:{port}", f"worker2:{port}"]
    assert "lb_policy round_robin" in lines
    assert "health_uri /healthz" in lines
    assert text.count("{") == text.count("}")


def test_the_readme_names_every_setting_for_several_workers() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## Running several workers" in readme
    section = readme.split("## Running several workers", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`(KOZEL_[A-Z_]+)`", section))
    assert config_names() <= named, sorted(config_names() - named)
    assert "compose.yaml" in section and "deploy/Caddyfile" in section

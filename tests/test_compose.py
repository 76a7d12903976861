"""The sample deployment (compose.yaml, deploy/Caddyfile) and docs/operating.md describe a
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
    # One image for both: worker1 builds it from the repository's Dockerfile, worker2 runs it.
    assert services["worker1"]["build"] == "." and services["worker1"]["pull_policy"] == "build"
    assert "build" not in services["worker2"] and services["worker2"]["pull_policy"] == "never"
    assert services["worker1"]["image"] == services["worker2"]["image"]
    for name in ("worker1", "worker2"):
        worker = services[name]
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


def test_the_operating_page_names_every_setting_for_several_workers() -> None:
    page = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    assert "## Running several workers" in page
    section = page.split("## Running several workers", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`(KOZEL_[A-Z_]+)`", section))
    assert config_names() <= named, sorted(config_names() - named)
    assert "compose.yaml" in section and "deploy/Caddyfile" in section


# name:tag@sha256:digest, the tag naming an exact version (2.11.4) or a dated build (-20260918-)
PINNED = re.compile(r"^[\w./-]+:[\w.-]*(\d+\.\d+|\d{8})[\w.-]*@sha256:[0-9a-f]{64}$")


def test_every_image_from_a_registry_is_pinned_to_a_version_and_a_digest() -> None:
    services = compose()["services"]
    pulled = {name: s["image"] for name, s in services.items() if s.get("pull_policy") is None}
    assert set(pulled) == {"db", "proxy"}
    for name, image in pulled.items():
        assert PINNED.match(image), f"{name}: {image} is not pinned (version@sha256:digest)"
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    base = re.search(r"^ARG BASE=(\S+)$", dockerfile, re.MULTILINE)
    assert base and PINNED.match(base.group(1)), "the Dockerfile's BASE is not pinned"
    froms = re.findall(r"^FROM (\S+)", dockerfile, re.MULTILINE)
    assert froms and set(froms) == {"${BASE}"}


def test_the_caddyfile_names_the_caddy_version_compose_runs() -> None:
    image = compose()["services"]["proxy"]["image"]
    version = image.split(":")[1].split("@")[0]
    header = (ROOT / "deploy" / "Caddyfile").read_text(encoding="utf-8").split("{$", 1)[0]
    assert version in header  # verified by tests/e2e/test_caddy_failover.py with this version
    page = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    assert f"Caddy {version}" in page


def dockerignore_keeps(path: str) -> bool:
    """Whether Docker sends ``path`` in the build context, by .dockerignore's rules: the last
    pattern that matches the path or one of its folders decides; ``!`` keeps."""
    kept = True
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    parts = path.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    for line in (raw.strip() for raw in lines):
        if not line or line.startswith("#"):
            continue
        keep, pattern = line.startswith("!"), line.lstrip("!").strip("/")
        regex = re.escape(pattern).replace(r"\*\*/", "(.*/)?").replace(r"\*", "[^/]*")
        if any(re.fullmatch(regex, prefix) for prefix in prefixes):
            kept = keep
    return kept


@pytest.mark.parametrize(
    "path",
    [".venv/bin/python", ".git/HEAD", "build/lib/bot/main.py", "kozel.egg-info/PKG-INFO",
     "dist/kozel-0.1.0.whl", "test-output/report.xml", "kozel.sqlite3", ".pytest_cache/v",
     "bot/__pycache__/main.cpython-311.pyc", "locales/ru/LC_MESSAGES/messages.mo", "tests/x.py",
     ".mypy_cache/x", "compose.yaml"],
)  # fmt: skip
def test_the_build_context_leaves_out_what_is_not_built_from(path: str) -> None:
    assert not dockerignore_keeps(path)


def test_the_build_context_has_everything_the_dockerfile_copies() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    copied = [
        source
        for line in re.findall(r"^COPY (?!--from)(.+)$", dockerfile, re.MULTILINE)
        for source in line.split()[:-1]
    ]
    assert "setup.py" in copied and "locales" in copied
    for source in copied:
        files = (
            [source]
            if (ROOT / source).is_file()
            else [str(p.relative_to(ROOT)) for p in (ROOT / source).rglob("*.p[yo]")]
        )
        assert files, source
        assert all(dockerignore_keeps(f) for f in files), source

"""The documentation a newcomer opens: a short README that starts with the two commands and
links every page, links that lead somewhere, and no rules cited from outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = (
    "docs/playing.md",
    "docs/operating.md",
    "docs/architecture.md",
    "docs/rules.md",
    "docs/metrics.md",
    "CONTRIBUTING.md",
    "tests/README.md",
    "kozel_rules/README.md",
    "benchmarks/README.md",
)
LINK = re.compile(r"\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"")


def read(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def shell_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)\n```", text, re.DOTALL)


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    readme = read("README.md")
    assert len(readme.splitlines()) <= 150
    first, second = shell_blocks(readme)[:2]
    assert "kozel-bot" in first and first.startswith("python3 -m venv .venv")
    # CI runs exactly the README's test command (.ci/run says so); keep them one line, equal.
    assert second.endswith(".venv/bin/pytest -q -n 4 --timeout=600")
    assert any(line.startswith(second) for line in read(".ci/run").splitlines())
    run_bot = readme.index("Run the bot (fresh machine")
    run_tests = readme.index("Run the tests (the same command CI runs")
    assert run_bot < run_tests < readme.index("## ")


def test_the_readme_links_every_page() -> None:
    linked = {m.group(1) for m in LINK.finditer(read("README.md"))}
    assert set(PAGES) <= linked, sorted(set(PAGES) - linked)


@pytest.mark.parametrize("page", ["README.md", *PAGES, "tests/fakebot/README.md"])
def test_every_relative_link_leads_to_a_file_and_its_anchor(page: str) -> None:
    text = read(page)
    for match in LINK.finditer(text):
        target = match.group(1) or match.group(2)
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        file = (ROOT / page).parent / path if path else ROOT / page
        assert file.exists(), f"{page}: {target} leads nowhere"
        if anchor and file.suffix == ".md":
            assert anchor in anchors(file.read_text(encoding="utf-8")), f"{page}: {target}"


def anchors(text: str) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to -."""
    headings = re.findall(r"^#+ (.+)$", text, re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_nothing_cites_the_rules_or_the_design_from_outside_the_repository() -> None:
    files = subprocess.run(
        ["git", "ls-files"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    citing = [
        name
        for name in files
        if name.endswith((".py", ".md", ".json", ".js", ".toml", ".cfg"))
        and (ROOT / name).is_file()
        and re.search(r"RULES\.md|DESIGN\.md|/work/share[d]", read(name))
    ]
    assert citing == []


@pytest.mark.parametrize(
    "page", ["docs/architecture.md", "docs/operating.md", "CONTRIBUTING.md", "tests/README.md"]
)
def test_every_file_a_page_names_is_there(page: str) -> None:
    """The map names files ("open first: bot/service/moves.py"): a rename must update it."""
    named = set(
        re.findall(r"`((?:bot|kozel_rules|tests|deploy|benchmarks|docs)/[\w/.-]+)`", read(page))
    )
    named = {path for path in named if "<" not in path and "*" not in path}
    assert named, page
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert missing == [], f"{page} names files that are not there: {missing}"

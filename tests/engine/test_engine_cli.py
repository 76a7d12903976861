"""``python -m kozel_rules replay FILE|-`` and ``python -m kozel_rules bench``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kozel_rules", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def test_replay_a_scenario_file_prints_the_expected_result() -> None:
    path = SCENARIOS / "street-worked-example-1-01.json"
    vector = json.loads(path.read_text(encoding="utf-8"))
    record_file = json.dumps(vector["record"], ensure_ascii=False)
    done = run("replay", "-", stdin=record_file)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    want = vector["expected"]
    assert got["ok"] is True and got["error"] is None
    assert got["deals"] == want["deals"] and got["defeat_points"] == want["defeat_points"]
    assert [set(x) for x in got["legal"]] == [set(x) for x in want["legal"]]


def test_replay_reads_a_file_and_reports_errors_with_their_index() -> None:
    path = SCENARIOS / "street-worked-example-1-bad-beat-01.json"
    done = run("replay", str(path))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["ok"] is False and got["error"]["index"] == 3


def test_bench_prints_a_rate_per_variant() -> None:
    done = run("bench", "--seconds", "0.05")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 6  # header and five cases
    cases = {(line.split()[0], line.split()[1]) for line in lines[1:]}
    assert cases == {
        ("ziege", "4"),
        ("street", "4"),
        ("moscow", "2"),
        ("moscow", "3"),
        ("moscow", "4"),
    }
    for line in lines[1:]:
        assert float(line.split()[2].replace(",", "")) > 0


def test_bench_one_variant() -> None:
    done = run("bench", "--seconds", "0.05", "--variant", "street", "--match")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 2 and lines[1].split()[0] == "street"
    assert float(lines[1].split()[3].replace(",", "")) > 0

"""Every scenario vector in tests/scenarios/ (copied from the shared set) replays exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kozel_rules import Action, replay

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
FILES = sorted(SCENARIOS.glob("*.json"))


def normalise(lists: list[list[str]] | None) -> list[set[str]] | None:
    """Each legal list as a set of actions, card order and notation normalised."""
    if lists is None:
        return None
    return [{str(Action.parse(a)) for a in lst} for lst in lists]


def test_the_scenario_set_is_there() -> None:
    assert len(FILES) >= 90


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    vector: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    expected = vector["expected"]
    got = replay(vector["record"])
    assert got["ok"] == expected["ok"], got["error"]
    want_index = expected["error"]["index"] if expected["error"] else None
    got_index = got["error"]["index"] if got["error"] else None
    assert got_index == want_index, got["error"]
    if vector["kind"] == "record-error":
        assert got_index is None
        assert got["legal"] is None
        return
    got_legal = normalise(got["legal"])
    want_legal = normalise(expected["legal"])
    if want_legal is None:
        assert got_legal is None
    else:
        assert got_legal is not None
        assert len(got_legal) == len(want_legal)
        actions = vector["record"]["actions"]
        for i, (g, w) in enumerate(zip(got_legal, want_legal, strict=True)):
            before = actions[i] if i < len(actions) else "(after the last action)"
            assert g == w, f"legal list {i}, before {before}: extra {g - w}, missing {w - g}"
    assert len(got["deals"]) == len(expected["deals"])
    for i, (g, w) in enumerate(zip(got["deals"], expected["deals"], strict=True)):
        assert g == w, f"deal {i + 1}"
    assert got["defeat_points"] == expected["defeat_points"]
    assert got["match_over"] == expected["match_over"]
    assert got["out"] == expected["out"]

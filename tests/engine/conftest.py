"""Engine tests: tests marked ``slow`` run only with ``-m slow`` or ``KOZEL_SLOW=1``."""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("KOZEL_SLOW") or "slow" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow or KOZEL_SLOW=1")
    for item in items:
        if "slow" in item.keywords and "engine" in str(item.path):
            item.add_marker(skip)

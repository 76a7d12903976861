"""The Mini App's tests use the service doubles of ``tests/bot`` (an in-process Core)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bot"))

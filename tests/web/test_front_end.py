"""The Mini App's front end checked by its own tools: eslint over the page's modules and
``node --test`` of ``model.js`` (package.json's scripts; ``npm ci`` installs them)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def npm_run(script: str) -> subprocess.CompletedProcess[str]:
    npm = shutil.which("npm")
    if npm is None or not (REPO / "node_modules" / ".bin" / "eslint").exists():
        reason = "the front end's tools are missing (Node.js, npm ci)"
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI installs them: .ci/run)")
        pytest.skip(reason)
    return subprocess.run(
        [npm, "run", "--silent", script], cwd=REPO, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("script", ["lint", "test"])
def test_front_end_checks_pass(script: str) -> None:
    done = npm_run(script)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

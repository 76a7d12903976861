"""A plain ``pip install`` of the wheel speaks the translated languages: setup.py compiles the
catalogs into the package, and ``bot.i18n`` finds them there (no checkout, no KOZEL_LOCALES)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# What the wheel is built from (as a clean clone has it: no build/, no *.egg-info, no .venv).
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "babel.cfg")
PACKAGES = ("bot", "kozel_rules", "locales")
LANGUAGES = ("ru", "uk", "be", "de", "da", "ja")


def run(*command: str | Path, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("KOZEL_LOCALES", "PYTHONPATH")}
    result = subprocess.run(
        [str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, f"{command}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_the_wheel_carries_compiled_catalogs_and_speaks_russian(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCES:
        shutil.copy2(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.mo")
    for name in PACKAGES:
        shutil.copytree(ROOT / name, source / name, ignore=ignore)
    python = sys.executable
    run(python, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp_path / "dist", ".", cwd=source)
    (wheel,) = (tmp_path / "dist").glob("kozel-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    compiled = {f"bot/locales/{lang}/LC_MESSAGES/messages.mo" for lang in LANGUAGES}
    assert compiled <= names, sorted(n for n in names if "locales" in n)
    assert not [n for n in names if n.endswith(".po")]  # compiled, not the sources

    # A fresh environment with the wheel (and Babel, which the loader imports), run from a
    # folder that is not the checkout.
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    env_python = env_dir / "bin" / "python"
    run(env_python, "-m", "pip", "install", "-q", "--no-deps", wheel, cwd=tmp_path)
    babel = Path(__import__("babel").__file__).parent.parent  # the dev venv's Babel
    (env_dir / "lib").joinpath(
        f"python{sys.version_info.major}.{sys.version_info.minor}", "site-packages", "babel.pth"
    ).write_text(f"{babel}\n")
    code = (
        "import logging, bot, bot.i18n as i\n"
        "logging.basicConfig()\n"
        "print(bot.__file__)\n"
        "print(i.get_translator('ru')._('how to play with me'))\n"
        "print(i.get_translator('ja')._('how to play with me'))\n"
    )
    where, russian, japanese = run(env_python, "-c", code, cwd=tmp_path).splitlines()
    assert Path(where).is_relative_to(env_dir), where  # the installed package, not the checkout
    assert russian == "как со мной играть"
    assert japanese == "遊び方"

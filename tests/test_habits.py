"""House habits that no linter rule checks (issue 24): one layout, written by ``ruff format``.

``.ci/run`` runs ``ruff format --check .``; a formatter comment that skips a line or turns the
formatter off would let a file keep a layout of its own past that check, so none may come back.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUPPRESSION = re.compile(r"#\s*fmt:\s*(skip|off)\b")


def _python_files() -> list[Path]:
    if not (ROOT / ".git").exists():  # an unpacked sdist: every file in it is the tree's
        return sorted(ROOT.rglob("*.py"))
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / name for name in listed if (ROOT / name).is_file()]


def test_no_file_keeps_a_layout_of_its_own() -> None:
    files = _python_files()
    assert len(files) > 300  # the tree, not an empty listing
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SUPPRESSION.search(line)
    ]
    assert found == [], "remove the comment and run ruff format"

"""How often a writer fails to open a new SQLite bench history that other processes open at the
same moment: ROUNDS rounds of 8 processes, each opening one fresh file for writing (the first
append's session, which switches the file to write-ahead logging), counted by outcome.

Usage::

    python benchmarks/history_create_race.py [--rounds 75] [--root CHECKOUT]

``--root`` runs another checkout's history code (a ``git worktree`` of an older commit) in the
same processes' place, for a before/after pair on this host. The race is rare: compare
hundreds of sessions, not tens.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_WRITER = r"""
import sys
sys.path.insert(0, {root!r})
from accelerators.bench.history._deadline import Deadline
from accelerators.bench.history._sqlite import SqliteStore
with SqliteStore({path!r})._session(Deadline(5.0), write=True):
    pass
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=75)
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    outcomes: Counter[str] = Counter()
    for _ in range(args.rounds):
        path = Path(tempfile.mkdtemp()) / "history.sqlite"
        code = _WRITER.format(root=str(args.root), path=str(path))
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(8)
        ]
        for proc in procs:
            _, err = proc.communicate(timeout=60)
            outcomes["locked" if "locked" in err else "failed" if proc.returncode else "ok"] += 1
    total = sum(outcomes.values())
    print(
        f"{args.root}: {total} sessions, {outcomes['locked']} 'database is locked', "
        f"{outcomes['failed']} other failures, {outcomes['ok']} ok"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Performance: what reading a name costs, by step and by outcome, side by side in one process.

Every distinct name of every corpus in ``tests/peer_names/`` (about 10,000 names that other
systems write) is read once to split them into names the reader reads and names it refuses;
then rounds alternate the steps, so a noisy host slows each alike:

* ``commas``: :func:`accelerators.catalog._commas.descriptive_commas` alone (the step that
  decides whether a name's commas only qualify one board), on the text the parser gives it,
  over every name and over the names that have a comma;
* ``cold``: ``AcceleratorSpec.parse`` with the reader's memos emptied first, as a fresh
  process (a DAG processor's) reads names it has not read before;
* ``warm``: the same names again, with the memos the cold round filled;
* ``suggest``: the close matches a refusal suggests, :func:`accelerators.errors.close_matches`
  of each refused name against the catalog's 2,400 spellings, beside ``difflib``: the
  standard library's ``get_close_matches`` over the same spellings, which gives the same
  matches (``tests/test_close_matches.py``) and which ``close_matches`` called until
  2026-11-29.

It prints each step's median cost per name, for read and refused names apart (a refusal
searches the catalog's spellings for close matches to suggest), the share of a cold read
that ``commas`` takes and how much faster ``suggest`` is than ``difflib`` (paired by round).
``--scale`` then reads 10^3..10^N distinct names made from the read ones (each with a count
prefix, ``"<i> x <name>"``), cold, and prints the cost per name and the size of the reader's
memo after: it is bounded (4,096 results), so reading a fleet's names grows neither the
time per name nor the memory held.

Usage::

    python benchmarks/name_cost.py --rounds 3 --scale 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _host import describe_host

_CORPORA = Path(__file__).resolve().parent.parent / "tests" / "peer_names"


def corpus_names() -> list[str]:
    """Every distinct name of every corpus file (taught, held-out and every fresh part)."""
    names: dict[str, None] = {}
    for path in sorted(_CORPORA.rglob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                names.setdefault(line.split("\t", 1)[0], None)
    return list(names)


def _forget() -> None:
    """Empty the reader's memo of results (not the catalog or its index: a process keeps
    those)."""
    from accelerators.catalog import _spellings

    _spellings.current_index(complete=False).results.clear()


def _read_all(names: list[str]) -> float:
    from accelerators import AcceleratorSpec
    from accelerators.errors import AcceleratorError

    start = time.perf_counter()
    for name in names:
        try:  # noqa: SIM105 (contextlib.suppress would add its own cost to every timed read)
            AcceleratorSpec.parse(name)
        except AcceleratorError:
            pass
    return time.perf_counter() - start


def _commas_all(names: list[str]) -> float:
    from accelerators._text import plain_typography
    from accelerators.catalog._commas import descriptive_commas

    texts = [plain_typography(name) for name in names]
    start = time.perf_counter()
    for text in texts:
        descriptive_commas(text)
    return time.perf_counter() - start


def _suggest_all(names: list[str], spellings: list[str]) -> float:
    from accelerators.errors import close_matches

    start = time.perf_counter()
    for name in names:
        close_matches(name, spellings)
    return time.perf_counter() - start


def _difflib_all(names: list[str], spellings: list[str]) -> float:
    import difflib

    start = time.perf_counter()
    folded = list(dict.fromkeys(s.casefold() for s in spellings))  # as close_matches keys them
    for name in names:
        difflib.get_close_matches(name.casefold(), folded, n=3, cutoff=0.6)
    return time.perf_counter() - start


def _per_name(seconds: list[float], n: int) -> str:
    us = [1e6 * s / n for s in seconds]
    return f"median {statistics.median(us):7.1f} us/name [{min(us):.1f}, {max(us):.1f}]"


def _refused(name: str) -> bool:
    from accelerators import AcceleratorSpec
    from accelerators.errors import AcceleratorError

    try:
        AcceleratorSpec.parse(name)
    except AcceleratorError:
        return True
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scale", type=int, default=5, help="largest power of ten to read")
    args = parser.parse_args(argv)
    print(describe_host())
    from accelerators import catalog
    from accelerators.catalog import _spellings

    catalog.all()  # the catalog and its index load once per process, outside every timing
    names = corpus_names()
    _forget()
    refused = [name for name in names if _refused(name)]  # builds the index's lazy parts too
    read = [name for name in names if name not in set(refused)]
    with_commas = [name for name in names if "," in name]
    groups = {"read": read, "refused": refused}
    commas: dict[str, list[float]] = {"every name": [], "with a comma": []}
    cold: dict[str, list[float]] = {k: [] for k in groups}
    warm: dict[str, list[float]] = {k: [] for k in groups}
    spellings = list(_spellings.current_index().displays)
    sample = refused[:: max(1, len(refused) // 500)]  # difflib takes ~7 ms a name
    suggest: list[float] = []
    reference: list[float] = []
    for _ in range(args.rounds):
        suggest.append(_suggest_all(sample, spellings))
        reference.append(_difflib_all(sample, spellings))
        commas["every name"].append(_commas_all(names))
        commas["with a comma"].append(_commas_all(with_commas))
        for label, group in groups.items():
            _forget()
            cold[label].append(_read_all(group))
            warm[label].append(_read_all(group))
    print(
        f"{len(names)} distinct corpus names ({len(read)} read, {len(refused)} refused, "
        f"{len(with_commas)} with a comma), {args.rounds} rounds"
    )
    for label, group in (("every name", names), ("with a comma", with_commas)):
        print(f"  commas, {label:12} {_per_name(commas[label], len(group))}")
    for label, group in groups.items():
        print(f"  cold, {label:18} {_per_name(cold[label], len(group))}")
        print(f"  warm, {label:18} {_per_name(warm[label], len(group))}")
    shares = [
        c / (r + f)
        for c, r, f in zip(commas["every name"], cold["read"], cold["refused"], strict=True)
    ]
    print(
        f"  commas / cold read of every name: median {statistics.median(shares):.4f} "
        f"[{min(shares):.4f}, {max(shares):.4f}] (paired by round)"
    )
    print(f"  suggest, {len(sample)} refused names  {_per_name(suggest, len(sample))}")
    print(f"  difflib, {len(sample)} refused names  {_per_name(reference, len(sample))}")
    speedups = [r / f for f, r in zip(suggest, reference, strict=True)]
    print(
        f"  difflib / suggest: median {statistics.median(speedups):.1f}x "
        f"[{min(speedups):.1f}, {max(speedups):.1f}] (paired by round)"
    )
    print("distinct names read cold, each once (counts prefixed to the names read):")
    for power in range(3, args.scale + 1):
        n = 10**power
        made = [f"{1 + i // len(read)} x {read[i % len(read)]}" for i in range(n)]
        _forget()
        seconds = _read_all(made)
        results = len(_spellings.current_index(complete=False).results)
        print(f"  10^{power}: {1e6 * seconds / n:7.1f} us/name; memo after: {results} results")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What two other reading rules would trade on the peer-name corpora, measured side by side with
the reader as it is (issue 32: why a reader of single names falls short of its goals).

1. *Refuse every name that states no count in a ``mixed`` list* (a bare device name there may
   stand for a node): the rows that would turn from right to refused, and the silently wrong
   ones (counts among them) that would turn refused.
2. *Read a word the reader cannot place in a ``node`` or ``mixed`` list as the system's own*
   (today it may name the machine, and the name is refused): of those refused rows, how many
   would read right and how many silently wrong, each read as one device.

Usage::

    python benchmarks/peer_names_tradeoffs.py

No rule here is the reader's: each is a what-if, run on the rows through
``benchmarks/peer_names.py``'s own scoring.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peer_names  # this folder's benchmark: its loader and scoring


def main() -> int:
    from accelerators import AcceleratorSpec
    from accelerators.errors import AcceleratorError, CountNotStatedError

    rows = [
        row
        for _, parts in peer_names._CORPORA.values()
        for _, directory in parts
        for row in peer_names.load(directory)
    ]
    refused_right = refused_wrong = refused_counts = 0
    read_as_device: Counter[str] = Counter()
    for row in rows:
        outcome = peer_names.evaluate(row)
        if row.denotes == "mixed":
            try:
                AcceleratorSpec.parse(row.name, denotes="node")
            except CountNotStatedError:
                if outcome.status == "resolved" and not row.refuse:
                    refused_right += 1
                elif outcome.status == "wrong":
                    refused_wrong += 1
                    refused_counts += "has count" in outcome.detail
            except AcceleratorError:
                pass
        if outcome.status == "unknown" and "where names may be" in outcome.detail:
            read_as_device[peer_names.evaluate(row, as_devices=True).status] += 1
    print(f"{len(rows):,} rows in all corpora")
    print(
        "1. refuse names that state no count in 'mixed' lists: "
        f"{refused_right:,} right readings refused, {refused_wrong} silently wrong refused "
        f"({refused_counts} of them counts)"
    )
    total = sum(read_as_device.values())
    print(
        f"2. read unplaced words in 'node'/'mixed' lists as the system's ({total} rows): "
        f"{read_as_device['resolved']} would read right, {read_as_device['wrong']} silently "
        f"wrong, {read_as_device['unknown']} still refused"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

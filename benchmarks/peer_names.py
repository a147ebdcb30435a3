"""Share of the names other systems accept that ``AcceleratorSpec.parse`` reads correctly.

Reads the corpora in ``tests/peer_names/*.tsv`` (one per system, written from each system's
public sources; see the README there) and parses every name. A row counts as resolved when
the spec's accelerator is of the expected model, with the expected device count and (where
the row gives one) partition. A device written ``A|B|C`` is a name for a choice of models
(Modal's ``any``, Ray's ``aws-neuron-core``): the spec's alternatives must be exactly those
models, in that order. Rows whose device is ``-`` name accelerators this catalog does
not carry: they count as misses, and must raise ``UnknownAcceleratorError``. A name that
resolves to another device or count is *wrong*: the worst outcome, listed separately.

Usage::

    python benchmarks/peer_names.py [--verbose] [--json results.json]

It prints, per system, the resolved share, the misses and the wrong answers.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT / "tests" / "peer_names"
TARGET = 0.95


@dataclass(frozen=True)
class Row:
    system: str
    name: str
    device: str | None  # None: not in this catalog
    count: float
    partition: str | None


@dataclass(frozen=True)
class Outcome:
    row: Row
    status: str  # "resolved", "unknown" (our error, a miss), "wrong", "error" (other exception)
    detail: str


def load(directory: Path = CORPORA) -> list[Row]:
    """Every row of every corpus, in file order."""
    rows = []
    for path in sorted(directory.glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            name, device, count, partition = line.split("\t")
            rows.append(
                Row(
                    path.stem,
                    name,
                    None if device == "-" else device,
                    float(count),
                    None if partition == "-" else partition,
                )
            )
    return rows


def evaluate(row: Row) -> Outcome:
    """Parse one name and compare it with what its system means."""
    from accelerators import AcceleratorSpec, catalog
    from accelerators.errors import AcceleratorError, UnknownAcceleratorError

    try:
        spec = AcceleratorSpec.parse(row.name)
    except UnknownAcceleratorError as exc:
        return Outcome(row, "unknown", str(exc).splitlines()[0])
    except AcceleratorError as exc:
        kind = "unknown" if row.device is None else "error"
        return Outcome(row, kind, f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
    if row.device is None:
        return Outcome(row, "wrong", f"resolved to {spec}, which this catalog should not claim")
    wanted = [catalog.get(device).model for device in row.device.split("|")]
    got = [alt.accelerator.model if alt.accelerator else None for alt in spec.alternatives]
    if got != wanted:
        return Outcome(row, "wrong", f"{spec} is not {' | '.join(wanted)}")
    if any(alt.count != row.count for alt in spec.alternatives):
        return Outcome(row, "wrong", f"{spec} has count {spec.count}, expected {row.count:g}")
    if spec.shared != (row.partition == "shared"):
        return Outcome(row, "wrong", f"{spec} is {'' if spec.shared else 'not '}a shared slot")
    if row.partition not in (None, "shared") and spec.partition != row.partition:
        detail = f"{spec} has partition {spec.partition}, expected {row.partition}"
        return Outcome(row, "wrong", detail)
    return Outcome(row, "resolved", str(spec))


def summarise(outcomes: list[Outcome]) -> dict[str, dict[str, object]]:
    """Per system: rows, resolved share, and the names missed or wrong."""
    out: dict[str, dict[str, object]] = {}
    for system in dict.fromkeys(o.row.system for o in outcomes):
        mine = [o for o in outcomes if o.row.system == system]
        resolved = sum(o.status == "resolved" for o in mine)
        out[system] = {
            "rows": len(mine),
            "resolved": resolved,
            "share": resolved / len(mine),
            "missed": [o.row.name for o in mine if o.status == "unknown"],
            "wrong": [f"{o.row.name}: {o.detail}" for o in mine if o.status in ("wrong", "error")],
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="print every row")
    parser.add_argument("--json", type=Path, help="write the per-row outcomes here")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    outcomes = [evaluate(row) for row in load()]
    summary = summarise(outcomes)
    total = len(outcomes)
    resolved = sum(o.status == "resolved" for o in outcomes)
    print(f"{'system':<10} {'rows':>5} {'resolved':>9} {'share':>7}  missed / wrong")
    for system, s in summary.items():
        missed = ", ".join(s["missed"]) or "-"  # type: ignore[arg-type]
        print(f"{system:<10} {s['rows']:>5} {s['resolved']:>9} {s['share']:>7.1%}  {missed}")
        for wrong in s["wrong"]:  # type: ignore[attr-defined]
            print(f"{'':<35}WRONG {wrong}")
    print(f"{'all':<10} {total:>5} {resolved:>9} {resolved / total:>7.1%}  (target {TARGET:.0%})")
    if args.verbose:
        for o in outcomes:
            print(f"  {o.row.system:<10} {o.status:<9} {o.row.name!r:<32} {o.detail}")
    if args.json:
        args.json.write_text(
            json.dumps({"summary": summary, "rows": [asdict(o) for o in outcomes]}, indent=2)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Performance: loading the catalog with and without the parsed-data cache, side by side.

Each sample is a fresh interpreter that has imported pydantic and ``accelerators.catalog``
(as Airflow's DAG processor and flytekit have) and then times ``catalog.all()``: reading,
validating and indexing ``accelerators/data/catalog.toml``. ``toml`` runs with
``ACCELERATORS_CACHE_DIR=off`` (tomllib parses the file), ``cached`` with a warm cache folder
(the JSON copy, ``accelerators/_datafiles.py``). The two alternate, ``--rounds`` times, and
the script prints both medians and their ratio.

Usage::

    python benchmarks/catalog_load.py --rounds 9
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

_PROBE = """
import time, pydantic
from accelerators import catalog
from accelerators.catalog import _schema
t = time.perf_counter()
catalog.all()
print(time.perf_counter() - t)
"""


def _sample(cache: str) -> float:
    env = {**os.environ, "ACCELERATORS_CACHE_DIR": cache}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        _sample(folder)  # fill the cache
        toml, cached = [], []
        for _ in range(args.rounds):
            toml.append(_sample("off"))
            cached.append(_sample(folder))
    for label, times in (("toml", toml), ("cached", cached)):
        print(
            f"{label:7} median {1e3 * statistics.median(times):6.1f} ms  "
            f"[{1e3 * min(times):.1f}, {1e3 * max(times):.1f}] over {len(times)} runs"
        )
    ratios = [c / t for c, t in zip(cached, toml, strict=True)]
    print(
        f"cached / toml: median {statistics.median(ratios):.3f} "
        f"[{min(ratios):.3f}, {max(ratios):.3f}] (paired by round)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The largest-node table is kept in the data-file cache and read back identical, so that a
fresh process (an Airflow DAG parse) does not validate the instance table to check a count;
a damaged entry is rebuilt (issue 28, item 11)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from accelerators.catalog import _node_sizes

CODE = """
import json, sys
from accelerators.catalog import _node_sizes
table = _node_sizes._largest_by_entry()
print(json.dumps({
    "validated": "accelerators.catalog._instances" in sys.modules,
    "table": {sku: {str(c): list(n) for c, n in by.items()} for sku, by in table.items()},
}))
"""


def _fresh(cache: Path) -> dict[str, object]:
    env = dict(os.environ, ACCELERATORS_CACHE_DIR=str(cache))
    done = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, env=env, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_fresh_process_reads_the_table_without_the_instance_table(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first, second = _fresh(cache), _fresh(cache)
    assert first["validated"]  # built from the instance table, then stored
    assert not second["validated"]  # read back: the instance table is not even imported
    assert first["table"] == second["table"]
    built = {
        sku: {str(c): list(n) for c, n in by.items()} for sku, by in _node_sizes._build().items()
    }
    assert second["table"] == built
    [entry] = cache.glob("node-sizes.*.bin")
    entry.write_bytes(entry.read_bytes()[:-5])  # damaged: fails its checksum, rebuilt
    third = _fresh(cache)
    assert third["validated"]
    assert third["table"] == built

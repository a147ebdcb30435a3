"""Every Python example in docs/flyte.md and the README runs, passes the linter, and lands
where its spec says (through the placement oracle), with its device."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import placement_oracle as oracle
import pytest
from flyte_helpers import SETTINGS
from flytekit.core.workflow import WorkflowBase
from flytekitplugins.accelerators import check

ROOT = Path(__file__).resolve().parents[3]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
_FLYTEKIT = re.compile(r"^from flytekit[ .]", re.M)


def _examples(page: str) -> list[tuple[str, str]]:
    text = (ROOT / page).read_text(encoding="utf-8")
    blocks = [b for b in _BLOCK.findall(text) if "import flyte" in b or "from flytekit" in b]
    return [(f"{Path(page).stem}_{i}", b) for i, b in enumerate(blocks)]


FLYTEKIT = [
    e for page in ("docs/flyte.md", "README.md") for e in _examples(page) if _FLYTEKIT.search(e[1])
]
FLYTE2 = [e for e in _examples("docs/flyte.md") if not _FLYTEKIT.search(e[1])]


def _load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, code: str) -> ModuleType:
    (tmp_path / f"{name}.py").write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    return importlib.import_module(name)


def test_the_pages_have_examples() -> None:
    assert len(FLYTEKIT) >= 2  # docs/flyte.md's patterns and the README's quickstart
    assert len(FLYTE2) == 1


@pytest.mark.parametrize(("name", "code"), FLYTEKIT, ids=[n for n, _ in FLYTEKIT])
def test_flytekit_examples_pass_the_linter_and_the_oracle(
    name: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = _load(tmp_path, monkeypatch, f"doc_{name}", code)
    workflows = [v for v in vars(module).values() if isinstance(v, WorkflowBase)]
    assert workflows, f"{name} defines no workflow"
    for workflow in workflows:
        assert check(workflow) == [], workflow.name
        for task_name, pod in oracle.registered(workflow, SETTINGS).pods():
            _lands_where_its_spec_says(task_name, pod)


def _lands_where_its_spec_says(task_name: str, pod: dict[str, Any]) -> None:
    nodes = oracle.lands_on(pod)
    assert nodes, f"{task_name}: schedulable nowhere: {oracle.schedule(pod)}"
    placed = oracle.env(pod).get("ACCELERATORS_PLACED_SPEC")
    if not oracle.device_request(pod):
        assert placed is None, task_name
        assert nodes == ["cpu"], (task_name, nodes)
        return
    assert isinstance(placed, str), task_name
    for node in nodes:
        assert oracle.gate_accepts(placed, oracle.NODES[node]), (task_name, placed, node)


@pytest.mark.parametrize(("name", "code"), FLYTE2, ids=[n for n, _ in FLYTE2])
def test_flyte2_example_runs_locally(
    name: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch", reason="the gate needs torch (the [bench] extra)")
    import flyte

    module = _load(tmp_path, monkeypatch, f"doc_{name}", code)
    flyte.init()
    run = flyte.with_runcontext(mode="local").run(module.pipeline, epochs=2)
    outputs = run.outputs()
    assert (outputs[0] if isinstance(outputs, tuple) else outputs) == 0.0

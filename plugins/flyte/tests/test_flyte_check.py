"""The workflow linter flags each mistake with the task's name, passes the templates, and
``accelerators flyte check FILE`` exits 1 on findings, 0 on none, 2 on bad input."""

from __future__ import annotations

from pathlib import Path

import flyte_lint_cases as cases
import pytest
from flytekitplugins.accelerators import check, check_file
from typer.testing import CliRunner

from accelerators import AcceleratorError
from accelerators.cli import build_app

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = sorted((ROOT / "dags").glob("flyte_*.py"))


def _codes(entity: object) -> list[tuple[str, str]]:
    return [(f.task.rsplit(".", 1)[-1], f.code) for f in check(entity)]


@pytest.mark.parametrize(
    ("workflow", "expected"),
    [
        (
            cases.wf_no_gpu_count,
            [
                ("no_gpu_count", "no-gpu-count"),
                ("no_gpu_count", "whole-or-slice"),
                ("no_gpu_count", "no-gate"),
            ],
        ),
        (cases.wf_two_mig_slices, [("two_mig_slices", "placement"), ("two_mig_slices", "no-gate")]),
        (
            cases.wf_missing_partition,
            [("missing_partition", "unknown-partition"), ("missing_partition", "no-gate")],
        ),
        (
            cases.wf_tpu_wrong_chips,
            [
                ("tpu_wrong_chips", "device-class"),
                ("tpu_wrong_chips", "placement"),
                ("tpu_wrong_chips", "no-gate"),
            ],
        ),
        (
            cases.wf_unknown_device,
            [("unknown_device", "unknown-device"), ("unknown_device", "no-gate")],
        ),
        (cases.wf_ungated, [("ungated", "no-gate")]),
        (cases.wf_sub, [("ungated", "no-gate")]),  # found inside a sub-workflow
        # a task that gates itself is fine; one after a gate node must be pinned to its node
        (cases.wf_gated, [("after_gate", "unpinned-gate")]),
        (
            cases.wf_gate_on_another_spec,
            [("h100x8", "gate-mismatch"), ("h100x8", "unpinned-gate")],
        ),
        (
            cases.wf_override_reset_by_a_later_call,
            [("flytekit_style_h100", "stale-accelerator"), ("flytekit_style_h100", "no-gate")],
        ),
        (
            cases.wf_dropped_device,
            [("amd_template_with_cpu", "dropped-device"), ("amd_template_with_cpu", "no-gate")],
        ),
        (
            cases.wf_override_device_dropped,
            [("cpu_task", "dropped-device"), ("cpu_task", "no-gate")],
        ),
        (cases.wf_gated_moved_without_task_args, [("gated_h100x8", "gate-mismatch")]),
        (cases.wf_gated_moved_with_task_args, []),
        (cases.wf_tpu_ungated, [("tpu_task", "no-gate")]),
    ],
)
def test_each_mistake_is_flagged_with_the_tasks_name(
    workflow: object, expected: list[tuple[str, str]]
) -> None:
    assert _codes(workflow) == expected


def test_messages_say_what_is_wrong() -> None:
    [mig, _] = check(cases.wf_two_mig_slices)
    assert "only one MIG device" in mig.message
    [partition, _] = check(cases.wf_missing_partition)
    assert "has no MIG profile '1g.20gb'" in partition.message
    [_, chips, _] = check(cases.wf_tpu_wrong_chips)
    assert "3 chips per pod does not fit a 2x2x2 slice" in chips.message
    [count, whole, _] = check(cases.wf_no_gpu_count)
    assert str(count).startswith("flyte_lint_cases.no_gpu_count (node n0): [no-gpu-count]")
    assert "may land on a MIG slice" in whole.message
    [mismatch, unpinned] = check(cases.wf_gate_on_another_spec)
    assert "the gate upstream checks T4 but this GPU task runs on H100-SXM:8" in mismatch.message
    assert "pinned(spec, result)" in unpinned.message
    [stale, _] = check(cases.wf_override_reset_by_a_later_call)
    assert "keeps the task's accelerator 'nvidia-h100'" in stale.message
    [dropped, _] = check(cases.wf_dropped_device)
    assert "asks for amd.com/gpu: 8" in dropped.message
    assert "the pod gets no device" in dropped.message
    [moved] = check(cases.wf_gated_moved_without_task_args)
    assert (
        "the in-pod gate checks H100-SXM:8 but the node places the pod on H200-SXM@whole:8"
        in moved.message
    )
    [tpu] = check(cases.wf_tpu_ungated)
    assert tpu.message.startswith("a TPU task with no benchmark gate")
    assert check(cases.whole_h100, require_gate=False) == []


def test_a_single_task_can_be_checked() -> None:
    assert [f.code for f in check(cases.no_gpu_count)] == [
        "no-gpu-count",
        "whole-or-slice",
        "no-gate",
    ]
    assert check(cases.ungated, require_gate=False) == []
    with pytest.raises(AcceleratorError, match="Expected a flytekit workflow or task"):
        check("not a workflow")


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.name)
def test_templates_pass(path: Path) -> None:
    results = check_file(str(path))
    assert results
    assert all(findings == [] for findings in results.values())


def test_check_file_names_tasks_as_registration_does(tmp_path: Path) -> None:
    module = tmp_path / "team_pipeline.py"
    module.write_text(
        "from flytekit import task, workflow\n"
        "from flytekitplugins.accelerators import task_args\n"
        "@task(**task_args('L4'))\n"
        "def infer() -> None: ...\n"
        "@workflow\n"
        "def wf() -> None:\n"
        "    infer()\n"
    )
    [finding] = check_file(str(module))["wf"]
    assert finding.task == "team_pipeline.infer"  # no internal prefix


def test_cli_exit_codes() -> None:
    runner = CliRunner()
    app = build_app()
    clean = runner.invoke(app, ["flyte", "check", str(TEMPLATES[0])])
    assert clean.exit_code == 0, clean.output
    assert "0 finding(s)" in clean.output
    dirty = runner.invoke(app, ["flyte", "check", cases.__file__])
    assert dirty.exit_code == 1
    assert "[no-gpu-count]" in dirty.output
    assert "wf_gated_moved_with_task_args: 0 finding(s)" in dirty.output
    bad = runner.invoke(app, ["flyte", "check", "no/such/file.py"])
    assert bad.exit_code == 2


def test_node_overrides_are_read() -> None:
    # the count given on the node satisfies the task's accelerator; an accelerator given on
    # the node without a count is flagged
    assert [f.code for f in check(cases.wf_count_on_node)] == ["whole-or-slice", "no-gate"]
    assert [f.code for f in check(cases.wf_accelerator_on_node)] == ["no-gpu-count", "no-gate"]

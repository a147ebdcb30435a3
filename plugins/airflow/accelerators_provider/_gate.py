"""The gate's Airflow side: run it in the worker, publish the report, remember failed nodes."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from accelerators import AcceleratorError

if TYPE_CHECKING:
    from accelerators.bench import BenchReport

__all__ = [
    "FAILED_NODES_KEY",
    "GATE_REPORT_PATH",
    "LOCAL_RUN_PARAM",
    "gate_command",
    "local_run",
    "publish",
    "record_failed_node",
    "render_report",
    "run_in_process",
]

#: Where KubernetesPodOperator's XCom sidecar reads the task's return value.
GATE_REPORT_PATH = "/airflow/xcom/return.json"
#: The DAG param that turns every gate of a run into a local health check.
LOCAL_RUN_PARAM = "local_run"
#: Task state store key (kept across retries, cleared on success) of nodes that failed.
FAILED_NODES_KEY = "accelerators_failed_nodes"


def local_run(context: Any) -> bool:
    """True when the run's DAG param ``local_run`` is set: gates check health only.

    :raises AcceleratorError: ``local_run`` inside a Kubernetes pod, where the device must be
        checked against the spec.
    """
    params = context.get("params") or {}
    value = params.get(LOCAL_RUN_PARAM, False) if hasattr(params, "get") else False
    if value in (None, False, "", "false", "False", 0):
        return False
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        raise AcceleratorError(
            f"DAG param {LOCAL_RUN_PARAM}={value!r} in a Kubernetes pod: local runs skip the "
            "accelerator check, which a cluster run must not; unset it"
        )
    return True


def gate_command(expect: str | None, profile: str, *, json_path: str | None) -> list[str]:
    """The ``accelerators bench`` command line of a gate pod."""
    command = ["accelerators", "bench", "--profile", str(profile)]
    if expect:
        command += ["--expect", expect]
    if json_path:
        command += ["--json", json_path]
    return command


def run_in_process(
    expect: str | None, profile: str, context: Any, *, log: logging.Logger | Any
) -> BenchReport:
    """Run the gate in this process; on a failed gate log and record it, then re-raise."""
    from accelerators.bench import AcceleratorGateError, gate

    try:
        return gate(expect=expect, profile=profile)
    except AcceleratorGateError as error:
        log.error("%s", render_report(error.report))
        context["ti"].xcom_push(key="report", value=error.report.model_dump(mode="json"))
        if error.report.node:
            record_failed_node(context, error.report.node)
        raise


def record_failed_node(context: Any, node: str) -> None:
    """Add ``node`` to the task's failed nodes, which its retries avoid."""
    store = context.get("task_state_store")
    if store is None:
        return
    nodes = store.get(FAILED_NODES_KEY, [])
    nodes = list(nodes) if isinstance(nodes, list) else []
    if node not in nodes:
        store.set(FAILED_NODES_KEY, [*nodes, node])


def publish(context: Any, report: BenchReport, *, log: logging.Logger | Any) -> None:
    """XCom ``node`` (for pinning) and ``report_html`` (the core's self-contained page: tables
    and the roofline, for a UI or a mail), and the report as a table in the log."""
    from accelerators.bench import html_report

    log.info("%s", render_report(report))
    ti = context["ti"]
    ti.xcom_push(key="node", value=report.node)
    ti.xcom_push(key="report_html", value=html_report(report))
    if report.node is None:
        log.warning("The gate ran outside Kubernetes (no NODE_NAME): tasks pinned to it cannot run")


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _check(result: Any) -> str:
    if result.status != "measured":
        return str(result.status)
    return {True: "correct", False: "WRONG RESULT", None: "-"}[result.correct]


def render_report(report: BenchReport) -> str:
    """A plain-text table of ``report`` for the task log."""
    device = report.device
    what = device.accelerator or device.name
    lines = [
        f"Accelerator gate: {report.verdict.value.upper()}  ({report.profile}, "
        f"{report.elapsed_s:.1f} s)",
        f"  device   {device.count} x {what} [{device.kind}]"
        + (f" MIG {device.mig_profile}" if device.mig_profile else ""),
        f"  expected {report.expect or 'anything (health check only)'}"
        + (f"  matched {report.matched}" if report.matched else ""),
        f"  node     {report.node or '-'}  host {report.host}",
        f"  {'GEMM':<10}{'TFLOPS':>10}{'expected':>10}  check",
    ]
    for g in report.gemm:
        lines.append(
            f"  {g.dtype:<10}{_num(g.tflops, 2):>10}{_num(g.expected_tflops, 2):>10}  {_check(g)}"
        )
    lines.append(f"  {'memory':<10}{'GB/s':>10}{'expected':>10}  check")
    for m in report.memory:
        lines.append(f"  {m.kernel:<10}{_num(m.gbps):>10}{_num(m.expected_gbps):>10}  {_check(m)}")
    for reason in report.reasons:
        lines.append(f"  [{reason.severity.value}] {reason.code.value}: {reason.message}")
    return "\n".join(lines)

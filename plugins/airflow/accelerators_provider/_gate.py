"""The gate's Airflow side: run it in the worker, publish its summary, remember failed nodes.

A gate publishes, in XCom, its node (``node``, for pinning) and a compact summary of its
report (:func:`summarize`: verdict, device, what it matched, headline figures, reasons;
about 1-2 KB). The full report (tens of KB per device) is stored once, in the bench history
store the deployment names (``ACCELERATORS_BENCH_HISTORY``: an ``s3://`` prefix or a path),
which the summary names; the log gets a table of it. Nothing larger goes to XCom.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from accelerators import AcceleratorError
from accelerators.kubernetes import guard_problems
from accelerators_provider._errors import AcceleratorTaskError

if TYPE_CHECKING:
    from accelerators import SpecLike
    from accelerators.bench import BenchReport

__all__ = [
    "FAILED_NODES_KEY",
    "GATE_REPORT_PATH",
    "INLINE_REPORT_ENV",
    "INLINE_REPORT_PATH",
    "LOCAL_RUN_PARAM",
    "SUMMARY_KIND",
    "check_guard",
    "gate_command",
    "inline_env",
    "local_run",
    "publish",
    "record_failed_node",
    "render_report",
    "run_in_process",
    "summarize",
]

#: Where KubernetesPodOperator's XCom sidecar reads the task's return value.
GATE_REPORT_PATH = "/airflow/xcom/return.json"
#: Where an inline gate (``gate_mode="inline"``) writes its report in the pod, for the
#: command it then runs (also in the environment variable :data:`INLINE_REPORT_ENV`).
INLINE_REPORT_PATH = "/tmp/accelerators-gate.json"
INLINE_REPORT_ENV = "ACCELERATORS_GATE_REPORT"
#: The DAG param that turns every gate of a run into a local health check.
LOCAL_RUN_PARAM = "local_run"
#: Task state store key (kept across retries, cleared on success) of nodes that failed.
FAILED_NODES_KEY = "accelerators_failed_nodes"
#: The ``kind`` of a gate summary in XCom.
SUMMARY_KIND = "accelerators-gate-summary/1"
#: The environment variable naming the bench history store (``accelerators.bench``).
HISTORY_ENV = "ACCELERATORS_BENCH_HISTORY"

log = logging.getLogger(__name__)


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


def inline_env(env_vars: Any) -> list[Any]:
    """``env_vars`` (a dict or a list) as a list with ``NODE_NAME`` from the downward API and
    where an inline gate's report is (:data:`INLINE_REPORT_ENV`), for its pod."""
    from airflow.providers.cncf.kubernetes.backcompat.backwards_compat_converters import (
        convert_env_vars_or_raise_error,
    )
    from kubernetes.client import models as k8s

    env = list(convert_env_vars_or_raise_error(env_vars) if env_vars else [])
    names = {getattr(e, "name", None) for e in env}
    if "NODE_NAME" not in names:
        field = k8s.V1ObjectFieldSelector(field_path="spec.nodeName")
        env.append(k8s.V1EnvVar(name="NODE_NAME", value_from=k8s.V1EnvVarSource(field_ref=field)))
    if INLINE_REPORT_ENV not in names:
        env.append(k8s.V1EnvVar(name=INLINE_REPORT_ENV, value=INLINE_REPORT_PATH))
    return env


def run_in_process(
    expect: str | None, profile: str, context: Any, *, log: logging.Logger | Any
) -> BenchReport:
    """Run the gate in this process; on a failed gate publish and record it, then re-raise."""
    from accelerators.bench import AcceleratorGateError, gate

    try:
        return gate(expect=expect, profile=profile)
    except AcceleratorGateError as error:
        publish(context, error.report, log=log, history=os.environ.get(HISTORY_ENV))
        if error.report.node:
            record_failed_node(context, error.report.node, log=log)
        raise


_warned_no_store: list[bool] = []


def record_failed_node(context: Any, node: str, *, log: logging.Logger | Any = log) -> None:
    """Add ``node`` to the task's failed nodes, which its retries avoid.

    The task state store is Airflow 3.3's; on an older Airflow there is none, retries cannot
    be kept off the node, and the log says so.
    """
    store = context.get("task_state_store")
    if store is None:
        log.warning(
            "Node %s failed the gate, but this Airflow has no task state store (Airflow >= "
            "3.3): a retry of this task may land on the same node",
            node,
        )
        return
    nodes = store.get(FAILED_NODES_KEY, [])
    nodes = list(nodes) if isinstance(nodes, list) else []
    if node not in nodes:
        store.set(FAILED_NODES_KEY, [*nodes, node])


def failed_nodes(context: Any, *, log: logging.Logger | Any = log) -> list[str]:
    """The nodes earlier tries of this task failed on (empty without a task state store)."""
    store = context.get("task_state_store") if context is not None else None
    if store is None:
        if context is not None and not _warned_no_store:
            _warned_no_store.append(True)
            log.info(
                "Retry avoidance is unavailable: this Airflow has no task state store (it "
                "needs Airflow >= 3.3), so a retried gate is not kept off nodes that failed"
            )
        return []
    nodes = store.get(FAILED_NODES_KEY, [])
    return [str(n) for n in nodes] if isinstance(nodes, list) else []


def _check(result: Any) -> str:
    if result.status != "measured":
        return str(result.status)
    return {True: "correct", False: "WRONG RESULT", None: "-"}[result.correct]


def summarize(
    report: BenchReport, *, history: str | None = None, asked: str | None = None
) -> dict[str, Any]:
    """The report in a few fields, for XCom: what every task after the gate needs.

    ``headline`` comes first: the verdict in one line, saying what was checked
    (:func:`accelerators.bench.gate_headline`): ``not checked: this machine has no H100:8``
    after a local run, whose verdict is only about the health of what was there.

    :param history: where the full report is stored (the bench history location), if any.
    :param asked: the spec the gate stands for, when it ran without it (``local_run``).
    """
    from accelerators.bench import gate_headline

    return {
        "headline": gate_headline(report, asked=asked),
        "kind": SUMMARY_KIND,
        "verdict": report.verdict.value,
        "profile": report.profile,
        "expect": report.expect,
        "matched": report.matched,
        "node": report.node,
        "host": report.host,
        "started_at": report.started_at.isoformat(),  # a BenchReport always has one
        "elapsed_s": round(report.elapsed_s, 2),
        "device": report.device.model_dump(mode="json"),
        "gemm": [
            {
                "dtype": g.dtype,
                "tflops": g.tflops,
                "expected_tflops": g.expected_tflops,
                "check": _check(g),
            }
            for g in report.gemm
        ],
        "memory": [
            {
                "kernel": m.kernel,
                "gbps": m.gbps,
                "expected_gbps": m.expected_gbps,
                "check": _check(m),
            }
            for m in report.memory
        ],
        "reasons": [
            {"severity": r.severity.value, "code": r.code.value, "message": r.message}
            for r in report.reasons
        ],
        "history": history,
    }


def publish(
    context: Any,
    report: BenchReport,
    *,
    log: logging.Logger | Any,
    history: str | None,
    asked: str | None = None,
) -> dict[str, Any]:
    """XCom ``node`` (for pinning) and ``report`` (the summary), and the report's table in
    the log; returns the summary. ``asked``: the spec a health-only (local) gate stands for."""
    log.info("%s", render_report(report, asked=asked))
    summary = summarize(report, history=history, asked=asked)
    ti = context["ti"]
    ti.xcom_push(key="node", value=report.node)
    ti.xcom_push(key="report", value=summary)
    if report.node is None:
        log.warning("The gate ran outside Kubernetes (no NODE_NAME): tasks pinned to it cannot run")
    if history:
        log.info("The full report is in the bench history %s", history)
    return summary


def check_guard(
    task: str, spec: SpecLike, gate_spec: SpecLike, *, gate: str | None, ran: bool
) -> None:
    """Raise when ``spec``, pinned to the node of gate ``gate`` that asks for (``ran=False``,
    at parse time) or matched (``ran=True``) ``gate_spec``, cannot run there as asked
    (:func:`accelerators.kubernetes.guard_problems`). After the gate ran the error is an
    :class:`AcceleratorTaskError`: no retry can change the node. ``spec`` and ``gate_spec``
    are specs or their canonical text.
    """
    if str(gate_spec) == str(spec):  # the same spec: nothing to check (and nothing to parse)
        return
    problems = guard_problems(gate_spec, spec)
    if problems:
        error = AcceleratorTaskError if ran else AcceleratorError
        raise error(
            f"task {task!r} ({spec}) is pinned to the node of gate {gate!r}, which "
            f"{'matched' if ran else 'asks for'} {gate_spec}, where it cannot run as asked: "
            f"{'; '.join(problems)}. Give the gate the task's accelerator (or a fallback chain "
            "the task accepts), or use gate_mode='inline'"
        )


def matched_spec(summary: Any) -> str | None:
    """The spec a gate's summary says its node has: the alternative it matched, else what it
    expected (``None`` for a health check or something that is not a summary)."""
    if not isinstance(summary, Mapping):
        return None
    value = summary.get("matched") or summary.get("expect")
    return str(value) if value else None


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def render_report(report: BenchReport, *, asked: str | None = None) -> str:
    """A plain-text table of ``report`` for the task log, under its headline."""
    from accelerators.bench import gate_headline

    device = report.device
    what = device.accelerator or device.name
    lines = [
        f"Accelerator gate: {gate_headline(report, asked=asked)}  ({report.profile}, "
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

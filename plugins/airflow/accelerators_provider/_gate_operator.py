"""``AcceleratorGateOperator``: the benchmark gate in a pod, sync or deferrable.

``KubernetesPodOperator`` runs a pod in one of two ways: ``execute`` waits for it in the
worker, or (``deferrable=True``, or ``[operators] default_deferrable``) ``execute`` creates it
and defers to the triggerer, and a new instance of the task resumes in ``trigger_reentry``.
Both read the pod's report through ``extract_xcom``; the gate keeps it there and, whichever
way the task ends, publishes it (XCom ``node`` and the summary, the log table) and, on a
failure, records the pod's node so that retries avoid it. A failed gate's report is kept:
``KubernetesPodOperator`` raises in its cleanup after reading it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kubernetes.client import models as k8s

from accelerators import AcceleratorError, AcceleratorSpec
from accelerators_provider import _pods
from accelerators_provider._errors import (
    annotate,
    fail_fast,
    failing_fast,
    require_cluster,
    step,
)
from accelerators_provider._gate import (
    GATE_REPORT_PATH,
    HISTORY_ENV,
    LOCAL_RUN_PARAM,
    failed_nodes,
    gate_command,
    local_run,
    publish,
    record_failed_node,
    run_in_process,
    summarize,
)
from accelerators_provider._pod_operator import AcceleratorPodOperator

if TYPE_CHECKING:
    from airflow.sdk import Context

    from accelerators import AcceleratorSpec, SpecLike
    from accelerators.bench import BenchReport

__all__ = ["AcceleratorGateOperator"]


def _truthy(value: Any, *, what: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off", "", "none"):
        return False
    raise AcceleratorError(f"{what}: expected true or false, got {value!r}")


class AcceleratorGateOperator(AcceleratorPodOperator):
    """The benchmark gate: ``accelerators bench`` in a pod on the accelerator.

    The pod runs ``accelerators bench --profile PROFILE --expect SPEC --json`` (the image needs
    ``accelerators[bench]``) with ``NODE_NAME`` from the downward API. The task's XCom
    ``return_value`` and ``report`` hold a summary of the report (verdict, device, what it
    matched, headline figures, reasons; where the full report is stored, if the pod has
    ``ACCELERATORS_BENCH_HISTORY``), XCom ``node`` its node, and the task log a table of it.
    A failed gate fails the task, keeping its report. Its node is remembered in the task's
    state store (Airflow >= 3.3), so a retry is kept off every node that failed
    (``kubernetes.io/hostname NotIn``). Guarded tasks (``gate=`` of
    :class:`AcceleratorPodOperator`) pin to ``node``. Deferrable mode works the same.

    :param accelerator: where the gate pod goes (templated).
    :param platform: the cluster's platform.
    :param expect: what the gate checks; default ``accelerator``. ``"none"`` checks no
        identity (health and speed of whatever is there; the log says that nothing was
        checked). ``"any"`` is the grammar's ``any`` (Modal's list of GPU classes), as in
        every spec and in the Flyte gate. Templated.
    :param profile: ``quick`` (default), ``standard`` or ``full``. Templated.
    :param in_process: run the gate in the worker instead of a pod (a worker on the
        accelerator: KubernetesExecutor with :func:`executor_config`, a Celery GPU queue).
        Templated.

    A run whose DAG param ``local_run`` is true (a ``dag.test()`` on a machine without the
    accelerator) runs the gate in the worker with no expectation: a health check of whatever
    is there, logged as such; inside a Kubernetes pod ``local_run`` is refused.
    :param kwargs: :class:`AcceleratorPodOperator` and ``KubernetesPodOperator`` arguments
        (``image`` must have ``accelerators[bench]``).
    """

    template_fields: Sequence[str] = (
        *AcceleratorPodOperator.template_fields,
        "expect",
        "profile",
        "in_process",
    )
    ui_color = "#f5d76e"

    def __init__(
        self,
        *,
        accelerator: SpecLike | None = None,
        platform: str | None = None,
        expect: SpecLike | None = None,
        profile: str = "quick",
        in_process: bool | str = False,
        **kwargs: Any,
    ) -> None:
        if kwargs.get("gate") is not None:
            raise AcceleratorError("A gate does not take gate=: it is the gate")
        kwargs.setdefault("name", "accelerator-gate")
        kwargs["do_xcom_push"] = True
        envs = list(kwargs.pop("pod_runtime_info_envs", None) or [])
        envs.append(
            k8s.V1EnvVar(
                name="NODE_NAME",
                value_from=k8s.V1EnvVarSource(
                    field_ref=k8s.V1ObjectFieldSelector(field_path="spec.nodeName")
                ),
            )
        )
        super().__init__(
            accelerator=accelerator, platform=platform, pod_runtime_info_envs=envs, **kwargs
        )
        self.expect = self.accelerator if expect is None else expect
        self.profile = profile
        self.in_process = in_process
        site: tuple[str, Any] = ("profile", profile)
        try:  # what is not templated is checked now, as the parent's arguments are
            _pods.check_profile(profile)
            site = ("expect", expect)
            if expect is not None and not _pods.is_template(expect):
                self._expect()
        except AcceleratorError as exc:
            raise fail_fast(annotate(exc, self.task_id, *site)) from None
        self._report: dict[str, Any] | None = None  # the pod's full report, once read
        self._finishing = False

    def _expect(self) -> str | None:
        if isinstance(self.expect, str) and self.expect.strip().lower() in ("none", ""):
            return None
        # A constant or a spec as given: str() of a constant is its repr, not a spec.
        return str(AcceleratorSpec.coerce(self.expect))

    # -- the pod -----------------------------------------------------------------------
    def _command(
        self, base: dict[str, Any] | None
    ) -> tuple[tuple[list[str], list[str]] | None, list[Any] | None]:
        command = gate_command(self._expect(), self.profile, json_path=GATE_REPORT_PATH)
        return (command[:2], command[2:]), None  # accelerators bench | --profile ...

    def _guard(
        self,
        data: dict[str, Any],
        spec: AcceleratorSpec,
        context: Context | None,
        *,
        dry_run: bool,
    ) -> dict[str, Any]:
        """The gate pod is kept off the nodes earlier tries failed on."""
        avoid = failed_nodes(context, log=self.log)
        if avoid:
            self.log.info("Keeping the gate off nodes that failed it before: %s", avoid)
            data = _pods.avoid_nodes(data, avoid)
        return data

    def _history(self) -> str | None:
        """Where the gate pod stores its full report: its ``ACCELERATORS_BENCH_HISTORY``."""
        pod = self.pod_request_obj
        for container in getattr(getattr(pod, "spec", None), "containers", None) or []:
            if container.name != self.base_container_name:
                continue
            for env in container.env or []:
                if env.name == HISTORY_ENV and env.value:
                    return str(env.value)
        return None

    # -- running it --------------------------------------------------------------------
    def execute(self, context: Context) -> Any:
        # What Airflow rendered (templated fields): wrong now is wrong in every retry.
        with failing_fast(), step(self.task_id, where=False):
            expect = self._expect()
            _pods.check_profile(self.profile)
            in_process = _truthy(self.in_process, what="in_process")
        local = local_run(context)
        if local or expect is None:
            self.log.warning(
                "Gate %r checks health only (expect=%r, DAG param %s=%s): the device is NOT "
                "compared with %s",
                self.task_id,
                self.expect,
                LOCAL_RUN_PARAM,
                local,
                self.accelerator,
            )
        if local or in_process:
            report = run_in_process(None if local else expect, self.profile, context, log=self.log)
            history = os.environ.get(HISTORY_ENV)
            asked = expect if local else None  # a local run did not compare it: say so
            return publish(context, report, log=self.log, history=history, asked=asked)
        require_cluster(self)
        # A deferrable run leaves here by TaskDeferred (not an Exception) and resumes in
        # trigger_reentry, in a new instance of this task.
        return self._finish(context, super().execute, context)

    def trigger_reentry(self, context: Context, event: dict[str, Any]) -> Any:
        """Resume after the triggerer saw the gate pod finish: read and publish its report."""
        return self._finish(context, super().trigger_reentry, context, event)

    def extract_xcom(self, pod: Any, *args: Any, **kwargs: Any) -> Any:
        """Read the pod's report, keep it, and give ``KubernetesPodOperator`` its summary
        (what it pushes as ``return_value``, also when the pod failed)."""
        result = super().extract_xcom(pod, *args, **kwargs)
        report = self._validated(result)
        if report is None:
            return result
        self._report = result
        return summarize(report, history=self._history())

    def _validated(self, result: Any) -> BenchReport | None:
        from accelerators.bench import BenchReport

        if not isinstance(result, dict):
            return None
        try:
            return BenchReport.model_validate(result)
        except (AcceleratorError, ValueError) as exc:
            self.log.error("The gate pod's XCom is not a bench report: %s", exc)
            return None

    def _finish(self, context: Context, run: Any, *args: Any) -> Any:
        """Run the pod (``run``: ``execute`` or ``trigger_reentry``), then publish its report
        and, on a failure, record its node. ``KubernetesPodOperator`` calls
        ``trigger_reentry`` from within ``execute`` when the pod had already finished: that
        inner call leaves the publishing to the outer one."""
        if self._finishing:
            return run(*args)
        self._finishing = True
        self._report = None
        try:
            return self._publish_after(context, run, *args)
        finally:
            self._finishing = False

    def _publish_after(self, context: Context, run: Any, *args: Any) -> Any:
        try:
            run(*args)
        except Exception:
            report = self._validated(self._report)
            if report is not None:
                publish(context, report, log=self.log, history=self._history())
            node = (report.node if report is not None else None) or _pod_node(self)
            if node:
                record_failed_node(context, node, log=self.log)
            raise
        report = self._validated(self._report)
        if report is None:
            raise AcceleratorError(
                f"Gate {self.task_id!r}: its pod wrote no bench report to {GATE_REPORT_PATH} "
                "(is accelerators[bench] in the image?)"
            )
        return publish(context, report, log=self.log, history=self._history())


def _pod_node(operator: Any) -> str | None:
    """The node of the operator's last pod, if it was scheduled."""
    for attr in ("remote_pod", "pod"):
        pod = getattr(operator, attr, None)
        node = getattr(getattr(pod, "spec", None), "node_name", None)
        if node:
            return str(node)
    return None

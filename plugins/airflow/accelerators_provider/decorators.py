"""``@task.accelerator`` and ``@task.accelerator_gate``.

* ``@task.accelerator(accelerator="A100:2", platform="gke")`` is ``@task.kubernetes``
  (the public ``kubernetes_task``) with complete ``node_selector``, ``tolerations``,
  ``affinity`` and ``container_resources``: the pod template's values (``pod_template_dict``,
  ``full_pod_spec``, a readable ``pod_template_file``), the ones you pass and the
  accelerator's, merged at DAG parse time. With ``gate=`` the pod is pinned to the node the
  gate checked, through the templated ``nodeSelector`` ``kubernetes.io/hostname``.
* ``@task.accelerator_gate(accelerator="A100:2", platform="gke")`` runs the benchmark gate in
  the task's own worker and then the function (given the report as ``report=`` if it takes
  one). With ``platform`` the worker is placed by :func:`executor_config`, so on the
  KubernetesExecutor the gate and the work share one pod: the gate runs inside each guarded
  pod first.
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
from collections.abc import Callable
from typing import Any

from accelerators import AcceleratorError
from accelerators.kubernetes import apply_to_pod
from accelerators_provider import _pods
from accelerators_provider._gate import LOCAL_RUN_PARAM, local_run, publish, run_in_process

__all__ = ["NO_NODE_SENTINEL", "accelerator_gate_task", "accelerator_task", "gate_node_template"]

log = logging.getLogger(__name__)

#: An undefined Jinja name: rendering fails with it (Airflow renders with StrictUndefined)
#: when the gate pushed no node, instead of scheduling on a node named "None".
NO_NODE_SENTINEL = "accelerator_gate_reported_no_node_name"


def gate_node_template(gate: Any) -> str:
    """The Jinja expression of the node a gate task checked (its XCom ``node``)."""
    task_id = gate if isinstance(gate, str) else gate.task_id
    return f"{{{{ ti.xcom_pull(task_ids={task_id!r}, key='node') or {NO_NODE_SENTINEL} }}}}"


def _template_pod(kwargs: dict[str, Any]) -> dict[str, Any] | None:
    base: dict[str, Any] | None = None
    path = kwargs.get("pod_template_file")
    if path and not _pods.is_template(path):
        if not os.path.exists(path):
            raise AcceleratorError(f"pod_template_file: {path!r} does not exist")
        from airflow.providers.cncf.kubernetes.pod_generator import PodGenerator

        base = _pods.to_dict(PodGenerator.deserialize_model_file(path))
    elif kwargs.get("pod_template_dict"):
        base = _pods.to_dict(kwargs["pod_template_dict"])
    if kwargs.get("full_pod_spec") is not None:
        full = _pods.to_dict(kwargs["full_pod_spec"])
        base = full if base is None else _pods.layer(full, base, container=None)
    return base


def pod_kwargs(
    accelerator: Any,
    *,
    platform: str,
    platform_options: dict[str, Any] | None = None,
    gate: Any = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """``kwargs`` with complete placement arguments for a ``KubernetesPodOperator``.

    :raises PlacementError: the spec cannot be placed or conflicts with ``kwargs``.
    """
    container = kwargs.get("base_container_name") or "base"
    resources = _pods.to_dict(kwargs.get("container_resources"))
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {},
        "spec": {
            "containers": [{"name": container, "resources": resources}],
            "nodeSelector": dict(kwargs.get("node_selector") or {}),
            "tolerations": [_pods.to_dict(t) for t in kwargs.get("tolerations") or []],
            "affinity": _pods.to_dict(kwargs.get("affinity")),
        },
    }
    base = _template_pod(kwargs)
    if base:
        pod = _pods.layer(pod, base, container=container)
    pod = apply_to_pod(
        pod,
        _pods.resolve_spec(accelerator),
        platform=platform,
        container=container,
        **(platform_options or {}),
    )
    spec = pod["spec"]
    selector = dict(spec.get("nodeSelector") or {})
    if gate is not None:
        if _pods.HOSTNAME_LABEL in selector:
            raise AcceleratorError(
                f"gate=: the pod already selects {_pods.HOSTNAME_LABEL}="
                f"{selector[_pods.HOSTNAME_LABEL]!r}; it cannot also be pinned to the gate's node"
            )
        selector[_pods.HOSTNAME_LABEL] = gate_node_template(gate)
    out = dict(kwargs)
    out["node_selector"] = selector
    out["tolerations"] = list(spec.get("tolerations") or [])
    if spec.get("affinity"):
        out["affinity"] = spec["affinity"]
    if spec.get("runtimeClassName"):
        out["runtime_class_name"] = spec["runtimeClassName"]
    from kubernetes.client import models as k8s

    merged = spec["containers"][0]["resources"]
    out["container_resources"] = k8s.V1ResourceRequirements(
        limits=merged.get("limits"), requests=merged.get("requests")
    )
    return out


def accelerator_task(
    python_callable: Callable[..., Any] | None = None,
    multiple_outputs: bool | None = None,
    *,
    accelerator: Any,
    platform: str,
    platform_options: dict[str, Any] | None = None,
    gate: Any = None,
    **kwargs: Any,
) -> Any:
    """``@task.accelerator``: ``@task.kubernetes`` on ``accelerator``.

    :param accelerator: the spec (``"A100:2"``, a constant, an ``AcceleratorSpec``).
    :param platform: the cluster's platform.
    :param platform_options: platform options.
    :param gate: a gate task (or its id) whose node this pod is pinned to; set the
        dependency yourself (``gate >> train()``).
    :param kwargs: every ``@task.kubernetes`` / ``KubernetesPodOperator`` argument.
    """
    from airflow.providers.cncf.kubernetes.decorators.kubernetes import kubernetes_task

    complete = pod_kwargs(
        accelerator, platform=platform, platform_options=platform_options, gate=gate, **kwargs
    )
    return kubernetes_task(
        python_callable=python_callable, multiple_outputs=multiple_outputs, **complete
    )


def _gated(fn: Callable[..., Any], expect: str | None, profile: str) -> Callable[..., Any]:
    signature = inspect.signature(fn)
    wants_report = "report" in signature.parameters

    @functools.wraps(fn)
    def gated(*args: Any, **kwargs: Any) -> Any:
        from airflow.sdk import get_current_context

        context = get_current_context()
        local = local_run(context)
        if local:
            log.warning(
                "Gate checks health only (DAG param %s): the device is NOT compared with %s",
                LOCAL_RUN_PARAM,
                expect,
            )
        report = run_in_process(None if local else expect, profile, context, log=log)
        publish(context, report, log=log)
        data = report.model_dump(mode="json")
        context["ti"].xcom_push(key="report", value=data)
        if wants_report:
            kwargs["report"] = data
        return fn(*args, **kwargs)

    if wants_report:
        params = [p for name, p in signature.parameters.items() if name != "report"]
        gated.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    return gated


def _with_node_name(pod_override: Any) -> dict[str, Any]:
    """``pod_override`` whose ``base`` container gets ``NODE_NAME`` from the downward API,
    so the gate's report names the node (and a failed one is remembered)."""
    pod = _pods.to_dict(pod_override) or {"apiVersion": "v1", "kind": "Pod", "metadata": {}}
    containers = pod.setdefault("spec", {}).setdefault("containers", [])
    if not containers or containers[0].get("name") != "base":
        containers.insert(0, {"name": "base"})
    env = containers[0].setdefault("env", [])
    if not any(e.get("name") == "NODE_NAME" for e in env):
        env.append({"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}})
    return pod


def accelerator_gate_task(
    python_callable: Callable[..., Any] | None = None,
    multiple_outputs: bool | None = None,
    *,
    accelerator: Any = None,
    platform: str | None = None,
    platform_options: dict[str, Any] | None = None,
    profile: str = "quick",
    **kwargs: Any,
) -> Any:
    """``@task.accelerator_gate``: the gate in this task's worker, then the function.

    :param accelerator: what the gate expects (``None``: any device, health only).
    :param platform: with it, ``executor_config`` places the worker pod on ``accelerator``
        (KubernetesExecutor), merged into an ``executor_config`` you pass.
    :param platform_options: platform options.
    :param profile: the benchmark profile.
    :param kwargs: every ``@task`` argument (``queue``, ``pool``...).
    """
    from airflow.providers.standard.decorators.python import python_task

    expect = None if accelerator is None else str(_pods.resolve_spec(accelerator))
    if platform is not None:
        if expect is None:
            raise AcceleratorError("@task.accelerator_gate: platform= needs accelerator=")
        from accelerators_provider.executors import executor_config

        config = dict(kwargs.get("executor_config") or {})
        placed = executor_config(
            expect,
            platform=platform,
            pod_override=_with_node_name(config.get("pod_override")),
            pod_template_file=config.get("pod_template_file"),
            **(platform_options or {}),
        )
        kwargs["executor_config"] = {**config, **placed}

    def decorate(fn: Callable[..., Any]) -> Any:
        return python_task(
            python_callable=_gated(fn, expect, profile),
            multiple_outputs=multiple_outputs,
            **kwargs,
        )

    return decorate if python_callable is None else decorate(python_callable)

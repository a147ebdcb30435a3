"""``@task.accelerator`` and ``@task.accelerator_gate``.

* ``@task.accelerator(accelerator="A100:2", platform="gke")`` is ``@task.kubernetes``
  (the public ``kubernetes_task``) with complete ``node_selector``, ``tolerations``,
  ``affinity`` and ``container_resources``: the pod template's values (``pod_template_dict``,
  ``full_pod_spec``, ``pod_template_file``), the ones you pass and the accelerator's, merged
  at DAG parse time. With ``gate=`` the pod is pinned to the node the gate checked, through
  the templated ``nodeSelector`` ``kubernetes.io/hostname``; before the pod is created a
  ``pre_execute`` check refuses an empty node name (whatever the DAG's ``template_undefined``)
  and a task that does not fit what the gate matched, and says so when no cluster is
  configured.
* ``@task.accelerator_gate(accelerator="A100:2", platform="gke")`` runs the benchmark gate in
  the task's own worker and then the function (given the report as ``report=`` if it takes
  one). With ``platform`` the worker is placed by :func:`executor_config`, so on the
  KubernetesExecutor the gate and the work share one pod: the gate runs inside each guarded
  pod first.

Neither decorator is templated: ``accelerator`` and ``platform`` are read when the DAG is
parsed. A Jinja template there is refused with a pointer to :class:`AcceleratorPodOperator`,
whose fields are templated.
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from accelerators import AcceleratorError, AcceleratorSpec
from accelerators_provider import _pods
from accelerators_provider._errors import AcceleratorTaskError, require_cluster, step
from accelerators_provider._gate import (
    HISTORY_ENV,
    LOCAL_RUN_PARAM,
    check_guard,
    local_run,
    matched_spec,
    publish,
    run_in_process,
)

if TYPE_CHECKING:
    from accelerators import SpecLike

__all__ = ["NO_NODE_SENTINEL", "accelerator_gate_task", "accelerator_task", "gate_node_template"]

log = logging.getLogger(__name__)

#: An undefined Jinja name: rendering fails with it (Airflow renders with StrictUndefined)
#: when the gate pushed no node, instead of scheduling on a node named "None". With another
#: ``template_undefined`` the ``pre_execute`` check refuses the empty name.
NO_NODE_SENTINEL = "accelerator_gate_reported_no_node_name"


def gate_node_template(gate: Any) -> str:
    """The Jinja expression of the node a gate task checked (its XCom ``node``)."""
    task_id = gate if isinstance(gate, str) else gate.task_id
    return f"{{{{ ti.xcom_pull(task_ids={task_id!r}, key='node') or {NO_NODE_SENTINEL} }}}}"


def _template_pod(kwargs: dict[str, Any], container: str) -> tuple[dict[str, Any] | None, str]:
    """The template the task's pod is built from, read as :class:`AcceleratorPodOperator`
    reads it (:func:`~accelerators_provider._pods.template_pod`), and how to name it.
    ``kwargs`` gets each template with ``container`` first: ``KubernetesPodOperator`` pairs
    containers by position, so a sidecar first would get the accelerator (a template file
    whose main container is not first is refused)."""
    path = kwargs.get("pod_template_file")
    rendered_later = _pods.is_template(path)  # the file (which wins over the dict) is unknown
    base, name = _pods.template_pod(
        pod_template_file=None if rendered_later else path,
        pod_template_dict=None if path else kwargs.get("pod_template_dict"),
        full_pod_spec=kwargs.get("full_pod_spec"),
        container=container,
    )
    if path and not rendered_later:
        if _pods.base_first(_pods.read_template(path), container)[1]:
            raise AcceleratorError(
                f"container {container!r} is not the first container of the pod template "
                "file, and KubernetesPodOperator pairs a template's containers with its own "
                "by position: the accelerator would go to another container. Put "
                f"{container!r} first in the file, or use AcceleratorPodOperator, which finds "
                "it by name"
            )
    elif not path and kwargs.get("pod_template_dict"):
        kwargs["pod_template_dict"] = _pods.base_first(
            _pods.read_template_dict(kwargs["pod_template_dict"]), container
        )[0]
    if kwargs.get("full_pod_spec") is not None:
        full, moved = _pods.base_first(_pods.to_dict(kwargs["full_pod_spec"]), container)
        if moved:
            kwargs["full_pod_spec"] = _pods.to_pod(full)
    return base, name


def pod_kwargs(
    accelerator: AcceleratorSpec,
    *,
    platform: str,
    platform_options: dict[str, Any] | None = None,
    gate: Any = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """``kwargs`` with complete placement arguments for a ``KubernetesPodOperator``: the
    accelerator placed into the task's template and arguments by the core's one placement
    (:func:`~accelerators_provider._pods.place_task`), as :class:`AcceleratorPodOperator`
    places it.

    :raises PlacementError: the spec cannot be placed, no node has its count, it conflicts
        with ``kwargs`` or its template, a container would request more than its limit, or
        it does not fit the gate's node.
    """
    container = kwargs.get("base_container_name") or "base"
    arguments = _pods.arguments_pod(
        container,
        container_resources=kwargs.get("container_resources"),
        node_selector=kwargs.get("node_selector"),
        tolerations=kwargs.get("tolerations"),
        affinity=kwargs.get("affinity"),
        runtime_class_name=kwargs.get("runtime_class_name"),
    )
    kwargs = dict(kwargs)  # the templates, with the main container first
    template = _template_pod(kwargs, container)
    pod = _pods.place_task(
        accelerator,
        platform,
        platform_options or {},
        base=template,
        arguments=(arguments, "the task's arguments", "container_resources"),
        container=container,
    )
    pod_spec = pod["spec"]
    selector = dict(pod_spec.get("nodeSelector") or {})
    if gate is not None:
        if _pods.HOSTNAME_LABEL in selector:
            raise AcceleratorError(
                f"gate=: the pod already selects {_pods.HOSTNAME_LABEL}="
                f"{selector[_pods.HOSTNAME_LABEL]!r}; it cannot also be pinned to the gate's node"
            )
        selector[_pods.HOSTNAME_LABEL] = gate_node_template(gate)
    out = dict(kwargs)
    out["node_selector"] = selector
    out["tolerations"] = list(pod_spec.get("tolerations") or [])
    if pod_spec.get("affinity"):
        out["affinity"] = pod_spec["affinity"]
    if pod_spec.get("runtimeClassName"):
        out["runtime_class_name"] = pod_spec["runtimeClassName"]
    from kubernetes.client import models as k8s

    main = _pods.main_container(pod, container)
    merged = main.get("resources") or {}
    out["container_resources"] = k8s.V1ResourceRequirements(
        limits=merged.get("limits"), requests=merged.get("requests")
    )
    return out


def _before_the_pod(
    accelerator: AcceleratorSpec, gate_id: str | None, user_hook: Callable[..., Any] | None
) -> Callable[[Any], None]:
    """The ``pre_execute`` of an ``@task.accelerator`` task: checks that need the run."""

    def check(context: Any) -> None:
        if user_hook is not None:
            user_hook(context)
        task = context["task"]
        if gate_id is not None:
            node = (task.node_selector or {}).get(_pods.HOSTNAME_LABEL)
            if not node or str(node).strip() in ("None", NO_NODE_SENTINEL):
                raise AcceleratorTaskError(
                    f"Task {task.task_id!r}: gate {gate_id!r} reported no node name (the "
                    f"rendered nodeSelector {_pods.HOSTNAME_LABEL} is {node!r}), so this pod "
                    "cannot be pinned to the node it checked; it would wait for a node that "
                    "does not exist. The gate pod gets NODE_NAME from the downward API; an "
                    "in-process gate needs NODE_NAME in the worker's environment."
                )
            summary = context["ti"].xcom_pull(task_ids=gate_id, key="report")
            matched = matched_spec(summary)
            if matched is not None:
                check_guard(task.task_id, accelerator, matched, gate=gate_id, ran=True)
        require_cluster(task)

    return check


def _read_at_parse_time(
    fn: Callable[..., Any],
    kwargs: dict[str, Any],
    accelerator: SpecLike | None,
    platform: Any,
    decorator: str,
    operator: str,
) -> str:
    """The decorated task's id, after refusing Jinja templates in what the decorator reads
    when the DAG is parsed (``accelerator``, ``platform``)."""
    task_id = str(kwargs.get("task_id") or getattr(fn, "__name__", "task"))
    for argument, value in (("accelerator", accelerator), ("platform", platform)):
        with step(task_id, argument, value):
            _pods.refuse_template(value, argument, decorator=decorator, operator=operator)
    return task_id


def accelerator_task(
    python_callable: Callable[..., Any] | None = None,
    multiple_outputs: bool | None = None,
    *,
    accelerator: SpecLike | None = None,
    platform: str | None = None,
    platform_options: dict[str, Any] | None = None,
    gate: Any = None,
    **kwargs: Any,
) -> Any:
    """``@task.accelerator``: ``@task.kubernetes`` on ``accelerator``.

    :param accelerator: the spec (``"A100:2"``, a constant, an ``AcceleratorSpec``); not
        templated (use :class:`~accelerators_provider.AcceleratorPodOperator` for that).
        Required.
    :param platform: the cluster's platform; not templated. Required.
    :param platform_options: platform options.
    :param gate: a gate task (or its id) whose node this pod is pinned to; set the
        dependency yourself (``gate >> train()``). The accelerator must fit its node.
    :param kwargs: every ``@task.kubernetes`` / ``KubernetesPodOperator`` argument.
    """
    from airflow.providers.cncf.kubernetes.decorators.kubernetes import kubernetes_task

    def decorate(fn: Callable[..., Any]) -> Any:
        task_id = _read_at_parse_time(
            fn, kwargs, accelerator, platform, "@task.accelerator", "AcceleratorPodOperator"
        )
        with step(task_id, "platform", platform):
            _pods.check_platform(platform)
        placed_on = str(platform)  # check_platform refused a missing one
        with step(task_id, "accelerator", accelerator):
            spec = AcceleratorSpec.coerce(accelerator)  # parsed once: everything below reads it
        gate_id = None if gate is None else (gate if isinstance(gate, str) else gate.task_id)
        gate_spec = getattr(gate, "_accelerator_spec", None) or getattr(gate, "accelerator", None)
        if gate_spec is not None and not _pods.is_template(gate_spec):
            with step(task_id, "gate", gate_id):
                check_guard(task_id, spec, gate_spec, gate=gate_id, ran=False)
        argument = "pod_template_file" if kwargs.get("pod_template_file") else "accelerator"
        value = kwargs.get("pod_template_file") or accelerator
        with step(task_id, argument, value):
            complete = pod_kwargs(
                spec, platform=placed_on, platform_options=platform_options, gate=gate, **kwargs
            )
        complete["pre_execute"] = _before_the_pod(spec, gate_id, kwargs.get("pre_execute"))
        return kubernetes_task(python_callable=fn, multiple_outputs=multiple_outputs, **complete)

    return decorate if python_callable is None else decorate(python_callable)


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
        asked = expect if local else None
        publish(context, report, log=log, history=os.environ.get(HISTORY_ENV), asked=asked)
        if wants_report:
            kwargs["report"] = report.model_dump(mode="json")
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
    accelerator: SpecLike | None = None,
    platform: str | None = None,
    platform_options: dict[str, Any] | None = None,
    profile: str = "quick",
    **kwargs: Any,
) -> Any:
    """``@task.accelerator_gate``: the gate in this task's worker, then the function.

    :param accelerator: what the gate expects (``None``: any device, health only); not
        templated.
    :param platform: with it, ``executor_config`` places the worker pod on ``accelerator``
        (KubernetesExecutor), merged into an ``executor_config`` you pass. A retry is kept
        off the nodes earlier tries failed on by the provider's cluster policy
        (:mod:`accelerators_provider.policy`, Airflow >= 3.3).
    :param platform_options: platform options.
    :param profile: the benchmark profile.
    :param kwargs: every ``@task`` argument (``queue``, ``pool``...).
    """
    from airflow.providers.standard.decorators.python import python_task

    def decorate(fn: Callable[..., Any]) -> Any:
        task_id = _read_at_parse_time(
            fn,
            kwargs,
            accelerator,
            platform,
            "@task.accelerator_gate",
            "AcceleratorGateOperator(in_process=True)",
        )
        with step(task_id, "profile", profile):
            _pods.check_profile(profile)
        with step(task_id, "accelerator", accelerator):
            parsed = None if accelerator is None else AcceleratorSpec.coerce(accelerator)
        expect = None if parsed is None else str(parsed)
        options = dict(kwargs)
        if platform is not None:
            with step(task_id, "platform", platform):
                if parsed is None:
                    raise AcceleratorError("@task.accelerator_gate: platform= needs accelerator=")
                _pods.check_platform(platform)
            from accelerators_provider.executors import _placed_config

            config = dict(options.get("executor_config") or {})
            with step(task_id, "executor_config", config or None):
                placed = _placed_config(
                    parsed,
                    platform=platform,
                    pod_override=_with_node_name(config.get("pod_override")),
                    pod_template_file=config.get("pod_template_file"),
                    **(platform_options or {}),
                )
            options["executor_config"] = {**config, **placed}
        return python_task(
            python_callable=_gated(fn, expect, profile),
            multiple_outputs=multiple_outputs,
            **options,
        )

    return decorate if python_callable is None else decorate(python_callable)

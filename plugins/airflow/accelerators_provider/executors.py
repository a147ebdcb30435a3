"""Executor routing: ``executor_config`` for the KubernetesExecutor, queues and pools for Celery.

* :func:`executor_config` gives ``{"pod_override": V1Pod}`` whose ``base`` container gets the
  accelerator. The executor replaces the base worker pod's ``nodeSelector``,
  ``tolerations``, ``affinity`` and ``resources`` with the override's, so pass the worker
  pod template (``pod_template_file=``) and its values are kept in the override.
* :func:`queue_for` names a Celery queue per accelerator model (and MIG profile), so GPU
  tasks only reach workers that serve it; :func:`pool_for` / :func:`pool_kwargs` name a
  pool per model with one slot per device, so tasks never ask for more devices than exist;
  :func:`create_pools` creates those pools from a node inventory.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from accelerators import AcceleratorError, AcceleratorSpec
from accelerators_provider import _pods
from accelerators_provider._errors import warn_at_user_line

if TYPE_CHECKING:
    from accelerators import SpecLike

__all__ = [
    "WorkerTemplateWarning",
    "create_pools",
    "executor_config",
    "pool_for",
    "pool_kwargs",
    "pools_from_inventory",
    "queue_for",
]

#: Prefix of the queue and pool names.
PREFIX = "accelerators"


class WorkerTemplateWarning(UserWarning):
    """The worker pod template is configured but not readable where the DAG is parsed."""


_WARNED: set[str] = set()  # paths warned about in this process (one parse, in Airflow 3)


def _default_worker_template() -> str | None:
    """The deployment's worker pod template (``[kubernetes_executor] pod_template_file``),
    when it is set and readable here; when it is set but not readable, warns once per
    process and path (:class:`WorkerTemplateWarning`)."""
    from airflow.configuration import conf

    path = conf.get("kubernetes_executor", "pod_template_file", fallback=None)
    if not path:
        return None
    if os.path.isfile(path) and os.access(path, os.R_OK):
        return str(path)
    if path not in _WARNED:
        _WARNED.add(path)
        where = "does not exist" if not os.path.exists(path) else "is not a readable file"
        warn_at_user_line(
            f"executor_config: the worker pod template ([kubernetes_executor] "
            f"pod_template_file = {path!r}) {where} where this DAG is parsed, so its "
            "nodeSelector, tolerations, affinity and container resources are not merged into "
            "the pod_override, and the KubernetesExecutor replaces them with the override's: "
            "the worker pod loses them (a spot toleration, a zone affinity, cpu and memory). "
            "Make the file readable here (mount it at the same path in the DAG processor as "
            "in the scheduler), or pass executor_config(..., pod_template_file=...) a path "
            "readable in both; docs/airflow.md, 'KubernetesExecutor and Celery'",
            WorkerTemplateWarning,
        )
    return None


def executor_config(
    spec: SpecLike,
    *,
    platform: str | None = None,
    pod_override: Any = None,
    pod_template_file: str | None = None,
    container: str = "base",
    **options: Any,
) -> dict[str, Any]:
    """``executor_config`` that runs a task on ``spec`` under the KubernetesExecutor.

    :param spec: the accelerator spec.
    :param platform: the cluster's platform (see :func:`accelerators.kubernetes.platforms`);
        required.
    :param pod_override: a ``V1Pod`` (or dict) of your own to merge into; kept whole.
    :param pod_template_file: the worker pod template of this task, if not the default
        (``[kubernetes_executor] pod_template_file``, used when readable here, and a
        :class:`WorkerTemplateWarning` once when it is set but not); its selectors,
        tolerations, affinity and resources are kept in the override.
    :param container: the worker container, ``base`` (the executor requires it first).
    :param options: platform options.
    :raises PlacementError: the platform cannot place ``spec``, no node has its count,
        ``pod_override`` conflicts, or the worker would request more than its limit.
    :raises AcceleratorError: ``pod_template_file`` does not exist.
    """
    _pods.check_platform(platform)
    return _placed_config(
        AcceleratorSpec.coerce(spec),
        platform=str(platform),  # check_platform refused a missing one
        pod_override=pod_override,
        pod_template_file=pod_template_file,
        container=container,
        **options,
    )


def _placed_config(
    spec: AcceleratorSpec,
    *,
    platform: str,
    pod_override: Any = None,
    pod_template_file: str | None = None,
    container: str = "base",
    **options: Any,
) -> dict[str, Any]:
    """:func:`executor_config` for a parsed spec and a platform already checked (the
    ``@task.accelerator_gate`` decorator checks both where it names its arguments)."""
    pod = _pods.to_dict(pod_override) or {"apiVersion": "v1", "kind": "Pod", "metadata": {}}
    pod_spec = pod.setdefault("spec", {})
    containers = pod_spec.setdefault("containers", [])
    if not containers or containers[0].get("name") != container:
        if any(c.get("name") == container for c in containers):
            raise AcceleratorError(
                f"pod_override: the KubernetesExecutor needs container {container!r} first; "
                f"got {[c.get('name') for c in containers]}"
            )
        containers.insert(0, {"name": container})
    template = pod_template_file or _default_worker_template()
    base: tuple[dict[str, Any] | None, str] = (None, "executor_config")
    if template:
        base = (
            _pods.read_template(template, argument="pod_template_file"),
            f"the worker pod_template_file {template!r}",
        )
    merged = _pods.place_task(
        spec,
        platform,
        options,
        base=base,
        arguments=(pod, "pod_override", "pod_override"),
        container=container,
    )
    config: dict[str, Any] = {"pod_override": _pods.to_pod(merged)}
    if pod_template_file:
        config["pod_template_file"] = pod_template_file
    return config


def _name(spec: SpecLike, what: str) -> tuple[str, AcceleratorSpec]:
    resolved = AcceleratorSpec.coerce(spec)
    alternatives = resolved.alternatives
    if len(alternatives) > 1:
        choices = ", ".join(repr(str(a)) for a in alternatives)
        raise AcceleratorError(
            f"{what}: {str(resolved)!r} has alternatives ({choices}); a task goes to one queue "
            "and one pool, so name one of them"
        )
    acc = resolved.accelerator
    if acc is None:
        raise AcceleratorError(
            f"{what}: {str(resolved)!r} names no accelerator model; queues and pools are per "
            "model, e.g. 'H100' or 'A100-80GB'"
        )
    name = f"{PREFIX}-{acc.model.lower()}"
    if resolved.partition:
        name += f"-{resolved.partition.lower()}"
    return name, resolved


def queue_for(spec: SpecLike) -> str:
    """The Celery queue of ``spec``'s accelerator model: ``accelerators-h100``,
    ``accelerators-a100-40gb-1g.10gb`` for a MIG slice. Start GPU workers with
    ``airflow celery worker --queues accelerators-h100``."""
    return _name(spec, "queue_for")[0]


def pool_for(spec: SpecLike) -> str:
    """The pool of ``spec``'s accelerator model (same name as :func:`queue_for`)."""
    return _name(spec, "pool_for")[0]


def pool_kwargs(spec: SpecLike) -> dict[str, Any]:
    """``queue``, ``pool`` and ``pool_slots`` (one per device, a shared fraction takes one)."""
    name, resolved = _name(spec, "pool_kwargs")
    return {"queue": name, "pool": name, "pool_slots": resolved.devices_needed}


def pools_from_inventory(inventory: Mapping[str, Any]) -> dict[str, int]:
    """Slots per pool from ``{node name: what it has}`` (``{"gpu-a": "H100:8"}``).

    :raises AcceleratorError: a node's spec is invalid, fractional or has alternatives.
    """
    slots: dict[str, int] = {}
    for node, value in inventory.items():
        name, resolved = _name(value, f"node {node!r}")
        if resolved.is_shared:  # a fraction or a shared slot is not a whole device
            raise AcceleratorError(
                f"node {node!r}: expected a whole device count, got {str(resolved)!r}"
            )
        slots[name] = slots.get(name, 0) + int(resolved.count)
    return slots


def create_pools(inventory: Mapping[str, Any], *, include_deferred: bool = False) -> dict[str, int]:
    """Create or resize the pools of :func:`pools_from_inventory` in Airflow's metadata DB.

    Run it where the metadata DB is reachable (a deployment script, ``airflow`` shell).
    Returns the slots set per pool.
    """
    from airflow.models.pool import Pool

    slots = pools_from_inventory(inventory)
    for name, count in slots.items():
        model = name.removeprefix(f"{PREFIX}-")
        Pool.create_or_update_pool(
            name,
            count,
            f"{count} x {model} accelerators (airflow-provider-accelerators)",
            include_deferred,
        )
    return slots

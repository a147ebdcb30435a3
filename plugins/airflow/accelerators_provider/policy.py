"""The provider's cluster policy: a KubernetesExecutor retry avoids the nodes its gate failed on.

``@task.accelerator_gate`` on the KubernetesExecutor runs the gate inside the task's worker
pod; a failed gate records its node in the task's state store (Airflow >= 3.3). The worker
pod of the retry comes from ``executor_config``, which is fixed when the DAG is parsed, so on
its own a retry can land on the same bad node. This ``pod_mutation_hook`` closes that gap:
the KubernetesExecutor calls it (in the scheduler) for every worker pod it builds, and for a
retry (``try_number`` > 1) of a task with recorded failed nodes it adds the required node
affinity ``kubernetes.io/hostname NotIn [those nodes]``, ANDed into every term.

It is registered through the ``airflow.policy`` entry point, so Airflow loads it in every
process without a line in ``airflow_local_settings``, while ``import airflow`` runs: importing
it must never fail. It imports nothing but Airflow's policy marker and this package, which
never fails either (with the ``accelerators`` core missing or older than this provider it
logs one warning, and this policy then does nothing). It runs *before* a deployment's own
``pod_mutation_hook`` (``tryfirst``), which keeps the last word. It touches only
KubernetesExecutor worker pods (label ``kubernetes_executor=True``) of a retry, reads one row
of the metadata DB for them, and never raises: a failure is logged and the pod left as built.
On Airflow < 3.3 (no task state store) it logs once that retries cannot avoid failed nodes.
Importing this module imports nothing beyond Airflow's policy marker and this package's
standard-library-only :mod:`accelerators_provider.preload`. In the DAG processor it
registers the preload to run once, right before the manager forks its first parse
(:func:`accelerators_provider.preload.warm_up`): DAG files that use the provider then parse
as fast as plain ``KubernetesPodOperator`` ones with nothing to configure.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from airflow.policies import hookimpl

__all__ = ["failed_nodes_of", "pod_mutation_hook"]

log = logging.getLogger(__name__)

try:  # the DAG processor: load the provider once, before the manager forks its first parse
    from accelerators_provider.preload import warm_up

    warm_up()
except Exception:  # importing this module must never fail (it runs in `import airflow`)
    log.warning("accelerators: could not register the DAG processor's preload", exc_info=True)

#: Task state store key of the failed nodes (``accelerators_provider._gate``).
_FAILED_NODES_KEY = "accelerators_failed_nodes"
_said_unavailable: list[bool] = []


def failed_nodes_of(dag_id: str, run_id: str, task_id: str, map_index: int) -> list[str]:
    """The nodes the gate of this task instance failed on, from the metadata DB.

    :returns: an empty list when none are recorded or this Airflow has no task state store.
    """
    try:
        from airflow.models.task_state_store import TaskStateStoreModel
    except ImportError:
        if not _said_unavailable:
            _said_unavailable.append(True)
            log.info(
                "accelerators: retry avoidance is unavailable on the KubernetesExecutor: this "
                "Airflow has no task state store (Airflow >= 3.3)"
            )
        return []
    from airflow.utils.session import create_session
    from sqlalchemy import select

    with create_session() as session:
        value = session.scalar(
            select(TaskStateStoreModel.value).where(
                TaskStateStoreModel.dag_id == dag_id,
                TaskStateStoreModel.run_id == run_id,
                TaskStateStoreModel.task_id == task_id,
                TaskStateStoreModel.map_index == map_index,
                TaskStateStoreModel.key == _FAILED_NODES_KEY,
            )
        )
    nodes = json.loads(value) if value else []
    return [str(n) for n in nodes] if isinstance(nodes, list) else []


_plumbing: list[Any] = []  # [the provider's pod plumbing, or None when the core is unusable]


def _pod_plumbing() -> Any:
    """:mod:`accelerators_provider._pods`, or ``None`` (warned once) when the core it needs
    cannot be imported: the policy then leaves every pod as built."""
    if not _plumbing:
        import accelerators_provider

        if accelerators_provider.CORE_PROBLEM is not None:  # warned when it was imported
            _plumbing.append(None)
            return None
        try:
            from accelerators_provider import _pods
        except Exception as exc:  # an older core: never break the scheduler
            log.warning(
                "accelerators: the cluster policy leaves pods as built: the accelerators core "
                "installed here is older than this provider (%s: %s)",
                type(exc).__name__,
                exc,
            )
            _plumbing.append(None)
        else:
            _plumbing.append(_pods)
    return _plumbing[0]


def _avoid(pod: Any) -> None:
    metadata = getattr(pod, "metadata", None)
    labels = getattr(metadata, "labels", None) or {}
    annotations = getattr(metadata, "annotations", None) or {}
    if labels.get("kubernetes_executor") != "True":
        return  # not a KubernetesExecutor worker pod (a KubernetesPodOperator pod, say)
    if int(annotations.get("try_number", "1")) <= 1 or "run_id" not in annotations:
        return
    _pods = _pod_plumbing()
    if _pods is None:
        return
    nodes = failed_nodes_of(
        annotations["dag_id"],
        annotations["run_id"],
        annotations["task_id"],
        int(annotations.get("map_index", "-1")),
    )
    if not nodes:
        return
    avoided = _pods.to_pod(_pods.avoid_nodes(_pods.to_dict(pod), nodes))
    pod.spec.affinity = avoided.spec.affinity
    log.info(
        "accelerators: try %s of %s.%s is kept off nodes where its gate failed: %s",
        annotations["try_number"],
        annotations["dag_id"],
        annotations["task_id"],
        ", ".join(nodes),
    )


@hookimpl(tryfirst=True)
def pod_mutation_hook(pod: Any) -> None:
    """Keep a KubernetesExecutor retry off the nodes its gate failed on (never raises)."""
    try:
        _avoid(pod)
    except Exception:
        log.exception("accelerators: could not keep the pod off failed nodes; left as built")

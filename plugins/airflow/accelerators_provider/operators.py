"""``AcceleratorPodOperator`` and ``AcceleratorGateOperator``: pod operators placed by spec.

``KubernetesPodOperator`` replaces a pod template's ``nodeSelector``, ``tolerations``,
``affinity`` and container ``resources`` with its own arguments. These operators keep the
template's values under the arguments and merge the accelerator's fragment from
:func:`accelerators.kubernetes.apply_to_pod` on top, so nothing the user wrote is lost and a
real conflict (the template pins ``nvidia-l4``, the spec asks for H100) is an error.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator
from airflow.providers.cncf.kubernetes.pod_generator import PodGenerator
from kubernetes.client import models as k8s

from accelerators import AcceleratorError, AcceleratorSpec
from accelerators.kubernetes import apply_to_pod, merge_fragment, to_pod_fragment
from accelerators_provider import _pods
from accelerators_provider._gate import (
    FAILED_NODES_KEY,
    GATE_REPORT_PATH,
    LOCAL_RUN_PARAM,
    gate_command,
    local_run,
    publish,
    record_failed_node,
    run_in_process,
)

if TYPE_CHECKING:
    from airflow.sdk import Context

__all__ = ["GATE_MODES", "AcceleratorGateOperator", "AcceleratorPodOperator"]

#: How a guarded pod proves its node: ``pin`` (run where the gate task ran, from its XCom
#: ``node``) or ``inline`` (run the gate inside the pod before the command).
GATE_MODES = ("pin", "inline")


def _truthy(value: Any, *, what: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off", "", "none"):
        return False
    raise AcceleratorError(f"{what}: expected true or false, got {value!r}")


class AcceleratorPodOperator(KubernetesPodOperator):
    """A ``KubernetesPodOperator`` whose pod is placed on ``accelerator`` by ``platform``.

    :param accelerator: a spec (``"H100:8"``, ``"A100@1g.10gb"``, ``"H100 | A100-80GB"``), a
        constant (``accelerators.H100``) or an :class:`~accelerators.AcceleratorSpec`.
        Templated.
    :param platform: the cluster's platform (``gke``, ``nvidia``, ``karpenter``, ``eks``,
        ``amd``, ``neuron``, ``gaudi``, ``intel``, ``generic``; see
        :func:`accelerators.kubernetes.platforms`). Templated.
    :param platform_options: options of the platform (``labels``, ``label_values``,
        ``tolerations``, ``runtime_class_name``, ``mig_strategy``...).
    :param gate: the gate task (an :class:`AcceleratorGateOperator` or its task id) whose
        node this pod runs on; an operator also becomes upstream of this one.
    :param gate_mode: ``"pin"`` (default): with ``gate``, run on the node the gate checked
        (required node affinity ``kubernetes.io/hostname In [<gate's XCom node>]``).
        ``"inline"``: run the gate in this pod first, no gate task needed
        (``accelerators bench`` must be in the image and ``cmds`` given).
    :param gate_profile: the benchmark profile of an inline gate.
    :param kwargs: every ``KubernetesPodOperator`` argument; ``node_selector``,
        ``tolerations``, ``affinity``, ``container_resources`` and the pod template's
        values are all kept.
    :raises PlacementError: at DAG parse time when the platform cannot place the spec or the
        operator's own arguments conflict with it.
    """

    template_fields: Sequence[str] = (
        *KubernetesPodOperator.template_fields,
        "accelerator",
        "platform",
    )

    def __init__(
        self,
        *,
        accelerator: Any,
        platform: str,
        platform_options: dict[str, Any] | None = None,
        gate: Any = None,
        gate_mode: str = "pin",
        gate_profile: str = "quick",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if gate_mode not in GATE_MODES:
            raise AcceleratorError(
                f"gate_mode: expected one of {', '.join(GATE_MODES)}, got {gate_mode!r}"
            )
        self.platform = platform
        self.platform_options = dict(platform_options or {})
        self.gate_mode = gate_mode
        self.gate_profile = gate_profile
        self.gate_task_id: str | None = None
        if gate is not None:
            self.gate_task_id = gate if isinstance(gate, str) else gate.task_id
            if not isinstance(gate, str):
                self.set_upstream(gate)
        if _pods.is_template(accelerator):
            self.accelerator = accelerator
        else:
            spec = _pods.resolve_spec(accelerator, what=f"{self.task_id}: accelerator")
            self.accelerator = str(spec)
            if not _pods.is_template(platform):
                self._check_at_parse_time(spec)

    # -- parse time --------------------------------------------------------------------
    def _check_at_parse_time(self, spec: AcceleratorSpec) -> None:
        """Raise now, not at run time, when the spec cannot be placed or conflicts."""
        fragment = to_pod_fragment(spec, platform=self.platform, **self.platform_options)
        if not fragment or not self._has_placement_arguments():
            return  # nothing of the user's to conflict with: placing the spec was the check
        preview = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {},
            "spec": {
                "containers": [
                    {
                        "name": self.base_container_name,
                        "resources": _pods.to_dict(self.container_resources),
                    }
                ],
                "nodeSelector": dict(self.node_selector or {}),
                "tolerations": [_pods.to_dict(t) for t in self.tolerations or []],
                "affinity": _pods.to_dict(self.affinity),
            },
        }
        if self.pod_template_dict and not _has_template(self.pod_template_dict):
            preview = _pods.layer(
                preview, self.pod_template_dict, container=self.base_container_name
            )
        # apply_to_pod(preview, ...) without computing the fragment a second time
        merge_fragment(preview, fragment, container=self.base_container_name)

    def _has_placement_arguments(self) -> bool:
        """Whether the user gave anything the accelerator's fragment could conflict with."""
        return bool(
            self.container_resources
            or self.node_selector
            or self.tolerations
            or self.affinity
            or self.pod_template_dict
        )

    # -- run time ----------------------------------------------------------------------
    def _base_pod(self) -> dict[str, Any] | None:
        """The pod KubernetesPodOperator starts from, with ``full_pod_spec`` layered on."""
        base: dict[str, Any] | None = None
        if self.pod_template_file:
            base = _pods.to_dict(PodGenerator.deserialize_model_file(self.pod_template_file))
        elif self.pod_template_dict:
            base = _pods.to_dict(PodGenerator.deserialize_model_dict(self.pod_template_dict))
        if self.full_pod_spec is not None:
            full = _pods.to_dict(self.full_pod_spec)
            base = full if base is None else _pods.layer(full, base, container=None)
        return base

    def build_pod_request_obj(
        self, context: Context | None = None, *, dry_run: bool = False
    ) -> k8s.V1Pod:
        """The pod KubernetesPodOperator builds, with the template kept and the accelerator in.

        With ``gate`` in ``pin`` mode the context is needed (the gate's XCom ``node``); a
        ``dry_run`` without a context leaves the pin out and says so in the log.
        """
        pod = super().build_pod_request_obj(context, dry_run=dry_run)
        data = _pods.to_dict(pod)
        base = self._base_pod()
        if base:
            data = _pods.layer(data, base, container=self.base_container_name)
        data = apply_to_pod(
            data,
            _pods.resolve_spec(self.accelerator, what=f"{self.task_id}: accelerator"),
            platform=self.platform,
            container=self.base_container_name,
            **self.platform_options,
        )
        data = self._guard(data, context, dry_run=dry_run)
        return _pods.to_pod(data)

    def _guard(
        self, data: dict[str, Any], context: Context | None, *, dry_run: bool
    ) -> dict[str, Any]:
        if self.gate_mode == "inline":
            return _inline_gate(data, self.base_container_name, self.accelerator, self.gate_profile)
        if self.gate_task_id is None:
            return data
        if context is None:
            if dry_run:
                self.log.warning(
                    "Dry run without a context: the pin to gate %r's node is left out",
                    self.gate_task_id,
                )
                return data
            raise AcceleratorError(
                f"{self.task_id}: pinning to gate {self.gate_task_id!r} needs the task context"
            )
        node = context["ti"].xcom_pull(task_ids=self.gate_task_id, key="node")
        if not node or not isinstance(node, str):
            raise AcceleratorError(
                f"{self.task_id}: gate {self.gate_task_id!r} reported no node name (XCom 'node' "
                f"is {node!r}), so this pod cannot be pinned to the node it checked. The gate "
                "pod gets NODE_NAME from the downward API; an in_process gate needs NODE_NAME "
                "in the worker's environment. Or use gate_mode='inline'."
            )
        self.log.info("Pinned to node %s, checked by gate %r", node, self.gate_task_id)
        return _pods.pin_to_node(data, node)


def _has_template(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_template(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_template(v) for v in value)
    return _pods.is_template(value)


def _inline_gate(
    data: dict[str, Any], container: str, accelerator: str, profile: str
) -> dict[str, Any]:
    """The main container runs ``accelerators bench`` first and its own command only on pass."""
    for item in data["spec"]["containers"]:
        if item.get("name") != container:
            continue
        command = [*(item.get("command") or []), *(item.get("args") or [])]
        if not item.get("command"):
            raise AcceleratorError(
                f"gate_mode='inline' needs the container's command (cmds=...): the gate runs "
                f"first and then execs it; container {container!r} has none"
            )
        check = shlex.join(gate_command(accelerator, profile, json_path=None))
        item["command"] = ["/bin/sh", "-c", f'{check} && exec "$@"', "accelerators-gate", *command]
        item.pop("args", None)
        env = list(item.get("env") or [])
        if not any(e.get("name") == "NODE_NAME" for e in env):
            env.append(_node_name_env())
        item["env"] = env
    return data


def _node_name_env() -> dict[str, Any]:
    return {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}


class AcceleratorGateOperator(AcceleratorPodOperator):
    """The benchmark gate: ``accelerators bench`` in a pod on the accelerator.

    The pod runs ``accelerators bench --profile PROFILE --expect SPEC --json`` (the image needs
    ``accelerators[bench]``) with ``NODE_NAME`` from the downward API; the report comes back as
    the task's XCom ``return_value`` (JSON), its node as XCom ``node``, and a table of it in
    the task log. A failed gate fails the task. Its node is remembered in the task's state
    store, so a retry is kept off every node that failed (``kubernetes.io/hostname NotIn``).
    Guarded tasks (``gate=`` of :class:`AcceleratorPodOperator`) pin to ``node``.

    :param accelerator: where the gate pod goes (templated).
    :param platform: the cluster's platform.
    :param expect: what the gate checks; default ``accelerator``. ``"any"`` accepts any
        device (a health check only; the log says that nothing was checked). Templated.
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
        accelerator: Any,
        platform: str,
        expect: Any = None,
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

    def _expect(self) -> str | None:
        text = str(self.expect).strip()
        if text.lower() in ("any", "none", ""):
            return None
        return str(_pods.resolve_spec(text, what=f"{self.task_id}: expect"))

    def build_pod_request_obj(
        self, context: Context | None = None, *, dry_run: bool = False
    ) -> k8s.V1Pod:
        """The gate pod: ``accelerators bench`` on the accelerator, off nodes that failed."""
        data = _pods.to_dict(super().build_pod_request_obj(context, dry_run=dry_run))
        main = next(c for c in data["spec"]["containers"] if c["name"] == self.base_container_name)
        main["command"] = gate_command(self._expect(), self.profile, json_path=GATE_REPORT_PATH)
        main.pop("args", None)
        failed = _failed_nodes(context)
        if failed:
            self.log.info("Keeping the gate off nodes that failed it before: %s", failed)
            data = _pods.avoid_nodes(data, failed)
        return _pods.to_pod(data)

    def execute(self, context: Context) -> Any:
        expect = self._expect()
        if local_run(context):
            expect = None
        if expect is None or local_run(context):
            self.log.warning(
                "Gate %r checks health only (expect=%r, DAG param %s=%s): the device is NOT "
                "compared with %s",
                self.task_id,
                self.expect,
                LOCAL_RUN_PARAM,
                local_run(context),
                self.accelerator,
            )
        if local_run(context) or _truthy(self.in_process, what=f"{self.task_id}: in_process"):
            report = run_in_process(expect, self.profile, context, log=self.log)
        else:
            try:
                result = super().execute(context)
            except Exception:
                node = _pod_node(self)
                if node:
                    record_failed_node(context, node)
                raise
            from accelerators.bench import BenchReport

            report = BenchReport.model_validate(result)
        publish(context, report, log=self.log)
        return report.model_dump(mode="json")


def _failed_nodes(context: Context | None) -> list[str]:
    store = context.get("task_state_store") if context is not None else None
    if store is None:
        return []
    nodes = store.get(FAILED_NODES_KEY, [])
    return [str(n) for n in nodes] if isinstance(nodes, list) else []


def _pod_node(operator: KubernetesPodOperator) -> str | None:
    """The node of the operator's last pod, if it was scheduled."""
    for attr in ("remote_pod", "pod"):
        pod = getattr(operator, attr, None)
        node = getattr(getattr(pod, "spec", None), "node_name", None)
        if node:
            return str(node)
    return None

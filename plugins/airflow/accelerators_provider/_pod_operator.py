"""``AcceleratorPodOperator``: a pod operator placed by spec.

``KubernetesPodOperator`` replaces a pod template's ``nodeSelector``, ``tolerations``,
``affinity`` and container ``resources`` with its own arguments. These operators merge the
template's values, the arguments and the accelerator's fragment first (the core's one
placement, :func:`accelerators.kubernetes.place`), so nothing the user wrote is lost and a
real conflict (the template pins ``nvidia-l4``, the spec asks for H100) is an error, and then
hand the complete values to ``KubernetesPodOperator``'s own pod build, so that the cluster
policy (``pod_mutation_hook``) runs last and has the last word, as with a plain
``KubernetesPodOperator``.

The spec is parsed once, in ``__init__``, and placed once there (the parse-time check); the
pod build reuses both while nothing it reads has changed since (a rendered template field,
another argument), and parses or places again only for what has.
"""

from __future__ import annotations

import contextlib
import copy
import shlex
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator

from accelerators import AcceleratorError, AcceleratorSpec
from accelerators.errors import close_matches
from accelerators.kubernetes import place
from accelerators_provider import _pods
from accelerators_provider._errors import (
    AcceleratorTaskError,
    annotate,
    fail_fast,
    failing_fast,
    step,
)
from accelerators_provider._gate import (
    INLINE_REPORT_PATH,
    check_guard,
    gate_command,
    inline_env,
    matched_spec,
)

if TYPE_CHECKING:
    from airflow.sdk import Context

    from accelerators import SpecLike

__all__ = ["GATE_MODES", "AcceleratorPodOperator"]

#: How a guarded pod proves its node: ``pin`` (run where the gate task ran, from its XCom
#: ``node``) or ``inline`` (run the gate inside the pod before the command).
GATE_MODES = ("pin", "inline")


class AcceleratorPodOperator(KubernetesPodOperator):
    """A ``KubernetesPodOperator`` whose pod is placed on ``accelerator`` by ``platform``.

    :param accelerator: a spec (``"H100:8"``, ``"A100@1g.10gb"``, ``"H100 | A100-80GB"``), a
        constant (``accelerators.H100``) or an :class:`~accelerators.AcceleratorSpec`.
        Templated. Required.
    :param platform: the cluster's platform (``gke``, ``nvidia``, ``karpenter``, ``eks``,
        ``amd``, ``neuron``, ``gaudi``, ``intel``, ``generic``; see
        :func:`accelerators.kubernetes.platforms`). Templated. Required.
    :param platform_options: options of the platform (``labels``, ``label_values``,
        ``tolerations``, ``runtime_class_name``, ``mig_strategy``...).
    :param gate: the gate task (an :class:`AcceleratorGateOperator` or its task id) whose
        node this pod runs on; an operator also becomes upstream of this one. This pod's
        accelerator must fit the gate's node (checked when the DAG is parsed if both are
        known, else when the pod is built, against what the gate matched).
    :param gate_mode: ``"pin"`` (default): with ``gate``, run on the node the gate checked
        (required node affinity ``kubernetes.io/hostname In [<gate's XCom node>]``).
        ``"inline"``: run the gate in this pod first, no gate task needed
        (``accelerators bench`` must be in the image and ``cmds`` given).
    :param gate_profile: the benchmark profile of an inline gate.
    :param kwargs: every ``KubernetesPodOperator`` argument; ``node_selector``,
        ``tolerations``, ``affinity``, ``container_resources`` and the pod template's
        values are all kept.
    :raises PlacementError: at DAG parse time when the platform cannot place the spec, no
        node has its count, the operator's own arguments or its template conflict with it
        (a selector, affinity or device resource no node can meet with it included), a
        container would request more than its limit, or it does not fit its gate's node.
    :raises AcceleratorError: a missing or unknown ``platform``, a bad spec, an unknown
        ``gate_mode`` or ``gate_profile``, an inline gate without a command. Every error of
        this operator, at parse or at run time (a templated or mapped ``accelerator`` that
        renders bad), is also Airflow's ``AirflowFailException``: the task fails at once,
        without retries.
    """

    template_fields: Sequence[str] = (
        *KubernetesPodOperator.template_fields,
        "accelerator",
        "platform",
    )

    def __init__(
        self,
        *,
        accelerator: SpecLike | None = None,
        platform: str | None = None,
        platform_options: dict[str, Any] | None = None,
        gate: Any = None,
        gate_mode: str = "pin",
        gate_profile: str = "quick",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.platform: str = platform or ""  # a missing one is refused below
        self.platform_options = dict(platform_options or {})
        self.gate_mode = gate_mode
        self.gate_profile = gate_profile
        self.gate_task_id: str | None = None
        self._accelerator_spec: AcceleratorSpec | None = None  # parsed, when known at parse time
        # The last placement: what it read, and the pod (reused while they are the same).
        self._placement: tuple[tuple[Any, ...], dict[str, Any]] | None = None
        gate_spec: SpecLike | None = None
        if gate is not None:
            self.gate_task_id = gate if isinstance(gate, str) else gate.task_id
            if not isinstance(gate, str):
                self.set_upstream(gate)
                gate_spec = getattr(gate, "_accelerator_spec", None) or getattr(
                    gate, "accelerator", None
                )
        # One try for every check (a parse pays for each context manager it enters); `site`
        # says which argument a failure is about. A mapped task is built here at run time,
        # so every error fails the task at once (fail_fast): no retry renders it otherwise.
        site: tuple[str, Any] = ("gate_mode", gate_mode)
        try:
            if gate_mode not in GATE_MODES:
                hints = close_matches(str(gate_mode), GATE_MODES)
                hint = f"; did you mean {hints[0]!r}?" if hints else ""
                raise AcceleratorError(f"expected one of {', '.join(GATE_MODES)}{hint}")
            site = ("platform", platform)
            _pods.check_platform(platform)
            if gate_mode == "inline":
                site = ("gate_profile", gate_profile)
                _pods.check_profile(gate_profile)
                site = ("cmds", self.cmds)
                if not (self.pod_template_file or self.pod_template_dict or self.full_pod_spec):
                    self._inline_command(None)  # else read with the template, below or later
            if _pods.is_template(accelerator):
                self.accelerator: str = accelerator  # rendered by Airflow, then read
                return
            site = ("accelerator", accelerator)
            spec = AcceleratorSpec.coerce(accelerator)
            self.accelerator = str(spec)
            self._accelerator_spec = spec
            if not _pods.is_template(platform):
                self._check_at_parse_time(spec, gate_spec)
        except AcceleratorError as exc:
            raise fail_fast(annotate(exc, self.task_id, *site)) from None

    # -- parse time --------------------------------------------------------------------
    def _check_at_parse_time(self, spec: AcceleratorSpec, gate_spec: SpecLike | None) -> None:
        """Raise now, not at run time, for what is wrong with the task as written."""
        task = self.task_id
        if self.gate_mode == "pin" and gate_spec is not None and not _pods.is_template(gate_spec):
            with step(task, "gate", self.gate_task_id):
                check_guard(task, spec, gate_spec, gate=self.gate_task_id, ran=False)
        if _pods.is_template(self.pod_template_file) or _pods.has_template(self.pod_template_dict):
            # The template is rendered at run time and checked with the pod then; the spec
            # alone is placed now (`accelerator`, as the caller says).
            place(spec, self.platform, **self.platform_options).check()
            return
        if self.pod_template_file:
            with step(task, "pod_template_file", self.pod_template_file):
                template = self._template()  # read now: a missing file is refused now
        else:
            template = self._template()
        if self.gate_mode == "inline" and template[0] is not None:
            with step(task, "cmds", self.cmds):
                self._inline_command(template[0])
        self._placed(spec, template)

    def _spec(self) -> AcceleratorSpec:
        """The spec of ``accelerator`` as it reads now: the one parsed in ``__init__`` unless
        rendering changed the text."""
        parsed = self._accelerator_spec
        if parsed is not None and str(parsed) == self.accelerator:
            return parsed
        parsed = AcceleratorSpec.coerce(self.accelerator)
        self._accelerator_spec = parsed
        return parsed

    # -- the pod -----------------------------------------------------------------------
    def _template(self) -> tuple[dict[str, Any] | None, str]:
        """The base pod ``KubernetesPodOperator`` starts from, and how to name it."""
        return _pods.template_pod(
            pod_template_file=self.pod_template_file,
            pod_template_dict=self.pod_template_dict,
            full_pod_spec=self.full_pod_spec,
            container=self.base_container_name,
        )

    def _placed(
        self, spec: AcceleratorSpec, template: tuple[dict[str, Any] | None, str]
    ) -> dict[str, Any]:
        """The template, the arguments and the accelerator, merged and checked: placed once
        for what they are now (:func:`accelerators.kubernetes.place`). The pod is this
        operator's (kept for the next call): read it, do not change it."""
        arguments = _pods.arguments_pod(
            self.base_container_name,
            container_resources=self.container_resources,
            node_selector=self.node_selector,
            tolerations=self.tolerations,
            affinity=self.affinity,
            runtime_class_name=self.runtime_class_name,
        )
        read = (
            str(spec),
            self.platform,
            self.platform_options,
            template,
            arguments,
            self.base_container_name,
        )
        if self._placement is not None and self._placement[0] == read:
            return self._placement[1]
        pod = _pods.place_task(
            spec,
            self.platform,
            self.platform_options,
            base=template,
            arguments=(arguments, "the operator's arguments", "container_resources"),
            container=self.base_container_name,
        )
        # The options are the user's (a later change must not match): kept as a copy.
        self._placement = ((*read[:2], copy.deepcopy(read[2]), *read[3:]), pod)
        return pod

    def build_pod_request_obj(
        self, context: Context | None = None, *, dry_run: bool = False
    ) -> Any:
        """The pod ``KubernetesPodOperator`` builds, with the template kept and the accelerator
        in, and the cluster policy (``pod_mutation_hook``) applied last.

        With ``gate`` in ``pin`` mode the context is needed (the gate's XCom ``node``); a
        ``dry_run`` without a context leaves the pin out and says so in the log.
        """
        with failing_fast(), step(self.task_id, where=False):
            _pods.check_platform(self.platform)  # as rendered; place() reads the same name
            spec = self._spec()
            template = self._template()
            placed = self._placed(spec, template)
            command, env = self._command(template[0])
            placed = self._guard(placed, spec, context, dry_run=dry_run)
        templates, index = self._base_first()
        with self._handing_over(placed, command, env, templates):
            pod = super().build_pod_request_obj(context, dry_run=dry_run)
        return _pods.put_back(pod, self.base_container_name, index)

    def _base_first(self) -> tuple[dict[str, Any], int | None]:
        """The template arguments for one pod build with container ``base_container_name``
        first in each (``KubernetesPodOperator`` pairs a template's containers with its own by
        position: a sidecar first would get the accelerator), and where the user had it
        (``full_pod_spec``'s place, else the template's; ``None``: nothing moved)."""
        name = self.base_container_name
        values: dict[str, Any] = {}
        index = None
        if self.pod_template_file:
            moved, index = _pods.base_first(_pods.read_template(self.pod_template_file), name)
            if index:  # handed over as the dict KubernetesPodOperator would read from it
                values["pod_template_file"], values["pod_template_dict"] = None, moved
        elif self.pod_template_dict:
            moved, index = _pods.base_first(self.pod_template_dict, name)
            if index:
                values["pod_template_dict"] = moved
        if self.full_pod_spec is not None:
            moved, at = _pods.base_first(_pods.to_dict(self.full_pod_spec), name)
            if at:
                values["full_pod_spec"] = _pods.to_pod(moved)
            index = index if at is None else at
        return values, index

    def _command(
        self, base: dict[str, Any] | None
    ) -> tuple[tuple[list[str], list[str]] | None, list[Any] | None]:
        """The main container's command and arguments when this operator sets them (an
        inline gate), and the environment variables it needs (``base``: the template pod).
        Both are set, non-empty, so that none of the template's is kept."""
        if self.gate_mode != "inline":
            return None, None
        command, args = self._inline_command(base)
        _pods.check_profile(self.gate_profile)
        check = shlex.join(
            gate_command(self.accelerator, self.gate_profile, json_path=INLINE_REPORT_PATH)
        )
        wrapper = ["/bin/sh", "-c", f'{check} && exec "$@"', "accelerators-gate"]
        return (wrapper, [*command, *args]), inline_env(self.env_vars)

    def _inline_command(self, base: dict[str, Any] | None) -> tuple[list[str], list[str]]:
        """The command an inline gate execs after it passes, and its arguments: ``cmds``, else
        the template's main container's (``base``: the template pod)."""
        main = _pods.main_container(base, self.base_container_name)
        command = list(self.cmds or main.get("command") or [])
        if not command:
            where = "the pod template's" if base else "the operator's"
            raise AcceleratorError(
                f"gate_mode='inline' needs the container's command (cmds=...): the gate runs "
                f"first and then execs it; {where} container {self.base_container_name!r} "
                "has none"
            )
        return command, list(self.arguments or main.get("args") or [])

    def _guard(
        self,
        data: dict[str, Any],
        spec: AcceleratorSpec,
        context: Context | None,
        *,
        dry_run: bool,
    ) -> dict[str, Any]:
        if self.gate_mode == "inline" or self.gate_task_id is None:
            return data
        if context is None:
            if dry_run:
                self.log.warning(
                    "Dry run without a context: the pin to gate %r's node is left out",
                    self.gate_task_id,
                )
                return data
            raise AcceleratorError(f"pinning to gate {self.gate_task_id!r} needs the task context")
        ti = context["ti"]
        node = ti.xcom_pull(task_ids=self.gate_task_id, key="node")
        if not node or not isinstance(node, str):
            raise AcceleratorTaskError(
                f"Task {self.task_id!r}: gate {self.gate_task_id!r} reported no node name (XCom "
                f"'node' is {node!r}), so this pod cannot be pinned to the node it checked. The "
                "gate pod gets NODE_NAME from the downward API; an in_process gate needs "
                "NODE_NAME in the worker's environment. Or use gate_mode='inline'."
            )
        matched = matched_spec(ti.xcom_pull(task_ids=self.gate_task_id, key="report"))
        if matched is not None:
            check_guard(self.task_id, spec, matched, gate=self.gate_task_id, ran=True)
        self.log.info("Pinned to node %s, checked by gate %r", node, self.gate_task_id)
        return _pods.pin_to_node(data, node)

    @contextlib.contextmanager
    def _handing_over(
        self,
        placed: dict[str, Any],
        command: tuple[list[str], list[str]] | None,
        env: list[Any] | None,
        templates: dict[str, Any],
    ) -> Iterator[None]:
        """Set the placement arguments to the placed pod's (and the templates to
        :meth:`_base_first`'s) for one pod build, then restore them: ``KubernetesPodOperator``
        reconciles them over the template as usual (they already hold the template's values)
        and calls ``pod_mutation_hook`` last."""
        pod = _pods.to_pod(placed)
        main = next(c for c in pod.spec.containers if c.name == self.base_container_name)
        values: dict[str, Any] = {
            "node_selector": pod.spec.node_selector or {},
            "tolerations": pod.spec.tolerations or [],
            "affinity": pod.spec.affinity,
            "container_resources": main.resources,
            "runtime_class_name": pod.spec.runtime_class_name,
        }
        if command is not None:
            values["cmds"], values["arguments"] = command
        if env is not None:
            values["env_vars"] = env
        values.update(templates)
        saved = {name: getattr(self, name) for name in values}
        try:
            for name, value in values.items():
                setattr(self, name, value)
            yield
        finally:
            for name, value in saved.items():
                setattr(self, name, value)

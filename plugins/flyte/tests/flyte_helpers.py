"""Serialising with flytekit's own translator, and validating pod specs against Kubernetes."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from flytekit.configuration import Image, ImageConfig, SerializationSettings
from flytekit.tools.translator import get_serializable
from google.protobuf.json_format import MessageToDict

SETTINGS = SerializationSettings(
    project="project",
    domain="development",
    version="v1",
    image_config=ImageConfig(default_image=Image(name="default", fqn="registry/image", tag="v1")),
)


def serialize(entity: Any) -> Any:
    """The task or workflow spec flytekit registers (``get_serializable``)."""
    return get_serializable(OrderedDict(), SETTINGS, entity)


def template_pod_spec(task_spec: Any) -> dict[str, Any] | None:
    """The pod spec of a serialised task's ``k8s_pod`` target, as a camelCase dict."""
    pod = task_spec.template.k8s_pod
    return None if pod is None else dict(pod.pod_spec)


def override_pod_spec(overrides: Any) -> dict[str, Any]:
    """The pod spec of serialised node overrides (a protobuf Struct) as a dict."""
    message = overrides.to_flyte_idl().pod_template.pod_spec
    return MessageToDict(message)


def validate_pod_spec(pod_spec: dict[str, Any]) -> None:
    """Validate ``pod_spec`` inside a Pod against the Kubernetes 1.30 schema (strict)."""
    import kubernetes_validate

    spec = dict(pod_spec)
    containers = []
    for container in spec.get("containers", []):
        container = dict(container)
        container.setdefault("image", "registry/image:v1")
        containers.append(container)
    spec["containers"] = containers
    manifest = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t"}, "spec": spec}
    kubernetes_validate.validate(manifest, "1.30", strict=True)


def required_terms(pod_spec: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """``matchExpressions`` of each required node-selector term."""
    node = pod_spec.get("affinity", {}).get("nodeAffinity", {})
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution", {})
    return [term.get("matchExpressions", []) for term in required.get("nodeSelectorTerms", [])]


def primary(pod_spec: dict[str, Any], name: str = "primary") -> dict[str, Any]:
    """The primary container of a pod spec."""
    return next(c for c in pod_spec["containers"] if c["name"] == name)

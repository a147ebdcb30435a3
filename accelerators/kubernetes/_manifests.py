"""Complete manifests for a spec: a ``v1`` Pod, and with DRA its ResourceClaimTemplate, ready
for ``kubectl apply --dry-run`` (what ``accelerators k8s`` prints).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from accelerators.kubernetes._platform import Platform
    from accelerators.spec import SpecLike

__all__ = ["DEFAULT_COMMAND", "DEFAULT_IMAGE", "build_manifests", "build_pod"]

#: Container image and command of :func:`build_pod` when none are given.
DEFAULT_IMAGE = "ubuntu:24.04"
DEFAULT_COMMAND: tuple[str, ...] = ("sleep", "infinity")

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def build_manifests(
    spec: SpecLike,
    *,
    platform: str | Platform,
    name: str = "accelerator-pod",
    image: str = DEFAULT_IMAGE,
    command: Sequence[str] | None = None,
    namespace: str | None = None,
    container_name: str = "main",
    dra: bool = False,
    **options: Any,
) -> list[dict[str, Any]]:
    """The manifests to apply, in order: with ``dra`` the ResourceClaimTemplate, then the Pod.

    Parameters as for :func:`build_pod`.
    """
    from accelerators.kubernetes import (
        _DRA_OPTIONS,
        merge_fragment,
        to_dra_fragment,
        to_pod_fragment,
    )
    from accelerators.spec import AcceleratorSpec

    parsed = AcceleratorSpec.coerce(spec)
    if len(name) > 253 or not _DNS_SUBDOMAIN.match(str(name)):
        raise AcceleratorError(
            f"Pod name {name!r} is not valid: use lowercase letters, digits, '-' and '.', "
            "starting and ending with a letter or digit"
        )
    for what, value in (("Namespace", namespace), ("Container name", container_name)):
        if value is not None and not _DNS_LABEL.match(str(value)):
            raise AcceleratorError(
                f"{what} {value!r} is not valid: use at most 63 lowercase letters, digits and "
                "'-', starting and ending with a letter or digit"
            )
    if not str(image).strip() or str(image) != str(image).strip():
        raise AcceleratorError(f"Expected a container image name, got {image!r}")
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    main: dict[str, Any] = {
        "name": container_name,
        "image": image,
        "command": list(DEFAULT_COMMAND if command is None else command),
    }
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"restartPolicy": "Never", "containers": [main]},
    }
    if not dra:
        dra_only = sorted(set(options) & set(_DRA_OPTIONS))
        if dra_only:
            raise AcceleratorError(f"Option {dra_only[0]!r} applies only with dra=True")
        return [merge_fragment(pod, to_pod_fragment(parsed, platform=platform, **options))]
    options.setdefault("claim_template_name", f"{name}-{options.get('claim_name', 'gpu')}")
    result = to_dra_fragment(parsed, platform=platform, **options)
    template = result.claim_template
    if namespace:
        template["metadata"]["namespace"] = namespace
    return [template, merge_fragment(pod, result.pod)]


def build_pod(
    spec: SpecLike,
    *,
    platform: str | Platform,
    name: str = "accelerator-pod",
    image: str = DEFAULT_IMAGE,
    command: Sequence[str] | None = None,
    namespace: str | None = None,
    container_name: str = "main",
    dra: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """A complete ``v1`` Pod manifest for ``spec``, ready for ``kubectl apply --dry-run``.

    :param spec: the accelerator spec.
    :param platform: a platform name or :class:`Platform`.
    :param name: ``metadata.name``.
    :param image: the container image.
    :param command: the container command (default ``sleep infinity``).
    :param namespace: ``metadata.namespace``, if any.
    :param container_name: the container's name.
    :param dra: request the accelerator through a DRA claim; the pod refers to the
        ResourceClaimTemplate ``<name>-<claim_name>`` (:func:`build_manifests` returns it).
    :param options: platform options (and, with ``dra``, :func:`to_dra_fragment`'s).
    """
    return build_manifests(
        spec,
        platform=platform,
        name=name,
        image=image,
        command=command,
        namespace=namespace,
        container_name=container_name,
        dra=dra,
        **options,
    )[-1]

"""Pin a pod to one node, and tell a container which node it runs on.

A benchmark gate that ran in one pod proves something about the node it ran on; a task
that should rely on that proof must land on the same node (:func:`pin_to_node`) and the
gate must know the node's name (:func:`node_name_env`: the downward API's
``spec.nodeName`` in ``$NODE_NAME``, which :class:`accelerators.bench.BenchReport` reads).

This module imports only the standard library and :mod:`accelerators.errors`.
"""

from __future__ import annotations

import re
from typing import Any

from accelerators.errors import AcceleratorError

__all__ = ["HOSTNAME_LABEL", "NODE_NAME_ENV", "node_name_env", "pin_to_node"]

#: The well-known label every node carries with its name.
HOSTNAME_LABEL = "kubernetes.io/hostname"
#: The environment variable the gate reads the node name from.
NODE_NAME_ENV = "NODE_NAME"

_NODE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def pin_to_node(node: str) -> dict[str, Any]:
    """A pod fragment whose required node affinity allows only ``node``.

    Merge it with :func:`accelerators.kubernetes.merge_fragment`; like every required
    requirement it is ANDed into each existing ``nodeSelectorTerm``.

    :param node: the node's name (a DNS subdomain, at most 253 characters).
    :raises AcceleratorError: ``node`` is not a valid node name.
    """
    if len(str(node)) > 253 or not _NODE_NAME.match(str(node)):
        raise AcceleratorError(
            f"Expected a Kubernetes node name (lowercase letters, digits, '-' and '.'), got "
            f"{node!r}; a gate report's node is None outside Kubernetes"
        )
    term = {"matchExpressions": [{"key": HOSTNAME_LABEL, "operator": "In", "values": [node]}]}
    return {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
            }
        }
    }


def node_name_env() -> dict[str, Any]:
    """The container ``env`` entry that sets ``$NODE_NAME`` from the pod's ``spec.nodeName``."""
    return {"name": NODE_NAME_ENV, "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}

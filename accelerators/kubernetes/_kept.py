"""What a pod spec that *replaces* another loses of it.

Some schedulers replace a pod spec whole instead of merging it: flytepropeller builds a task
node's pod from the node's pod template override alone (``ApplyPodTemplateOverride``), so the
task's own sidecars, volumes, node selector, tolerations and cpu/memory are gone unless the
override carries them. :func:`dropped_settings` lists, one line each, what a replacement lacks
of the spec it replaces: the linter's evidence that something the user wrote disappeared.

Device resources and the accelerator's own node selection are the placement's, not the
user's: pass the user's part as ``before`` (what they wrote, without the accelerator's parts)
and only their settings are compared. Plain camelCase dicts; standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["KEPT_RESOURCES", "dropped_settings"]

#: The resources a replacement must keep (device resources belong to the placement).
KEPT_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def dropped_settings(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    *,
    container: str = "primary",
    after_container: str | None = None,
) -> list[str]:
    """What ``after`` lacks of ``before``, one phrase per setting (``[]`` when nothing).

    >>> before = {"containers": [{"name": "primary", "resources": {"requests": {"cpu": "16"}}},
    ...                          {"name": "log-shipper"}],
    ...           "volumes": [{"name": "data"}], "nodeSelector": {"team": "ml"}}
    >>> dropped_settings(before, {"containers": [{"name": "primary"}]})
    ["cpu request '16'", "container 'log-shipper'", "volume 'data'", 'nodeSelector team=ml']

    A setting ``after`` gives another value (a new cpu request, another image) is a choice,
    not a loss: only what ``after`` does not set at all is reported.

    :param before: the pod spec that is replaced (the user's part of it).
    :param after: the pod spec that replaces it.
    :param container: the main container's name in ``before``.
    :param after_container: its name in ``after`` (default: the same).
    """
    main_after = _container(after, after_container or container)
    main_before = _container(before, container)
    lost: list[str] = []
    lost += _resources(main_before, main_after)
    lost += _named(before, after, "containers", "container", skip=container)
    lost += _named(before, after, "initContainers", "init container")
    lost += _named(before, after, "volumes", "volume")
    mounts = {m.get("mountPath") for m in main_after.get("volumeMounts") or []}
    lost += [
        f"volume mount {m.get('mountPath')!r}"
        for m in main_before.get("volumeMounts") or []
        if m.get("mountPath") not in mounts
    ]
    env = {e.get("name") for e in main_after.get("env") or []}
    lost += [
        f"env {e.get('name')}" for e in main_before.get("env") or [] if e.get("name") not in env
    ]
    selector = after.get("nodeSelector") or {}
    lost += [
        f"nodeSelector {k}={v}"
        for k, v in (before.get("nodeSelector") or {}).items()
        if selector.get(k) != v
    ]
    tolerations = [dict(t) for t in after.get("tolerations") or []]
    lost += [
        f"toleration {_show_toleration(t)}"
        for t in before.get("tolerations") or []
        if dict(t) not in tolerations
    ]
    lost += _affinity(before, after)
    for key in ("serviceAccountName", "priorityClassName", "runtimeClassName", "schedulerName"):
        if before.get(key) and not after.get(key):
            lost.append(f"{key} {before[key]!r}")
    return lost


def _container(spec: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    return next((c for c in spec.get("containers") or [] if c.get("name") == name), {})


def _resources(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    lost = []
    for side, word in (("requests", "request"), ("limits", "limit")):
        had = (before.get("resources") or {}).get(side) or {}
        has = (after.get("resources") or {}).get(side) or {}
        lost += [f"{k} {word} {str(had[k])!r}" for k in KEPT_RESOURCES if k in had and k not in has]
    return lost


def _named(
    before: Mapping[str, Any], after: Mapping[str, Any], field: str, word: str, skip: str = ""
) -> list[str]:
    names = {item.get("name") for item in after.get(field) or []}
    return [
        f"{word} {item.get('name')!r}"
        for item in before.get(field) or []
        if item.get("name") != skip and item.get("name") not in names
    ]


def _show_toleration(toleration: Mapping[str, Any]) -> str:
    key = toleration.get("key") or "*"
    value = f"={toleration['value']}" if toleration.get("value") else ""
    effect = f":{toleration['effect']}" if toleration.get("effect") else ""
    return f"{key}{value}{effect}"


def _affinity(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    def expressions(spec: Mapping[str, Any]) -> list[dict[str, Any]]:
        node = (spec.get("affinity") or {}).get("nodeAffinity") or {}
        required = node.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
        terms: Sequence[Mapping[str, Any]] = required.get("nodeSelectorTerms") or []
        preferred = [
            p.get("preference") or {}
            for p in node.get("preferredDuringSchedulingIgnoredDuringExecution") or []
        ]
        return [dict(e) for t in [*terms, *preferred] for e in t.get("matchExpressions") or []]

    kept = expressions(after)
    lost = [
        f"node affinity {e.get('key')} {e.get('operator')} {list(e.get('values') or [])}".rstrip()
        for e in expressions(before)
        if e not in kept
    ]
    for kind in ("podAffinity", "podAntiAffinity"):
        if (before.get("affinity") or {}).get(kind) and not (after.get("affinity") or {}).get(kind):
            lost.append(kind)
    return lost

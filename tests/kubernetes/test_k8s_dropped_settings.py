"""``dropped_settings``: what a pod spec that replaces another loses of it (Flyte's node pod
template override replaces the task's pod spec whole)."""

from __future__ import annotations

from typing import Any

from accelerators.kubernetes import dropped_settings

USERS: dict[str, Any] = {
    "containers": [
        {
            "name": "primary",
            "resources": {"requests": {"cpu": "16", "memory": "64Gi"}, "limits": {"cpu": "32"}},
            "env": [{"name": "WANDB_PROJECT", "value": "x"}],
            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        },
        {"name": "log-shipper", "image": "fluent-bit"},
    ],
    "initContainers": [{"name": "fetch-weights"}],
    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}],
    "nodeSelector": {"team": "ml"},
    "tolerations": [{"key": "spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"}],
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "zone", "operator": "In", "values": ["us-east1-b"]}
                        ]
                    }
                ]
            }
        }
    },
    "serviceAccountName": "trainer",
}


def test_everything_the_user_wrote_that_the_replacement_lacks_is_named() -> None:
    replacement = {"containers": [{"name": "primary", "resources": {"limits": {"gpu": "8"}}}]}
    assert dropped_settings(USERS, replacement) == [
        "cpu request '16'",
        "memory request '64Gi'",
        "cpu limit '32'",
        "container 'log-shipper'",
        "init container 'fetch-weights'",
        "volume 'data'",
        "volume mount '/data'",
        "env WANDB_PROJECT",
        "nodeSelector team=ml",
        "toleration spot=true:NoSchedule",
        "node affinity zone In ['us-east1-b']",
        "serviceAccountName 'trainer'",
    ]


def test_a_replacement_that_carries_them_loses_nothing_and_new_values_are_choices() -> None:
    carried = {**USERS, "containers": [dict(c) for c in USERS["containers"]]}
    carried["containers"][0] = {
        **USERS["containers"][0],
        "name": "main",
        "resources": {"requests": {"cpu": "8", "memory": "64Gi"}, "limits": {"cpu": "32"}},
    }
    assert dropped_settings(USERS, carried, after_container="main") == []

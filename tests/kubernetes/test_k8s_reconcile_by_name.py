"""A template's main container is found by name, not by position (issue 28, item 12): a
sidecar listed first keeps its resources to itself."""

from __future__ import annotations

from accelerators.kubernetes import reconcile_placement


def test_the_templates_main_container_is_found_by_name() -> None:
    template = {
        "spec": {
            "containers": [
                {"name": "proxy", "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}}},
                {"name": "base", "resources": {"limits": {"memory": "16Gi"}}},
            ]
        }
    }
    pod = {"spec": {"containers": [{"name": "base", "resources": {"limits": {"cpu": "8"}}}]}}
    merged = reconcile_placement(template, pod, container="base")
    [base] = merged["spec"]["containers"]
    assert base["resources"]["limits"] == {"memory": "16Gi", "cpu": "8"}
    # Without a name to look for, the first container is the main one, as before.
    first = reconcile_placement(template, pod, container=None)
    assert first["spec"]["containers"][0]["resources"]["limits"] == {
        "cpu": "8",
        "memory": "64Mi",
    }

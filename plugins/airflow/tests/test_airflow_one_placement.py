"""One placement for the three ways an Airflow task gets an accelerator (issue 34, item 2).

``AcceleratorPodOperator``, ``@task.accelerator`` and ``executor_config`` used to lay the
template, the task's own arguments and the accelerator's fragment each in its own hand-written
way, and the copies differed. All three now read their layers the same way and place through
the core's ``accelerators.kubernetes.place``. The table gives each the same spec, template
and user values (as the operator's arguments, the decorator's, or a ``pod_override`` on a
worker template) and compares the pods Airflow builds; the cases where the copies used to
differ are kept apart, each with what the old copy did; and counting tests show that one
operator build, one decorated task and one ``executor_config`` place the spec once.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from airflow_testenv import validate_pod
from kubernetes.client import models as k8s

from accelerators import AcceleratorError, AcceleratorSpec, PlacementError
from accelerators.kubernetes import Platform, pod_model
from accelerators_provider import AcceleratorPodOperator, executor_config

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PLACEMENT = ("nodeSelector", "tolerations", "affinity", "runtimeClassName")


def _zone(*zones: str) -> dict[str, Any]:
    term = {
        "matchExpressions": [
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": list(zones)}
        ]
    }
    return {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": [term]}}}


def _template(**spec: Any) -> dict[str, Any]:
    main = {"name": "base", "image": "worker:1", **spec.pop("main", {})}
    containers = [*spec.pop("before", []), main]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "t"},
        "spec": {"containers": containers, **spec},
    }


#: (id, spec, platform, platform options, template, the task's own values)
CASES: list[tuple[str, str, str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    (
        "template-and-arguments",
        "L4:2",
        "gke",
        {},
        _template(
            nodeSelector={"pool": "gpu"},
            tolerations=[{"key": "spot", "operator": "Exists"}],
            main={"resources": {"limits": {"memory": "16Gi"}}},
        ),
        {
            "tolerations": [{"key": "team", "operator": "Exists", "effect": "NoSchedule"}],
            "container_resources": {"limits": {"cpu": "8"}, "requests": {"cpu": "4"}},
        },
    ),
    (
        "affinity-and-selector",
        "H100-SXM:8",
        "nvidia",
        {"runtime_class_name": "nvidia"},
        _template(affinity=_zone("us-a", "us-b")),
        {"node_selector": {"team": "ml"}, "affinity": _zone("us-b", "us-c")},
    ),
    (
        "mig-with-a-sidecar-first",
        "A100@1g.10gb",
        "nvidia",
        {"mig_strategy": "mixed"},
        _template(before=[{"name": "log", "image": "fluentbit:3"}]),
        {"container_resources": {"requests": {"memory": "8Gi"}}},
    ),
    (
        "platform-tolerations",
        "MI300X:8",
        "amd",
        {"tolerations": [{"key": "amd.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]},
        _template(main={"resources": {"limits": {"memory": "64Gi"}}}),
        {"container_resources": {"requests": {"memory": "32Gi"}}, "runtime_class_name": "kata"},
    ),
    (
        "fallbacks",
        "H100-SXM:8 | A100-80GB:8",
        "gke",
        {},
        _template(nodeSelector={"pool": "train"}),
        {},
    ),
]


# -- the three ways, each giving the pod Airflow builds --------------------------------------
def _models(values: dict[str, Any]) -> dict[str, Any]:
    """The task's own values as a user writes them for an operator or a decorator."""
    out = dict(values)
    if "container_resources" in out:
        out["container_resources"] = k8s.V1ResourceRequirements(**out["container_resources"])
    if "tolerations" in out:
        out["tolerations"] = [k8s.V1Toleration(**t) for t in out["tolerations"]]
    if "affinity" in out:
        out["affinity"] = pod_model(
            {"spec": {"containers": [], "affinity": out["affinity"]}}
        ).spec.affinity
    return out


def _operator(
    spec: str,
    platform: str,
    options: dict[str, Any],
    template: dict[str, Any],
    values: dict[str, Any],
    task_id: str = "op",
) -> dict[str, Any]:
    op = AcceleratorPodOperator(
        task_id=task_id,
        accelerator=spec,
        platform=platform,
        platform_options=copy.deepcopy(options),
        image="trainer:1",
        pod_template_dict=copy.deepcopy(template),
        **_models(values),
    )
    return validate_pod(op.build_pod_request_obj(dry_run=True))


def _decorator(
    spec: str,
    platform: str,
    options: dict[str, Any],
    template: dict[str, Any],
    values: dict[str, Any],
    task_id: str = "deco",
) -> dict[str, Any]:
    import pendulum
    from airflow.sdk import DAG, task

    with DAG(task_id, schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:

        @task.accelerator(
            accelerator=spec,
            platform=platform,
            platform_options=copy.deepcopy(options),
            image="trainer:1",
            pod_template_dict=copy.deepcopy(template),
            task_id=task_id,
            **_models(values),
        )
        def work() -> None:
            return None

        work()
    return validate_pod(dag.get_task(task_id).build_pod_request_obj(dry_run=True))


def _override(values: dict[str, Any]) -> Any:
    """The task's own values as a ``pod_override`` (what a KubernetesExecutor user writes)."""
    spec: dict[str, Any] = {"containers": [{"name": "base"}]}
    if "container_resources" in values:
        spec["containers"][0]["resources"] = values["container_resources"]
    for name, key in (
        ("node_selector", "nodeSelector"),
        ("tolerations", "tolerations"),
        ("affinity", "affinity"),
        ("runtime_class_name", "runtimeClassName"),
    ):
        if name in values:
            spec[key] = values[name]
    return pod_model({"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": spec})


def _executor(
    spec: str,
    platform: str,
    options: dict[str, Any],
    template: dict[str, Any],
    values: dict[str, Any],
    path: Path,
) -> dict[str, Any]:
    """The worker pod the KubernetesExecutor builds: the worker template under the override."""
    from airflow.providers.cncf.kubernetes.pod_generator import PodGenerator

    path.write_text(yaml.safe_dump(template))
    config = executor_config(
        spec,
        platform=platform,
        pod_override=_override(values),
        pod_template_file=str(path),
        **copy.deepcopy(options),
    )
    base = PodGenerator.deserialize_model_file(str(path))
    return validate_pod(PodGenerator.reconcile_pods(base, config["pod_override"]))


def _placement(pod: dict[str, Any]) -> dict[str, Any]:
    spec = pod["spec"]
    main = next(c for c in spec["containers"] if c["name"] == "base")
    out = {key: spec.get(key) or None for key in PLACEMENT}  # {} and absent are alike
    out["resources"] = main.get("resources")
    return out


@pytest.mark.parametrize(
    ("spec", "platform", "options", "template", "values"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_the_three_ways_give_one_pod(
    spec: str,
    platform: str,
    options: dict[str, Any],
    template: dict[str, Any],
    values: dict[str, Any],
    tmp_path: Path,
) -> None:
    operator = _placement(_operator(spec, platform, options, template, values))
    decorator = _placement(_decorator(spec, platform, options, template, values))
    worker = _placement(_executor(spec, platform, options, template, values, tmp_path / "w.yaml"))
    assert operator == decorator
    assert operator == worker
    # Nothing of the user's is lost, and the device is in.
    limits = operator["resources"]["limits"]
    assert any(k.endswith(("/gpu", "/mig-1g.10gb")) for k in limits)
    for key, value in template["spec"].get("nodeSelector", {}).items():
        assert operator["nodeSelector"][key] == value


def _sentences(error: BaseException) -> str:
    """What a placement error says after the layer it names (each way names its own)."""
    text = str(error)
    for layer in ("the operator's arguments", "the task's arguments", "pod_override"):
        text = text.replace(layer, "<arguments>")
    return text[text.index("<arguments>") :] if "<arguments>" in text else text


def test_the_three_ways_refuse_alike(tmp_path: Path) -> None:
    """A selector of the task's own that no H100 node has: the same sentence from each."""
    values = {"node_selector": {"node.kubernetes.io/instance-type": "a2-highgpu-8g"}}
    errors = []
    for way in (_operator, _decorator):
        with pytest.raises(PlacementError) as raised:
            way("H100-SXM:8", "gke", {}, _template(), values)
        errors.append(_sentences(raised.value))
    with pytest.raises(PlacementError) as raised:
        _executor("H100-SXM:8", "gke", {}, _template(), values, tmp_path / "w.yaml")
    errors.append(_sentences(raised.value))
    assert errors[0].startswith("<arguments>: no node it selects can host 'H100-SXM:8'")
    assert errors[0] == errors[1] == errors[2]


# -- where the copies differed ---------------------------------------------------------------
def test_a_runtime_class_of_the_task_is_never_replaced_silently() -> None:
    """Before: the operator refused a task ``runtime_class_name`` that the platform option
    contradicts, while ``@task.accelerator`` left it out of its layers and then replaced it
    with the platform's (``kata`` silently became ``nvidia``). Both refuse now."""
    values = {"runtime_class_name": "kata"}
    for way in (_operator, _decorator):
        with pytest.raises(PlacementError, match="runtimeClassName"):
            way("H100-SXM", "nvidia", {"runtime_class_name": "nvidia"}, _template(), values)


def test_a_template_dict_key_the_operator_would_drop_is_refused() -> None:
    """Before: ``@task.accelerator`` read ``pod_template_dict`` as given (and refused the
    snake_case ``node_selector``), while the operator deserialised it as
    ``KubernetesPodOperator`` does, which drops that key: the user's selector vanished
    silently. Both read it as ``KubernetesPodOperator`` does and refuse what it would drop,
    naming the key."""
    template = _template()
    template["spec"]["node_selector"] = {"pool": "gpu"}  # kubernetes.client's to_dict() spelling
    for way in (_operator, _decorator):
        with pytest.raises(AcceleratorError, match=r"pod_template_dict: .*spec\.node_selector"):
            way("L4", "gke", {}, template, {})


def test_a_template_dict_is_read_as_the_operator_builds_it() -> None:
    """Values the V1Pod model normalises (a quantity written as a number) are compared as
    ``KubernetesPodOperator`` will send them, the same by each way."""
    template = _template(main={"resources": {"limits": {"cpu": 8}}})
    values = {"container_resources": {"requests": {"cpu": "4"}}}
    operator = _placement(_operator("L4", "gke", {}, template, values))
    decorator = _placement(_decorator("L4", "gke", {}, template, values))
    assert operator == decorator
    assert operator["resources"]["limits"]["cpu"] == "8"


# -- placed once -----------------------------------------------------------------------------
@pytest.fixture
def warm() -> None:
    """A warm process: what the DAG processor's preload loads, as its forked children have it
    (the catalog's own names, parsed once per process, are not the task's spec)."""
    from accelerators_provider import preload

    preload._load()  # preload() itself runs in the DAG processor only


@pytest.fixture
def placements(monkeypatch: pytest.MonkeyPatch, warm: None) -> list[str]:
    """Every call of ``Platform.fragment`` (the one place a spec is placed), by spec."""
    calls: list[str] = []
    original: Callable[..., Any] = Platform.fragment

    def counted(self: Platform, spec: AcceleratorSpec) -> Any:
        calls.append(str(spec))
        return original(self, spec)

    monkeypatch.setattr(Platform, "fragment", counted)
    return calls


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch, warm: None) -> list[Any]:
    """Every ``AcceleratorSpec.parse`` of something that is not already a spec."""
    calls: list[Any] = []
    original = AcceleratorSpec.parse.__func__  # type: ignore[attr-defined]

    def counted(cls: type[AcceleratorSpec], value: Any) -> AcceleratorSpec:
        if not isinstance(value, AcceleratorSpec):
            calls.append(value)
        return original(cls, value)  # type: ignore[no-any-return]

    monkeypatch.setattr(AcceleratorSpec, "parse", classmethod(counted))
    return calls


def test_one_operator_is_parsed_and_placed_once(
    placements: list[str], parses: list[Any], tmp_path: Path
) -> None:
    template, values = CASES[0][4], _models(CASES[0][5])
    op = AcceleratorPodOperator(
        task_id="train",
        accelerator="H100-SXM:8",
        platform="gke",
        image="trainer:1",
        pod_template_dict=copy.deepcopy(template),
        **values,
    )
    assert (placements, parses) == (["H100-SXM:8"], ["H100-SXM:8"])  # the parse-time check
    op.build_pod_request_obj(dry_run=True)
    assert (placements, parses) == (["H100-SXM:8"], ["H100-SXM:8"])  # the build reuses both
    # A build whose inputs changed since (a rendered field) places once more, for them.
    op.node_selector = {"team": "ml"}
    op.build_pod_request_obj(dry_run=True)
    assert placements == ["H100-SXM:8", "H100-SXM:8"]
    assert parses == ["H100-SXM:8"]


def test_one_build_places_once(placements: list[str]) -> None:
    """A build from a fresh operator whose accelerator was rendered at run time."""
    op = AcceleratorPodOperator(
        task_id="rendered",
        accelerator="{{ params.gpu }}",
        platform="gke",
        image="trainer:1",
        pod_template_dict=_template(nodeSelector={"pool": "gpu"}),
    )
    assert placements == []
    op.render_template_fields({"params": {"gpu": "H100-SXM:8"}})
    op.build_pod_request_obj(dry_run=True)
    assert placements == ["H100-SXM:8"]


def test_a_decorated_task_and_an_executor_config_place_once(
    placements: list[str], parses: list[Any], tmp_path: Path
) -> None:
    _decorator("L4:2", "gke", {}, _template(nodeSelector={"pool": "gpu"}), {})
    assert (placements, parses) == (["L4:2"], ["L4:2"])
    placements.clear()
    parses.clear()
    executor_config("L4:2", platform="gke", pod_template_file=None)
    assert (placements, parses) == (["L4:2"], ["L4:2"])


def test_the_gate_decorator_parses_and_places_once(
    placements: list[str], parses: list[Any]
) -> None:
    import pendulum
    from airflow.sdk import DAG, task

    with DAG("gated", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")):

        @task.accelerator_gate(accelerator="L4", platform="gke")
        def check(report: dict[str, Any]) -> None:
            return None

        check()
    assert (placements, parses) == (["L4"], ["L4"])

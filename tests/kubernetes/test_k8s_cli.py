"""``accelerators k8s SPEC --platform NAME`` through typer's runner."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

typer = pytest.importorskip("typer", reason="typer (the [cli] extra) is missing")
typer_testing = pytest.importorskip("typer.testing")
yaml = pytest.importorskip("yaml", reason="PyYAML is missing")

from accelerators.cli import _k8s  # noqa: E402


def app() -> typer.Typer:
    """An app with only our command, in group mode (as the real CLI has several commands)."""
    application = typer.Typer()

    @application.callback()
    def root() -> None:
        """Test root."""

    _k8s.register(application)
    return application


def run(*args: str) -> typer_testing.Result:  # type: ignore[name-defined]
    return typer_testing.CliRunner().invoke(app(), ["k8s", *args], env={"COLUMNS": "200"})


def test_yaml_pod(k8s_validate: Callable[..., None]) -> None:
    result = run("A100@1g.5gb", "--platform", "gke", "--name", "mig-job", "--image", "cuda:12")
    assert result.exit_code == 0, result.output
    (pod,) = list(yaml.safe_load_all(result.stdout))
    assert pod["apiVersion"] == "v1"
    assert pod["kind"] == "Pod"
    assert pod["metadata"] == {"name": "mig-job"}
    (container,) = pod["spec"]["containers"]
    assert container["image"] == "cuda:12"
    assert container["command"] == ["sleep", "infinity"]
    assert pod["spec"]["nodeSelector"]["cloud.google.com/gke-gpu-partition-size"] == "1g.5gb"
    k8s_validate(pod)


def test_json_pod_with_options() -> None:
    result = run(
        "A100@1g.5gb",
        "-p",
        "nvidia",
        "--format",
        "json",
        "--mig-strategy",
        "single",
        "--runtime-class",
        "nvidia",
        "--command",
        "python -c 'print(1)'",
        "-n",
        "ml",
    )
    assert result.exit_code == 0, result.output
    pod = json.loads(result.stdout)
    assert pod["metadata"] == {"name": "accelerator-pod", "namespace": "ml"}
    assert pod["spec"]["runtimeClassName"] == "nvidia"
    assert pod["spec"]["containers"][0]["command"] == ["python", "-c", "print(1)"]
    assert pod["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "1"}


def test_dra_yaml_has_the_claim_template_first(k8s_validate: Callable[..., None]) -> None:
    result = run("H100-SXM:8", "-p", "nvidia", "--dra")
    assert result.exit_code == 0, result.output
    template, pod = list(yaml.safe_load_all(result.stdout))
    assert template["kind"] == "ResourceClaimTemplate"
    assert (
        pod["spec"]["resourceClaims"][0]["resourceClaimTemplateName"]
        == template["metadata"]["name"]
    )
    for manifest in (template, pod):
        k8s_validate(manifest, ("1.34", "1.37"))


def test_dra_json_is_a_list() -> None:
    result = run("H100-SXM:8", "-p", "nvidia", "--dra", "-o", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["kind"] == "List"
    assert [item["kind"] for item in document["items"]] == ["ResourceClaimTemplate", "Pod"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("MI300X", "-p", "gke"), "Cannot place 'MI300X' on platform 'gke'"),
        (("H100-SXM:x", "-p", "gke"), "Expected a count"),
        (("H100-SXM", "-p", "gek"), "Unknown platform 'gek'"),
        (
            ("H100-SXM", "-p", "gke", "--mig-strategy", "single"),
            "--mig-strategy applies to --platform nvidia only",
        ),
        (("A100@1g.5gb", "-p", "nvidia", "--mig-strategy", "dual"), "Unknown mig_strategy 'dual'"),
        (("H100-SXM", "-p", "gke", "--format", "toml"), "Unknown format 'toml'"),
        (("H100-SXM", "-p", "gke", "--name", "Bad_Name"), "Pod name 'Bad_Name' is not valid"),
        (("H100-SXM", "-p", "gke", "--command", "'unclosed"), "Cannot split --command"),
    ],
)
def test_bad_input_exits_2(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_platform_is_required() -> None:
    result = run("H100-SXM")
    assert result.exit_code == 2
    assert "--platform" in result.output


def test_registered_in_the_real_cli() -> None:
    from accelerators.cli import build_app

    result = typer_testing.CliRunner().invoke(build_app(), ["k8s", "T4", "-p", "gke", "-o", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["spec"]["nodeSelector"] == {
        "cloud.google.com/gke-accelerator": "nvidia-tesla-t4"
    }


@pytest.mark.parametrize(
    ("option", "value"), [("--namespace", "Not Valid!"), ("-n", "UPPER"), ("--name", "a b")]
)
def test_invalid_names_exit_2_without_a_manifest(option: str, value: str) -> None:
    result = run("T4", "--platform", "gke", option, value)
    assert result.exit_code == 2, result.output
    assert "not valid" in result.output
    assert "apiVersion" not in result.stdout

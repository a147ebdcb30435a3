"""``accelerators k8s SPEC --platform NAME``: print a Pod manifest that places the spec.

The output is a complete ``v1`` Pod (one container with image and command), ready for
``kubectl apply --dry-run=server -f -``. With ``--dra`` it is a multi-document YAML with
the ``resource.k8s.io/v1`` ResourceClaimTemplate first (JSON: a ``v1`` ``List``).
Bad input (unknown spec, platform or option, a spec the platform cannot place) exits with
code 2 and a one-screen message.
"""

from __future__ import annotations

import json
import shlex
from typing import Annotated, Any

import typer

from accelerators.cli._common import fail, guarded
from accelerators.kubernetes import DEFAULT_IMAGE

__all__ = ["k8s_manifest", "register"]

_FORMATS = ("yaml", "json")


def register(app: typer.Typer) -> None:
    """Add ``k8s`` to ``app``.

    :param app: the root application.
    """
    app.command("k8s")(k8s_manifest)


@guarded
def k8s_manifest(
    spec: Annotated[
        str,
        typer.Argument(metavar="SPEC", help="Accelerator spec, e.g. 'H100:8' or 'A100@1g.5gb'."),
    ],
    platform: Annotated[
        str,
        typer.Option(
            "--platform",
            "-p",
            help="gke, nvidia, karpenter, eks, flyte, amd, neuron, gaudi, intel or generic.",
        ),
    ],
    output_format: Annotated[
        str, typer.Option("--format", "-o", help="yaml (default) or json.")
    ] = "yaml",
    name: Annotated[str, typer.Option("--name", help="Pod name.")] = "accelerator-pod",
    image: Annotated[str, typer.Option("--image", help="Container image.")] = DEFAULT_IMAGE,
    command: Annotated[
        str | None,
        typer.Option(
            "--command", help="Container command, shell-quoted (default: sleep infinity)."
        ),
    ] = None,
    namespace: Annotated[str | None, typer.Option("--namespace", "-n", help="Namespace.")] = None,
    mig_strategy: Annotated[
        str | None,
        typer.Option("--mig-strategy", help="nvidia platform: mixed (default) or single."),
    ] = None,
    runtime_class: Annotated[
        str | None, typer.Option("--runtime-class", help="runtimeClassName, e.g. nvidia.")
    ] = None,
    dra: Annotated[
        bool, typer.Option("--dra", help="Request the GPUs through a DRA ResourceClaimTemplate.")
    ] = False,
) -> None:
    """Print a Pod manifest (YAML or JSON) that places SPEC on a Kubernetes platform."""
    from accelerators.errors import AcceleratorError
    from accelerators.kubernetes import build_manifests, platform_name

    fmt = output_format.strip().lower()
    if fmt not in _FORMATS:
        fail(f"Unknown format {output_format!r}: expected yaml or json")
    try:
        platform_name(platform)
    except AcceleratorError as exc:
        fail(str(exc))
    options: dict[str, Any] = {}
    if mig_strategy is not None:
        if platform.strip().lower() != "nvidia":
            fail("--mig-strategy applies to --platform nvidia only")
        options["mig_strategy"] = mig_strategy
    if runtime_class is not None:
        options["runtime_class_name"] = runtime_class
    try:
        argv = shlex.split(command) if command is not None else None
    except ValueError as exc:
        fail(f"Cannot split --command {command!r}: {exc}")
    manifests = build_manifests(
        spec,
        platform=platform.strip().lower(),
        name=name,
        image=image,
        command=argv,
        namespace=namespace,
        dra=dra,
        **options,
    )
    _note_left_out(spec, platform.strip().lower(), options, dra=dra)
    if fmt == "json":
        document = (
            manifests[0]
            if len(manifests) == 1
            else {
                "apiVersion": "v1",
                "kind": "List",
                "items": manifests,
            }
        )
        typer.echo(json.dumps(document, indent=2))
        return
    try:
        import yaml  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        fail(
            "YAML output needs PyYAML", hint='pip install "accelerators[k8s]" or use --format json'
        )
    typer.echo(yaml.safe_dump_all(manifests, sort_keys=False, width=1000), nl=False)


def _note_left_out(spec: str, platform: str, options: dict[str, Any], *, dra: bool) -> None:
    """On stderr, each alternative of ``spec`` the platform has no placement for: the pod
    runs on the others (``V100`` on GKE is the 16 GB card: GKE has no 32 GB V100)."""
    if dra:
        return
    from accelerators.kubernetes import place

    for reason in place(spec, platform, **options).left_out:
        said = reason.removeprefix("Cannot place ")
        typer.echo(
            f"note: left out {said}; the pod runs on the spec's other alternatives", err=True
        )

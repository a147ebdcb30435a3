"""``accelerators list``, ``show`` and ``parse``, through typer's runner and one real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

typer_testing = pytest.importorskip("typer.testing", reason="typer (the [cli] extra) is missing")

import accelerators.cli  # noqa: E402
from accelerators import catalog  # noqa: E402
from accelerators.cli import build_app, main  # noqa: E402
from accelerators.spec import AcceleratorSpec  # noqa: E402

WIDE = {"COLUMNS": "200"}


def run(*args: str) -> typer_testing.Result:  # type: ignore[name-defined]
    return typer_testing.CliRunner().invoke(build_app(), list(args), env=WIDE)


# -- list --------------------------------------------------------------------------------------
def test_list_json_has_every_entry_with_units_in_keys() -> None:
    result = run("list", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [row["name"] for row in rows] == [acc.name for acc in catalog.all()]
    for row in rows:
        assert {"memory_gb", "bandwidth_tbps", "tdp_w", "tflops_bf16", "mig_profiles"} <= set(row)


def test_list_filters_by_vendor() -> None:
    result = run("list", "--vendor", "amd", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    expected = {acc.name: acc for acc in catalog.all() if acc.vendor == "amd"}
    assert rows
    assert {row["name"] for row in rows} == set(expected)
    for row in rows:
        assert row["vendor"] == "amd"
        assert row["memory_gb"] == expected[row["name"]].memory_gb


def test_list_filters_by_memory_and_class() -> None:
    result = run("list", "--min-memory", "80", "--class", "GPU", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    expected = catalog.select(device_class="gpu", min_memory_gb=80)
    assert [row["name"] for row in rows] == [acc.name for acc in expected]
    assert all(row["memory_gb"] >= 80 and row["device_class"] == "gpu" for row in rows)


def test_list_table_shows_every_entry_and_partitions() -> None:
    result = run("list")
    assert result.exit_code == 0, result.output
    for acc in catalog.all():
        assert acc.name in result.stdout
    assert "7 MIG" in result.stdout
    assert "8 TPU" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--vendor", "amdd"], "Unknown --vendor 'amdd': expected one of nvidia, amd"),
        (["--class", "tpuu"], "did you mean 'tpu'?"),
    ],
)
def test_list_rejects_unknown_filters(args: list[str], message: str) -> None:
    result = run("list", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


# -- show --------------------------------------------------------------------------------------
def test_show_cites_the_sources_of_the_figures() -> None:
    h100 = catalog.get("H100-SXM")
    result = run("show", "H100-SXM")
    assert result.exit_code == 0, result.output
    out = result.stdout
    source = catalog.sources()[h100.memory.source]
    assert h100.memory.source in out
    assert source.title in out
    assert h100.name in out
    assert f"accelerators.{h100.constant}" in out
    for profile in h100.mig:
        assert profile.attribute in out
    assert h100.names.gke
    assert h100.names.gke in out


def test_show_tpu_lists_its_slice_topologies() -> None:
    v5e = catalog.get("TPU-V5E")
    result = run("show", "tpu-v5-lite-podslice")
    assert result.exit_code == 0, result.output
    assert v5e.name in result.stdout
    for topology in v5e.tpu_topologies:
        assert topology.attribute in result.stdout


def test_show_json_carries_figures_and_their_sources() -> None:
    result = run("show", "A100-40GB", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    a100 = catalog.get("A100-40GB")
    assert data["name"] == a100.name
    assert data["memory_gb"]["value"] == a100.memory_gb
    assert a100.memory.source in data["sources"]


def test_show_accepts_a_name_another_system_reports() -> None:
    a100 = catalog.get("A100-40GB")
    result = run("show", a100.names.nvml[0])
    assert result.exit_code == 0, result.output
    assert a100.name in result.stdout


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("H10O", "did you mean 'H100'"),
        ("80GB+", "does not name one accelerator"),
        ("A100", "it resolves to A100-40GB | A100-80GB"),
        ("H100", "which accepts: H100-SXM, H100-MEGA, H100-PCIE, H100-NVL)"),
    ],
)
def test_show_rejects_what_is_not_one_accelerator(name: str, message: str) -> None:
    result = run("show", name)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


# -- parse ------------------------------------------------------------------------------------
def test_parse_shows_canonical_form_candidates_and_constant() -> None:
    result = run("parse", "A100-40GB@2g.10gb:2 | H100-SXM:8")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "A100-40GB@2g.10gb:2 | H100-SXM:8" in out
    for acc in catalog.by_model("A100-40GB"):
        assert acc.name in out
    assert "MIG 2g.10gb" in out
    assert "accelerators.A100.partition_2g_10gb" in out
    assert "Fallback 1" in out
    assert "accelerators.H100" in out


def test_parse_json_is_the_spec_model_dump() -> None:
    result = run("parse", "--json", "A100-40GB@2g.10gb:2")
    assert result.exit_code == 0, result.output
    spec = AcceleratorSpec.parse("A100-40GB@2g.10gb:2")
    assert json.loads(result.stdout) == json.loads(spec.model_dump_json())
    assert AcceleratorSpec.model_validate_json(result.stdout) == spec


def test_parse_error_is_one_screen_with_a_caret() -> None:
    # GIVEN a spec with a bad count
    # WHEN parsing it
    result = run("parse", "H100-SXM:x")
    # THEN stderr holds the message and the caret under the offending character, exit code 2
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("error: ")
    source_line = next(line for line in lines if line.strip() == "H100-SXM:x")
    caret_line = lines[lines.index(source_line) + 1]
    assert caret_line.index("^") == source_line.index("x")
    assert "Traceback" not in result.output
    assert result.stdout == ""


def test_parse_explain_prints_the_reading_token_by_token() -> None:
    result = run("parse", "--explain", "gpu-h100x8-640gb")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "'gpu-h100x8-640gb': token reader"
    assert any(line.split()[:3] == ["640gb", "total", "memory"] for line in lines)
    assert lines[-1] == "spec: H100-SXM:8 | H100-PCIE:8"
    as_json = json.loads(run("parse", "--explain", "--json", "gpu-h100x8-640gb").stdout)
    assert as_json["spec"] == "H100-SXM:8 | H100-PCIE:8"
    assert [t["role"] for t in as_json["names"][0]["tokens"]][:2] == ["device word", "model"]


def test_parse_explain_of_a_refused_name_shows_what_was_not_placed_and_exits_2() -> None:
    result = run("parse", "--explain", "NC48-A100")
    assert result.exit_code == 2
    assert "NC48  unplaced" in result.stdout
    assert "refused: Cannot read accelerator name 'NC48-A100' exactly" in result.stdout


# -- the application ----------------------------------------------------------------------------
def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert catalog.catalog_version() in result.stdout


def test_missing_command_modules_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        accelerators.cli,
        "COMMANDS",
        {
            "parse": accelerators.cli.COMMANDS["parse"],
            "later": accelerators.cli.Command("accelerators.cli._not_written_yet", "Not yet."),
        },
    )
    result = run("--help")
    assert result.exit_code == 0
    assert "parse" in result.stdout
    assert "later" not in result.stdout
    assert run("parse", "H100-SXM:8").exit_code == 0


def test_a_command_module_missing_a_dependency_is_not_hidden(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "needs_missing_dependency.py").write_text(
        "import accelerators_test_no_such_module\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(
        accelerators.cli,
        "COMMANDS",
        {"broken": accelerators.cli.Command("needs_missing_dependency", "Needs a module.")},
    )
    listed = run("--help")
    assert listed.exit_code == 0
    assert "broken" in listed.stdout  # listed without importing its module
    with pytest.raises(ModuleNotFoundError, match="accelerators_test_no_such_module"):
        typer_testing.CliRunner().invoke(build_app(), ["broken"], catch_exceptions=False)


def test_every_command_line_in_the_table_is_the_commands_own_help() -> None:
    """The root help shows the table's line without importing the module: it must say what
    the command itself says, and every command a module registers must be in the table."""
    import importlib

    import typer

    registered: dict[str, str] = {}
    for module_name in {entry.module for entry in accelerators.cli.COMMANDS.values()}:
        scratch = typer.Typer()
        importlib.import_module(module_name).register(scratch)
        for name, command in typer.main.get_group(scratch).commands.items():
            registered[name] = command.get_short_help_str(limit=1000)
    assert registered == {name: e.help for name, e in accelerators.cli.COMMANDS.items()}


def test_a_command_imports_only_its_own_module() -> None:
    """``accelerators parse`` and ``--help`` import no other command's module (sizing,
    Kubernetes, the benchmark, Flyte): the command line answers at once."""
    probe = (
        "import sys\n"
        "from accelerators.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit:\n"
        "    pass\n"
        "others = ('accelerators.cli._sizing', 'accelerators.cli._k8s', 'accelerators.cli._bench',"
        " 'accelerators.cli._flyte', 'accelerators.sizing', 'accelerators.kubernetes',"
        " 'accelerators.bench')\n"
        "print(sorted(m for m in others if m in sys.modules), file=sys.stderr)\n"
    )
    for args in (["parse", "H100-SXM:8"], ["--help"], ["list", "--json"]):
        done = subprocess.run(
            [sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True
        )
        assert done.stderr.strip().splitlines()[-1] == "[]", (args, done.stderr)


def test_main_without_the_cli_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_find_spec = accelerators.cli.importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name == "rich" else real_find_spec(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(accelerators.cli.importlib.util, "find_spec", find_spec)
    with pytest.raises(SystemExit) as exited:
        main(["list"])
    assert exited.value.code == 2
    assert 'rich is not installed). Install it with: pip install "accelerators[cli]"' in (
        capsys.readouterr().err
    )


def test_real_process_exit_codes_and_json() -> None:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, **WIDE}
    command = [sys.executable, "-m", "accelerators.cli"]

    ok = subprocess.run(
        [*command, "list", "--vendor", "amd", "--json"], capture_output=True, text=True, env=env
    )
    assert ok.returncode == 0, ok.stderr
    assert {row["vendor"] for row in json.loads(ok.stdout)} == {"amd"}

    bad = subprocess.run([*command, "parse", "H10O"], capture_output=True, text=True, env=env)
    assert bad.returncode == 2
    assert "did you mean" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert bad.stdout == ""
    assert bad.stderr.count("error:") == 1

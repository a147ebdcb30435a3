"""benchmarks/gpu_validation.py stays runnable between GPU runs (issue 20).

The script runs on a lent GPU machine with minutes to spare, so it must not rot here: its smoke
mode runs on the fake CUDA backend (an H100 model) and on the CPU, through the same parts,
processes, time limits and result files as on a GPU; the page it writes is regenerated from
the committed results and compared with docs/gpu-validation.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
SCRIPT = BENCHMARKS / "gpu_validation.py"
RUNS = sorted((ROOT / "docs" / "gpu-validation").glob("*-run*.json"))


@pytest.fixture(autouse=True)
def _benchmarks_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))


def _run(outdir: Path, *args: str, timeout: float = 600) -> tuple[int, dict[str, Any], str]:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(outdir), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )
    results = json.loads((outdir / "results.json").read_text())
    return proc.returncode, results, proc.stdout + proc.stderr


def test_fake_cuda_smoke_runs_every_gate_part(tmp_path: Path) -> None:
    code, results, output = _run(tmp_path, "--mode", "fake", "--smoke")
    assert code == 0, output
    parts = results["parts"]
    for part in ("env", "bench_quick", "negative", "bench_standard", "false_alarms"):
        assert parts[part]["status"] == "ok", (part, parts[part])
    for part in ("gemm_sweep", "bandwidth", "faults"):
        assert parts[part]["status"] == "skipped"  # they need real tensors
    derived = results["derived"]
    assert derived["device"] == "NVIDIA H100 80GB HBM3"
    assert derived["accelerator"] == "H100-SXM"
    assert derived["negative_ok"] is True
    assert "wrong_accelerator" in derived["negative_codes"]
    quick = [r for r in derived["gemm"] if r["profile"] == "quick"]
    assert {r["dtype"] for r in quick} >= {"fp32", "bf16", "fp8"}
    bf16 = next(r for r in quick if r["dtype"] == "bf16")
    assert bf16["peak_tflops"] == pytest.approx(989, rel=0.01)
    assert 0 < bf16["of_peak"] < 1
    assert sum(derived["false_alarm_verdicts"].values()) == 1
    summary = (tmp_path / "summary.md").read_text()
    assert "Negative check (wrong accelerator expected): ok" in summary
    assert (tmp_path / "log.txt").read_text().count("==== ") == 5
    assert results["code"]["sources_sha256"]


@pytest.mark.slow
def test_cpu_smoke_runs_every_part_with_real_kernels(tmp_path: Path) -> None:
    code, results, output = _run(tmp_path, "--mode", "cpu", "--smoke")
    assert code == 0, output
    assert {p: r["status"] for p, r in results["parts"].items()} == dict.fromkeys(
        results["parts"], "ok"
    )
    parts, derived = results["parts"], results["derived"]
    # The CLI ran end to end and wrote its JSON report.
    assert parts["bench_quick"]["exit_code"] == 0
    assert parts["bench_quick"]["report"]["device"]["kind"] == "cpu"
    # The reference kernels ran and checked their own results.
    assert parts["gemm_sweep"]["dtypes"]["fp32"]["best"]["best_tflops"] > 0
    assert parts["bandwidth"]["all_checked"] is True
    fp32 = next(r for r in derived["gemm"] if r["profile"] == "quick" and r["dtype"] == "fp32")
    assert fp32["ratio"] is not None
    assert fp32["ratio"] > 0
    assert {r["kernel"] for r in derived["memory"]} == {"copy", "triad"}
    # Faults injected into real torch outputs are caught; the healthy control is not flagged.
    assert derived["faults_caught"]["nan"][0] == derived["faults_caught"]["nan"][1] > 0
    assert derived["faults_caught"]["none"][0] == 0
    assert derived["faults_gate_caught"]["nan"][0] == 1
    # No accelerator on this host: the gate expecting one must fail.
    assert derived["negative_ok"] is True


def test_a_failing_part_is_recorded_and_the_others_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gpu_validation

    work = tmp_path / "work"
    work.mkdir()
    (work / "config.json").write_text(json.dumps({"mode": "fake", "scale": 0.05, "smoke": True}))

    def broken(cfg: dict[str, Any], work: Path) -> dict[str, Any]:
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    monkeypatch.setitem(gpu_validation.RUNNERS, "env", broken)
    assert gpu_validation.run_part("env", work) == 0
    env = json.loads((work / "env.json").read_text())
    assert env["status"] == "error"
    assert "illegal memory access" in env["error"]
    assert "Traceback" in env["traceback"]
    # The negative check runs without env's figures (its default wrong accelerator).
    assert gpu_validation.run_part("negative", work) == 0
    negative = json.loads((work / "negative.json").read_text())
    assert negative["status"] == "ok"
    assert negative["ok"] is True


def test_the_deadline_stops_parts_from_starting(tmp_path: Path) -> None:
    code, results, output = _run(tmp_path, "--mode", "fake", "--smoke", "--deadline", "5")
    assert code == 1  # parts that did not run are not a green run
    statuses = {p: r["status"] for p, r in results["parts"].items()}
    assert "not run" in statuses.values(), statuses
    assert "parts that did not finish" in output


def test_ratios_and_sustained_comparison_are_derived_from_the_parts() -> None:
    from gpu_validation_page import derive

    report = {
        "gemm": [
            {
                "dtype": "bf16",
                "status": "measured",
                "tflops": 800.0,
                "median_tflops": 790.0,
                "peak_tflops": 1000.0,
                "m": 1024,
                "n": 2048,
                "k": 4096,
            }
        ],
        "memory": [{"kernel": "copy", "gbps": 3000.0}, {"kernel": "triad", "gbps": 3100.0}],
        "devices": [
            {
                "sustained": {
                    "dtype": "bf16",
                    "shape": "1024x2048x4096",
                    "last_tflops": 700.0,
                    "burst_tflops": 790.0,
                }
            }
        ],
    }
    from gpu_validation import _gate_figures

    results = {
        "parts": {
            "bench_standard": {"status": "ok", "report": report, "figures": _gate_figures(report)},
            "gemm_sweep": {
                "status": "ok",
                "dtypes": {
                    "bf16": {
                        "best": {"m": 8192, "n": 8192, "k": 8192, "best_tflops": 640.0},
                        "shapes": [{"m": 1024, "n": 2048, "k": 4096, "best_tflops": 560.0}],
                    }
                },
            },
            "bandwidth": {"status": "ok", "best_gbps": {"copy": 3000.0, "triad": 3200.0}},
        }
    }
    d = derive(results)
    (row,) = d["gemm"]
    assert row["ratio"] == pytest.approx(800 / 640)
    assert row["of_peak"] == pytest.approx(0.8)
    assert row["reference_of_peak"] == pytest.approx(0.64)
    assert {r["kernel"]: r["ratio"] for r in d["memory"]} == pytest.approx(
        {"copy": 1.0, "triad": 3100 / 3200}
    )
    assert d["sustained"]["reference_tflops"] == 560.0
    assert d["sustained"]["last_over_reference"] == pytest.approx(700 / 560)


@pytest.mark.skipif(not RUNS, reason="no committed GPU results")
def test_the_docs_page_is_what_the_committed_results_render() -> None:
    from gpu_validation_page import page

    runs = [(path.relative_to(ROOT), json.loads(path.read_text())) for path in RUNS]
    assert (ROOT / "docs" / "gpu-validation.md").read_text() == page(runs)


def test_the_reference_shape_order_tries_the_gates_picks_first() -> None:
    from gpu_reference import sweep_shapes

    shapes = sweep_shapes((4096, 8192, 16384), [(1536, 11264, 16384), (8192, 8192, 8192)])
    assert shapes[0] == (1536, 11264, 16384)
    assert shapes.count((8192, 8192, 8192)) == 1
    assert shapes[1] == (8192, 8192, 8192)  # the middle square next, not repeated
    assert set(shapes) >= {(4096, 4096, 4096), (16384, 16384, 8192), (8192, 8192, 4096)}


def test_the_call_length_probe_runs_and_its_committed_h200_figures_back_the_search_floor(
    tmp_path: Path,
) -> None:
    # GIVEN the probe that times the gate's own GEMM cases against call length
    out = tmp_path / "calls.json"
    args = ["--cpu", "--calls", "5", "--json", str(out)]
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / "gpu_call_length.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=False,
    )
    # THEN its smoke run writes a row per product, spacer and round, every figure positive
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 2 * 2  # two tiny products, no spacer on a CPU, two rounds
    assert all(r["calls"] == 5 and 0 < r["median_over_best"] <= 1 for r in rows)
    # AND the committed H200 run (docs/gpu-validation/2026-11-30-h200-call-length.json) is what
    # the docs say: behind the gate's spacer every product held 96 % or more of its best call
    h200 = json.loads(
        (ROOT / "docs" / "gpu-validation" / "2026-11-30-h200-call-length.json").read_text()
    )
    spaced = [r for r in h200["rows"] if r["spacer_us"] > 0]
    assert len(spaced) == 56
    assert min(r["median_over_best"] for r in spaced) >= 0.96
    bare = [r for r in h200["rows"] if r["spacer_us"] == 0]
    assert sum(r["median_over_best"] < 0.95 for r in bare) == 10
    # and the script's own summary of that file prints those figures
    committed = ROOT / "docs" / "gpu-validation" / "2026-11-30-h200-call-length.json"
    printed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "gpu_call_length.py"), "--summarize", str(committed)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=True,
    ).stdout.splitlines()
    assert printed[0].startswith("spacer 0 us: median / best 0.300-0.992")
    assert "10 below 0.95" in printed[0]
    assert [line.endswith("0 below 0.95") for line in printed[1:]] == [True, True]

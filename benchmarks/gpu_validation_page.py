"""Figures derived from a ``gpu_validation.py`` results file, its summary and the docs page.

:func:`derive` turns the parts' raw figures into the ones the issue asks for (each gate figure
as a ratio of the reference's best, the quick gate's wall time, faults caught, false alarms,
the negative check); :func:`summary` prints them as a short Markdown table (``summary.md``);
:func:`page` writes ``docs/gpu-validation.md``:

    python benchmarks/gpu_validation.py --render docs/gpu-validation.json \\
        --page docs/gpu-validation.md
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: The quick gate's goal on one H100 (issue #20, docs/benchmark.md).
QUICK_GOAL_S = 10.0


def _part(results: dict[str, Any], name: str) -> dict[str, Any]:
    part: dict[str, Any] = results.get("parts", {}).get(name) or {}
    return part if part.get("status") in ("ok", "partial") else {}


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def derive(results: dict[str, Any]) -> dict[str, Any]:
    """The headline figures of a run; ``None`` where a part did not give them."""
    env = _part(results, "env")
    sweep = (_part(results, "gemm_sweep").get("dtypes")) or {}
    stream = (_part(results, "bandwidth").get("best_gbps")) or {}
    gemm_rows = []
    for profile in ("quick", "standard"):
        figures = (_part(results, f"bench_{profile}").get("figures") or {}).get("gemm", {})
        for dtype, gate in figures.items():
            best = (sweep.get(dtype) or {}).get("best") or {}
            gemm_rows.append(
                {
                    "profile": profile,
                    "dtype": dtype,
                    "status": gate.get("status"),
                    "gate_tflops": gate.get("tflops"),
                    "gate_shape": gate.get("shape"),
                    "reference_tflops": best.get("best_tflops"),
                    "reference_shape": [best.get("m"), best.get("n"), best.get("k")]
                    if best
                    else None,
                    "ratio": _ratio(gate.get("tflops"), best.get("best_tflops")),
                    "peak_tflops": gate.get("peak_tflops"),
                    "of_peak": _ratio(gate.get("tflops"), gate.get("peak_tflops")),
                    "reference_of_peak": _ratio(best.get("best_tflops"), gate.get("peak_tflops")),
                }
            )
    memory_rows = []
    for profile in ("quick", "standard"):
        figures = (_part(results, f"bench_{profile}").get("figures") or {}).get("memory", {})
        for kernel in ("copy", "triad"):
            if kernel in figures:
                memory_rows.append(
                    {
                        "profile": profile,
                        "kernel": kernel,
                        "gate_gbps": figures[kernel],
                        "reference_gbps": stream.get(kernel),
                        "ratio": _ratio(figures[kernel], stream.get(kernel)),
                    }
                )
    quick = _part(results, "bench_quick")
    faults = _part(results, "faults")
    sustained = _sustained_row(results, sweep)
    caught: dict[str, list[int]] = {}
    for case in faults.get("cases", []):
        got = caught.setdefault(case["fault"], [0, 0])
        got[0] += case["caught"]
        got[1] += case["trials"]
    gate_caught = {g["fault"]: [g["caught"], g["runs"]] for g in faults.get("gate_runs", [])}
    alarms = _part(results, "false_alarms")
    negative = _part(results, "negative")
    device = (env.get("detected") or {}).get("devices") or [{}]
    return {
        "device": device[0].get("raw_name"),
        "accelerator": (env.get("detected") or {}).get("accelerator"),
        "driver": next(iter((env.get("nvidia_smi") or {}).get("query") or [{}])).get(
            "driver_version"
        ),
        "torch": (env.get("torch") or {}).get("version"),
        "cuda": (env.get("torch") or {}).get("cuda"),
        "gemm": gemm_rows,
        "memory": memory_rows,
        "sustained": sustained,
        "quick_wall_s": quick.get("wall_s"),
        "quick_elapsed_s": (quick.get("report") or {}).get("elapsed_s"),
        "quick_verdict": quick.get("verdict"),
        "quick_reasons": quick.get("reasons"),
        "standard_verdict": _part(results, "bench_standard").get("verdict"),
        "standard_reasons": _part(results, "bench_standard").get("reasons"),
        "faults_caught": caught,
        "faults_gate_caught": gate_caught,
        "false_alarm_verdicts": alarms.get("verdicts"),
        "false_alarm_elapsed_s": [r["elapsed_s"] for r in alarms.get("runs", [])],
        "false_alarm_winners": [_winner(r, "fp8") for r in alarms.get("runs", [])],
        "negative_ok": negative.get("ok"),
        "negative_codes": negative.get("fail_codes"),
        "disagreements": env.get("disagreements"),
        "part_status": {k: v.get("status") for k, v in results.get("parts", {}).items()},
    }


def _winner(run: dict[str, Any], dtype: str) -> tuple[float, float] | None:
    """One gate's ``dtype`` winner: its best call's length in microseconds and its median
    over its best call (the search's floor, accelerators/bench/measure/_gemm.py)."""
    gemm = ((run.get("figures") or {}).get("gemm") or {}).get(dtype) or {}
    m, n, k = gemm.get("shape") or (None, None, None)
    best, median = gemm.get("tflops"), gemm.get("median_tflops")
    if not (m and n and k and best and median):
        return None
    return 2 * m * n * k / (best * 1e12) * 1e6, median / best


def _winners_text(winners: list[tuple[float, float] | None]) -> str:
    """``51-620 us, 72-99 %``: the range of the gates' winners' call lengths and medians."""
    found = [w for w in winners if w is not None]
    if not found:
        return "-"
    calls, shares = [w[0] for w in found], [w[1] for w in found]
    return (
        f"{min(calls):.0f}-{max(calls):.0f} us, {min(shares) * 100:.0f}-{max(shares) * 100:.0f} %"
    )


def _sustained_row(results: dict[str, Any], sweep: dict[str, Any]) -> dict[str, Any] | None:
    """The standard run's sustained phase beside the reference on the same shape: both time
    back-to-back calls, so this pair compares like with like (the search times bursts)."""
    devices = (_part(results, "bench_standard").get("report") or {}).get("devices") or [{}]
    record = devices[0].get("sustained")
    if not record:
        return None
    m, n, k = (int(x) for x in str(record["shape"]).split("x"))
    same = [
        s
        for s in (sweep.get(record["dtype"]) or {}).get("shapes", [])
        if (s["m"], s["n"], s["k"]) == (m, n, k)
    ]
    reference = same[0]["best_tflops"] if same else None
    return {
        **record,
        "reference_tflops": reference,
        "last_over_reference": _ratio(record.get("last_tflops"), reference),
    }


def _f(value: float | None, digits: int = 1, pct: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:.0%}" if pct else f"{value:.{digits}f}"


def _gemm_table(d: dict[str, Any]) -> list[str]:
    lines = [
        "| profile | dtype | gate TFLOPS | shape | reference best | shape | gate / reference "
        "| datasheet | gate % peak | reference % peak |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in d["gemm"]:
        shape = "x".join(map(str, r["gate_shape"])) if r["gate_tflops"] else r["status"]
        ref = "x".join(map(str, r["reference_shape"])) if r["reference_shape"] else "-"
        lines.append(
            f"| {r['profile']} | {r['dtype']} | {_f(r['gate_tflops'])} | {shape} "
            f"| {_f(r['reference_tflops'])} | {ref} | {_f(r['ratio'], 3)} "
            f"| {_f(r['peak_tflops'])} | {_f(r['of_peak'], pct=True)} "
            f"| {_f(r['reference_of_peak'], pct=True)} |"
        )
    return lines


def _memory_table(d: dict[str, Any]) -> list[str]:
    lines = [
        "| profile | kernel | gate GB/s | reference GB/s | gate / reference |",
        "|---|---|---|---|---|",
    ]
    for r in d["memory"]:
        lines.append(
            f"| {r['profile']} | {r['kernel']} | {_f(r['gate_gbps'], 0)} "
            f"| {_f(r['reference_gbps'], 0)} | {_f(r['ratio'], 3)} |"
        )
    return lines


def _faults_lines(d: dict[str, Any]) -> list[str]:
    lines = ["| fault | products flagged | gate runs with MISCOMPARE |", "|---|---|---|"]
    for fault, (caught, trials) in d["faults_caught"].items():
        gate = d["faults_gate_caught"].get(fault)
        gate_text = f"{gate[0]}/{gate[1]}" if gate else "-"
        label = "none (healthy control: false alarms)" if fault == "none" else fault
        lines.append(f"| {label} | {caught}/{trials} | {gate_text} |")
    return lines


def _sustained_line(d: dict[str, Any]) -> str:
    r = d.get("sustained")
    if not r:
        return "Sustained phase: -"
    return (
        f"Sustained phase (standard): {r['dtype']} {r['shape']}, burst median "
        f"{_f(r['burst_tflops'])}, last quarter {_f(r['last_tflops'])} TFLOPS "
        f"({_f(r['ratio'], pct=True)} of burst), SM clock {r.get('sm_clock_first_mhz')} -> "
        f"{r.get('sm_clock_last_mhz')} MHz, reasons {', '.join(r.get('reasons_seen') or [])}; "
        f"reference back-to-back on the same shape {_f(r['reference_tflops'])} "
        f"(sustained / reference {_f(r['last_over_reference'], 3)})"
    )


def summary(results: dict[str, Any]) -> str:
    """The short Markdown summary written beside ``results.json``."""
    d = derive(results)
    out = [
        f"# GPU validation: {d['device'] or 'no device'} ({results.get('mode')} mode)",
        "",
        f"Started {results.get('started_at')} on {results.get('host')}; "
        f"{_f(results.get('total_s'))} s in all; driver {d['driver'] or '-'}, "
        f"torch {d['torch'] or '-'}, CUDA {d['cuda'] or '-'}.",
        "",
        "Parts: " + ", ".join(f"{k} {v}" for k, v in d["part_status"].items()),
        "",
        f"Quick gate: {d['quick_verdict'] or '-'}, {_f(d['quick_wall_s'])} s wall "
        f"(process), {_f(d['quick_elapsed_s'])} s in the run (goal <= {QUICK_GOAL_S:.0f} s); "
        f"reasons: {', '.join(d['quick_reasons'] or []) or 'none'}",
        f"Standard gate: {d['standard_verdict'] or '-'}; reasons: "
        f"{', '.join(d['standard_reasons'] or []) or 'none'}",
        f"False alarms ({sum((d['false_alarm_verdicts'] or {}).values())} quick gates): "
        f"{d['false_alarm_verdicts'] or '-'}",
        f"Negative check (wrong accelerator expected): "
        f"{'ok' if d['negative_ok'] else 'NOT OK'} {d['negative_codes'] or ''}",
        f"Detection vs nvidia-smi: {'; '.join(d['disagreements'] or []) or 'agree'}",
        "",
        _sustained_line(d),
        "",
        *_gemm_table(d),
        "",
        *_memory_table(d),
        "",
        *_faults_lines(d),
        "",
    ]
    errors = [
        f"- {name}: {part.get('error')}"
        for name, part in results.get("parts", {}).items()
        if part.get("status") not in ("ok", "skipped")
    ]
    if errors:
        out += ["Errors:", *errors, ""]
    return "\n".join(out)


def runs_table(runs: list[tuple[Path, dict[str, Any]]]) -> list[str]:
    """One row per results file: how the headline figures moved from run to run."""
    lines = [
        "| run | device | code | quick (process / in run) | quick | standard | false alarms "
        "| fp8 winners of those gates (call, median / best) "
        "| wrong accelerator fails | bf16 gate / reference |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for path, results in runs:
        d = derive(results)
        bf16 = next((r for r in d["gemm"] if r["profile"] == "quick" and r["dtype"] == "bf16"), {})
        code = results.get("code") or {}
        version = (code.get("commit") or "")[:10] or code.get("sources_sha256") or "-"
        alarms = ", ".join(f"{k} {v}" for k, v in (d["false_alarm_verdicts"] or {}).items())
        lines.append(
            f"| `{path.name}` {results.get('started_at', '')[:16]} | {d['device']} | {version} "
            f"| {_f(d['quick_wall_s'])} / {_f(d['quick_elapsed_s'])} s | {d['quick_verdict']} "
            f"| {d['standard_verdict']} | {alarms or '-'} "
            f"| {_winners_text(d['false_alarm_winners'])} | {d['negative_ok']} "
            f"| {_f(bf16.get('ratio'), 3)} |"
        )
    return lines


def page(runs: list[tuple[Path, dict[str, Any]]]) -> str:
    """``docs/gpu-validation.md`` for the last of ``runs`` (path, results), with a table of
    them all: what was run, how, the figures, and how they moved from run to run."""
    source, results = runs[-1]
    d = derive(results)
    env = _part(results, "env")
    smi = next(iter((env.get("nvidia_smi") or {}).get("query") or [{}]))
    head = [
        "# The gate on a real GPU",
        "",
        "<!-- Generated by `python benchmarks/gpu_validation.py "
        + " ".join(f"--render {p}" for p, _ in runs)
        + " --page docs/gpu-validation.md`: do not edit by hand. -->",
        "",
        "`benchmarks/gpu_validation.py OUTDIR` runs every check of the benchmark gate that "
        "needs a GPU, each part in its own process with a time limit, and writes "
        "`results.json` and `summary.md`. This page is rendered from the results file "
        f"committed beside it (`{source}`).",
        "",
        "## How to run it",
        "",
        "On a GPU machine with its own Python, torch and CUDA but no internet, carry the "
        "checkout and the wheels of our pure-Python dependencies (`bash scripts/gpu-wheels "
        ".whl` here), then from the repository root there:",
        "",
        "```bash",
        "python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl",
        "PYTHONPATH=/tmp/site:$PWD python3 benchmarks/gpu_validation.py OUTDIR --deadline 420",
        "```",
        "",
        "It takes about 4 minutes on an H200; `--deadline` stops it from starting a part after "
        "that many seconds. Commit `OUTDIR/results.json` under `docs/gpu-validation/` and "
        "regenerate this page with the command in the comment at its top.",
        "",
        "## Runs",
        "",
        *runs_table(runs),
        "",
        f"The rest of this page is the last run, `{source}`.",
        "",
        "## Machine",
        "",
        f"- Device: {d['device']} (catalog entry {d['accelerator']}), "
        f"{smi.get('memory.total', '-')} MiB, compute capability {smi.get('compute_cap', '-')}, "
        f"power limit {smi.get('power.limit', '-')} W (default "
        f"{smi.get('power.default_limit', '-')} W), max SM clock "
        f"{smi.get('clocks.max.sm', '-')} MHz",
        f"- Driver {d['driver']}, torch {d['torch']}, CUDA {d['cuda']}, Python "
        f"{env.get('python', '-')}",
        f"- Run started {results.get('started_at')}, mode {results.get('mode')}, budget scale "
        f"{results.get('scale')}, {_f(results.get('total_s'))} s in all",
        f"- Our detection against nvidia-smi and torch: "
        f"{'; '.join(d['disagreements'] or []) or 'no disagreement'}",
        "",
        "## The gate's figures against the references",
        "",
        "Reference GEMM: `benchmarks/gpu_reference.py`, plain `torch.mm` / `torch._scaled_mm` "
        "over a shape grid (4096-16384 and the gate's picks), batches between device events. "
        "Reference bandwidth: BabelStream copy and triad in fp64 over 256 MiB-4 GiB arrays.",
        "",
        "The two time different regimes. The reference runs calls back to back, as a training "
        "job does; a board that draws its power limit then lowers its clocks (NVML reports "
        "`sw_power_cap`). The gate times single calls with the previous call's checksums "
        "between them, a burst, which is the regime the datasheet's boost-clock figures "
        "describe. Where a part is power-capped, the gate's burst figure is the higher of the "
        "two; the standard profile's sustained phase times back-to-back calls like the "
        "reference, and the line under the table compares the two on the same shape.",
        "",
        *_gemm_table(d),
        "",
        _sustained_line(d),
        "",
        *_memory_table(d),
        "",
        "## The gate end to end",
        "",
        f"- `accelerators bench --profile quick`: {d['quick_verdict']}, {_f(d['quick_wall_s'])} "
        f"s wall for the whole process (torch import and CUDA start included), "
        f"{_f(d['quick_elapsed_s'])} s inside the run; goal {QUICK_GOAL_S:.0f} s on an H100. "
        f"Reasons: {', '.join(d['quick_reasons'] or []) or 'none'}.",
        f"- Standard profile: {d['standard_verdict']}. Reasons: "
        f"{', '.join(d['standard_reasons'] or []) or 'none'}.",
        f"- False alarms: {sum((d['false_alarm_verdicts'] or {}).values())} quick gates back to "
        f"back: {d['false_alarm_verdicts']}; run times "
        f"{', '.join(_f(s) for s in d['false_alarm_elapsed_s'])} s; each gate's fp8 winner, "
        "its best call's length and its median over its best: "
        + ", ".join(
            "-" if w is None else f"{w[0]:.0f} us {w[1] * 100:.0f} %"
            for w in d["false_alarm_winners"]
        )
        + ".",
        f"- Negative check: the gate expecting another accelerator "
        f"{'failed as it must' if d['negative_ok'] else 'DID NOT fail as it must'} "
        f"({', '.join(d['negative_codes'] or [])}).",
        "",
        "## Faults injected on the GPU",
        "",
        "Through `benchmarks/fault_detection.py` on the CUDA backend: every product's output "
        "corrupted right after it is computed, then the gate's own checks.",
        "",
        *_faults_lines(d),
        "",
        "## Parts",
        "",
        "| part | status | seconds |",
        "|---|---|---|",
    ]
    for name, part in results.get("parts", {}).items():
        note = part.get("error") or part.get("why") or ""
        head.append(f"| {name} | {part.get('status')} {note} | {_f(part.get('wall_s'))} |")
    return "\n".join(head) + "\n"

"""Everything the gate must prove on a real GPU, in one command: ``gpu_validation.py OUTDIR``.

Built for a lent GPU machine with little time and no internet (one H100 or H200, its own
Python with torch and CUDA, our pure-Python dependencies carried as wheels: docs say how).
Each part runs in its own process with its own time limit, records its figures or its error
and its duration, and never stops the parts after it. In order:

=================  ===========================================================================
part               what it measures
=================  ===========================================================================
env                ``nvidia-smi`` (``-q`` and a field query), torch and the device's
                   properties, what ``accelerators.current()`` and our NVML reads return, and
                   where the two disagree
bench_quick        ``accelerators bench --profile quick --expect MODEL:1 --json`` end to end:
                   the JSON report and the process's wall time (goal: quick <= 10 s on an H100)
bench_standard     the same with ``--profile standard``
gemm_sweep         a reference GEMM sweep (:mod:`gpu_reference`, mamf-finder-like), the gate's
                   winning shapes included, so each gate figure is a ratio of the best found
bandwidth          reference copy and triad over a few array sizes (BabelStream-style)
faults             NaN, a bad tile, bit flips, a 1 % scale error injected into every product
                   on the GPU, through ``benchmarks/fault_detection.py``, and a healthy control
false_alarms       quick gates back to back in one process: verdict and reason counts
negative           the gate expecting another accelerator (``A100:1`` on an H100) must fail
                   with ``wrong_accelerator``
=================  ===========================================================================

OUTDIR receives ``results.json`` (every figure), ``summary.md`` (the short table) and
``log.txt``. ``--render results.json --page docs/gpu-validation.md`` fills the docs page.

Modes: ``--mode cuda`` (the default where torch sees a GPU), ``--mode cpu`` (the CPU stands in,
for smoke runs), ``--mode fake`` (the gate parts on :class:`accelerators.bench.testing
.FakeBackend`, an H100 model; the parts that need real tensors are skipped). ``--scale``
multiplies every budget (tests use ``--smoke``: tiny budgets, one gate run where there are ten).

    python benchmarks/gpu_validation.py /tmp/gpu            # on the GPU machine, ~6 min
    python benchmarks/gpu_validation.py /tmp/x --mode cpu --smoke
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: (part, seconds it may take at scale 1, modes it runs in), in the order they run: the most
#: telling first, so that a run cut short by ``--deadline`` loses the least. A part past its
#: limit is killed and recorded as such (with what it saved so far: false_alarms saves each run).
PARTS: tuple[tuple[str, float, tuple[str, ...]], ...] = (
    ("env", 60, ("cuda", "cpu", "fake")),
    ("bench_quick", 60, ("cuda", "cpu", "fake")),
    ("negative", 45, ("cuda", "cpu", "fake")),
    ("bench_standard", 120, ("cuda", "cpu", "fake")),
    ("gemm_sweep", 120, ("cuda", "cpu")),
    ("bandwidth", 45, ("cuda", "cpu")),
    ("faults", 90, ("cuda", "cpu")),
    ("false_alarms", 150, ("cuda", "cpu", "fake")),
)
FAULTS = ("none", "nan", "tile", "bitflip", "scale")


# -- helpers shared by the parts ---------------------------------------------------------------
def _load(work: Path, part: str) -> dict[str, Any]:
    path = work / f"{part}.json"
    if not path.exists():
        return {}
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _fake_run_kwargs() -> dict[str, Any]:
    from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

    return {"backend": FakeBackend([FakeDevice()]), "detected": fake_detected("H100-SXM")}


def _profile(name: str, cfg: dict[str, Any]) -> Any:
    from accelerators.bench.measure._profiles import get_profile

    profile = get_profile(name)
    return profile.scaled(cfg["scale"]) if cfg["scale"] != 1 else profile


def _report_dict(report: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(report.model_dump_json())
    return data


def _gate_figures(report: dict[str, Any]) -> dict[str, Any]:
    """The gate's headline figures from a report's JSON: GEMM by dtype, stream by kernel."""
    gemm = {
        g["dtype"]: {
            "tflops": g.get("tflops"),
            "median_tflops": g.get("median_tflops"),
            "peak_tflops": g.get("peak_tflops"),
            "shape": [g.get("m"), g.get("n"), g.get("k")],
            "status": g.get("status"),
        }
        for g in report.get("gemm", [])
    }
    memory = {m["kernel"]: m.get("gbps") for m in report.get("memory", []) if "kernel" in m}
    return {"gemm": gemm, "memory": memory}


def _reason_codes(report: dict[str, Any]) -> list[str]:
    return [f"{r['severity']}:{r['code']}" for r in report.get("reasons", [])]


# -- the parts -------------------------------------------------------------------------------------
def part_env(cfg: dict[str, Any], work: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"python": sys.version.split()[0], "platform": platform.platform()}
    smi = _nvidia_smi()
    out["nvidia_smi"] = smi
    import accelerators
    from accelerators.detect import current

    out["accelerators"] = accelerators.__version__
    if cfg["mode"] == "fake":
        detected: Any = _fake_run_kwargs()["detected"]
    else:
        detected = current(refresh=True)
    out["detected"] = _detected_dict(detected)
    spec = detected.to_spec()
    out["expect"] = f"{spec.accelerator.model}:1" if spec is not None else None
    out["wrong"] = "H100:1" if spec is not None and spec.accelerator.model == "A100" else "A100:1"
    if cfg["mode"] != "fake":
        import torch

        out["torch"] = _torch_dict(torch)
        out["nvml_config"] = _nvml_config()
    out["disagreements"] = _disagreements(out)
    return out


_SMI_FIELDS = (
    "name,driver_version,memory.total,clocks.max.sm,clocks.max.memory,power.limit,"
    "power.default_limit,pcie.link.gen.max,pcie.link.width.max,ecc.mode.current,"
    "mig.mode.current,compute_cap,temperature.gpu,clocks.sm"
)
_SMI_FIELDS_MIN = "name,driver_version,memory.total,power.limit,clocks.max.sm"


def _nvidia_smi() -> dict[str, Any]:
    out: dict[str, Any] = {}
    try:
        # One unknown field fails the whole query (older drivers): fall back to fewer.
        for fields in (_SMI_FIELDS, _SMI_FIELDS_MIN):
            query = subprocess.run(
                ["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
            if query.returncode == 0:
                break
            out.setdefault("query_errors", []).append(query.stdout.strip()[-300:])
        rows = [line.split(", ") for line in query.stdout.strip().splitlines()]
        out["query"] = [dict(zip(fields.split(","), row, strict=False)) for row in rows]
        full = subprocess.run(
            ["nvidia-smi", "-q"], capture_output=True, text=True, timeout=30, check=False
        )
        keep = (
            "Driver Version",
            "CUDA Version",
            "Product Name",
            "Product Architecture",
            "VBIOS Version",
            "Persistence Mode",
            "Addressing Mode",
            "MIG Mode",
            "Current",
            "Total",
            "Max",
            "Power Limit",
            "Default Power Limit",
            "Module Power Limit",
            "Clocks Event Reasons",
            "Bus Id",
        )
        out["q"] = [
            line.strip()
            for line in full.stdout.splitlines()
            if line.strip().split(" :")[0].strip() in keep
        ][:80]
    except (OSError, subprocess.SubprocessError) as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    return out


def _detected_dict(detected: Any) -> dict[str, Any]:
    devices = []
    for d in detected.devices:
        devices.append(
            {
                "index": d.index,
                "kind": d.kind,
                "vendor": d.vendor,
                "raw_name": d.raw_name,
                "accelerator": d.accelerator.name if d.accelerator is not None else None,
                "memory_bytes": d.memory_bytes,
                "is_mig": d.is_mig,
                "sms": d.multiprocessors,
                "compute_capability": d.compute_capability,
                "l2_bytes": d.l2_cache_bytes,
                "clocks_mhz": dict(d.clocks_mhz),
                "throttle_reasons": list(d.throttle_reasons),
                "temperature_c": d.temperature_c,
                "power_w": d.power_w,
                "power_limit_w": d.power_limit_w,
                "ecc_errors": d.ecc_errors,
                "extra": dict(d.extra),
            }
        )
    spec = detected.to_spec()
    return {
        "kind": detected.kind,
        "source": detected.source,
        "accelerator": detected.accelerator.name if detected.accelerator is not None else None,
        "spec": str(spec) if spec is not None else None,
        "reason": detected.reason,
        "cpu": detected.cpu.model_name,
        "devices": devices,
    }


def _torch_dict(torch: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "version": torch.__version__,
        "cuda": torch.version.cuda,
        "cuda_available": torch.cuda.is_available(),
    }
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        out.update(
            name=p.name,
            sms=p.multi_processor_count,
            memory_bytes=p.total_memory,
            capability=f"{p.major}.{p.minor}",
            l2_bytes=getattr(p, "L2_cache_size", None),
            cudnn=torch.backends.cudnn.version(),
        )
    return out


def _nvml_config() -> dict[str, Any]:
    """Our own NVML read of device 0's configuration (power, clocks, PCIe, NVLink)."""
    from accelerators.bench.device._config import _load, read_config

    nvml, why = _load()
    if nvml is None:
        return {"unavailable": why}
    try:
        nvml.nvmlInit()
        record = read_config(nvml, nvml.nvmlDeviceGetHandleByIndex(0))
        data: dict[str, Any] = json.loads(record.model_dump_json())
        return data
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def _num(text: Any) -> float | None:
    try:
        return float(str(text).strip())
    except ValueError:
        return None


def _disagreements(env: dict[str, Any]) -> list[str]:
    """Where our reads and nvidia-smi's differ (memory, power limit, SM count, name)."""
    found: list[str] = []
    query = (env.get("nvidia_smi") or {}).get("query") or []
    devices = (env.get("detected") or {}).get("devices") or []
    if not query or not devices:
        return found
    smi, ours = query[0], devices[0]
    smi_mib = _num(smi.get("memory.total"))
    our_mib = (ours.get("memory_bytes") or 0) / 2**20
    if smi_mib and our_mib and abs(our_mib - smi_mib) > 0.01 * smi_mib:
        found.append(f"memory: ours {our_mib:.0f} MiB, nvidia-smi {smi_mib:.0f} MiB")
    smi_power = _num(smi.get("power.limit"))
    if smi_power and ours.get("power_limit_w") and abs(ours["power_limit_w"] - smi_power) > 1:
        found.append(f"power limit: ours {ours['power_limit_w']} W, nvidia-smi {smi_power} W")
    torch_sms = (env.get("torch") or {}).get("sms")
    if torch_sms and ours.get("sms") and torch_sms != ours["sms"]:
        found.append(f"SMs: ours {ours['sms']}, torch {torch_sms}")
    smi_cap = smi.get("compute_cap")
    if smi_cap and ours.get("compute_capability") and smi_cap != ours["compute_capability"]:
        found.append(f"compute capability: ours {ours['compute_capability']}, nvidia-smi {smi_cap}")
    max_sm = _num(smi.get("clocks.max.sm"))
    our_max = (ours.get("clocks_mhz") or {}).get("sm_max")
    if max_sm and our_max and abs(max_sm - our_max) > 1:
        found.append(f"max SM clock: ours {our_max} MHz, nvidia-smi {max_sm} MHz")
    if ours.get("accelerator") is None:
        found.append(f"device name {ours.get('raw_name')!r} matched no catalog entry")
    return found


def part_bench(cfg: dict[str, Any], work: Path, profile: str) -> dict[str, Any]:
    expect = _load(work, "env").get("expect")
    if cfg["mode"] == "fake" or (cfg["scale"] != 1 and profile != "quick"):
        from accelerators.bench import run

        kwargs = _fake_run_kwargs() if cfg["mode"] == "fake" else {}
        if cfg["mode"] == "cpu":
            kwargs["devices"] = "cpu"
        started = time.perf_counter()
        report = run(expect, profile=_profile(profile, cfg), **kwargs)
        data = _report_dict(report)
        return {
            "how": "in process",
            "wall_s": time.perf_counter() - started,
            "exit_code": None,
            "report": data,
            "figures": _gate_figures(data),
            "verdict": data["verdict"],
            "reasons": _reason_codes(data),
        }
    path = work / f"bench-{profile}.json"
    argv = [
        sys.executable,
        "-m",
        "accelerators.cli",
        "bench",
        "--profile",
        profile,
        "--json",
        str(path),
        "--quiet",
    ]
    if expect:
        argv += ["--expect", expect]
    if cfg["mode"] == "cpu":
        argv += ["--device", "cpu"]
    started = time.perf_counter()
    proc = subprocess.run(
        argv, capture_output=True, text=True, check=False, timeout=_limit(f"bench_{profile}", cfg)
    )
    wall = time.perf_counter() - started
    out: dict[str, Any] = {
        "how": " ".join(argv[1:]),
        "wall_s": wall,
        "exit_code": proc.returncode,
        "stderr_tail": proc.stderr[-2000:],
    }
    if path.exists():
        data = json.loads(path.read_text())
        out.update(
            report=data,
            figures=_gate_figures(data),
            verdict=data["verdict"],
            reasons=_reason_codes(data),
        )
    return out


def part_gemm_sweep(cfg: dict[str, Any], work: Path) -> dict[str, Any]:
    import torch
    from gpu_reference import DTYPES, GRID, default_device, gemm_sweep

    device = default_device(torch) if cfg["mode"] == "cuda" else torch.device("cpu")
    first: dict[str, list[tuple[int, int, int]]] = {}
    for part in ("bench_quick", "bench_standard"):
        for dtype, g in (_load(work, part).get("figures") or {}).get("gemm", {}).items():
            if g.get("status") == "measured" and all(g["shape"]):
                first.setdefault(dtype, [])
                if tuple(g["shape"]) not in first[dtype]:
                    first[dtype].append(tuple(g["shape"]))
    smoke = cfg["mode"] == "cpu"
    dtypes = [d for d in DTYPES if not smoke or d in ("fp32", "bf16")]
    result = gemm_sweep(
        torch,
        device,
        dtypes=dtypes,
        budget_s=10.0 * cfg["scale"],
        grid=(256, 512, 1024) if smoke else GRID,
        first=first,
        per_shape_s=0.4 * min(cfg["scale"], 1),
        warmup_s=0.3 * min(cfg["scale"], 1),
    )
    return {"dtypes": result, "first": {k: [list(s) for s in v] for k, v in first.items()}}


def part_bandwidth(cfg: dict[str, Any], work: Path) -> dict[str, Any]:
    import torch
    from gpu_reference import default_device, stream_run

    if cfg["mode"] == "cuda":
        return stream_run(torch, default_device(torch), seconds=0.5 * cfg["scale"])
    return stream_run(torch, torch.device("cpu"), sizes_mib=(16, 64), seconds=0.2 * cfg["scale"])


def part_faults(cfg: dict[str, Any], work: Path) -> dict[str, Any]:
    from fault_detection import case_trials, gate_runs

    from accelerators.bench.torch_backend._backend import TorchBackend

    cuda = cfg["mode"] == "cuda"
    backend = TorchBackend("cuda", indices=[0]) if cuda else TorchBackend("cpu")
    trials = max(2, int(20 * cfg["scale"]))
    runs = 1 if cfg["smoke"] else 2
    cases: list[dict[str, Any]] = []
    for fault in FAULTS[:2] if cfg["smoke"] else FAULTS:
        for dtype in ("fp32", "bf16", "fp16") if cuda else ("fp32",):
            seed = FAULTS.index(fault) * 10 + len(cases)
            caught, outlier, scale = case_trials(backend, dtype, fault, trials, seed)
            cases.append(
                {
                    "fault": fault,
                    "dtype": dtype,
                    "trials": trials,
                    "caught": caught,
                    "worst_outlier": outlier,
                    "worst_scale_error": scale,
                }
            )
    gates = []
    for fault in FAULTS[:2] if cfg["smoke"] else FAULTS:
        caught, per_run = gate_runs(fault, runs, 0.25 * cfg["scale"], [0] if cuda else "cpu")
        gates.append({"fault": fault, "runs": runs, "caught": caught, "s_per_run": per_run})
    return {"cases": cases, "gate_runs": gates}


def part_false_alarms(cfg: dict[str, Any], work: Path) -> dict[str, Any]:
    from accelerators.bench import run

    expect = _load(work, "env").get("expect")
    runs = 1 if cfg["smoke"] else 10
    rows = []
    for number in range(runs):
        kwargs = _fake_run_kwargs() if cfg["mode"] == "fake" else {}
        if cfg["mode"] == "cpu":
            kwargs["devices"] = "cpu"
        started = time.perf_counter()
        data = _report_dict(run(expect, profile=_profile("quick", cfg), **kwargs))
        rows.append(
            {
                "run": number,
                "verdict": data["verdict"],
                "wall_s": time.perf_counter() - started,
                "elapsed_s": data["elapsed_s"],
                "reasons": _reason_codes(data),
                "figures": _gate_figures(data),
            }
        )
        result = {"runs": rows, "verdicts": _counts(r["verdict"] for r in rows)}
        # Saved after every run: a part cut at the deadline keeps the runs it finished.
        (work / "false_alarms.json").write_text(json.dumps({"status": "partial", **result}))
    return result


def _counts(values: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def part_negative(cfg: dict[str, Any], work: Path) -> dict[str, Any]:
    from accelerators.bench import run

    wrong = _load(work, "env").get("wrong") or "A100:1"
    kwargs = _fake_run_kwargs() if cfg["mode"] == "fake" else {}
    if cfg["mode"] == "cpu":
        kwargs["devices"] = "cpu"
    quick = _profile("quick", cfg)
    data = _report_dict(run(wrong, profile=quick.scaled(0.3), **kwargs))
    codes = [r["code"] for r in data["reasons"] if r["severity"] == "fail"]
    want = "no_accelerator" if cfg["mode"] == "cpu" else "wrong_accelerator"
    return {
        "expect": wrong,
        "verdict": data["verdict"],
        "fail_codes": codes,
        "wanted": want,
        "ok": data["verdict"] == "fail" and want in codes,
        "messages": [r["message"] for r in data["reasons"] if r["severity"] == "fail"],
    }


RUNNERS: dict[str, Callable[[dict[str, Any], Path], dict[str, Any]]] = {
    "env": part_env,
    "bench_quick": lambda cfg, work: part_bench(cfg, work, "quick"),
    "bench_standard": lambda cfg, work: part_bench(cfg, work, "standard"),
    "gemm_sweep": part_gemm_sweep,
    "bandwidth": part_bandwidth,
    "faults": part_faults,
    "false_alarms": part_false_alarms,
    "negative": part_negative,
}


# -- orchestration -------------------------------------------------------------------------------
def _limit(part: str, cfg: dict[str, Any]) -> float:
    seconds = {name: limit for name, limit, _ in PARTS}[part]
    return seconds * max(cfg["scale"], 0.25) + 30


def code_version() -> dict[str, Any]:
    """A digest of the package's sources, and the commit where the checkout's git folder
    matches its files: a copied tree (a GPU machine's) can carry a stale git folder, so a
    commit is kept only when ``git diff HEAD`` finds nothing under ``accelerators/``."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted((ROOT / "accelerators").rglob("*")):
        if path.suffix in (".py", ".toml") and path.is_file():
            digest.update(path.relative_to(ROOT).as_posix().encode())
            digest.update(path.read_bytes())

    def git(*args: str) -> subprocess.CompletedProcess[str] | None:
        try:
            return subprocess.run(
                ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return None

    head, diff = git("rev-parse", "HEAD"), git("diff", "--quiet", "HEAD", "--", "accelerators")
    clean = head is not None and head.returncode == 0 and diff is not None and diff.returncode == 0
    return {
        "commit": head.stdout.strip() if clean and head is not None else None,
        "sources_sha256": digest.hexdigest()[:16],
    }


def run_part(part: str, work: Path) -> int:
    """Child process: run one part and write ``work/part.json`` (figures or the error)."""
    cfg = json.loads((work / "config.json").read_text())
    started = time.perf_counter()
    try:
        result = {"status": "ok", **RUNNERS[part](cfg, work)}
    except BaseException as exc:  # every failure is a figure of this part
        result = {
            "status": "error",
            "error": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc()[-4000:],
        }
    result["seconds"] = time.perf_counter() - started
    (work / f"{part}.json").write_text(json.dumps(result, default=str))
    return 0


def orchestrate(
    outdir: Path, mode: str, scale: float, smoke: bool, only: list[str], deadline_s: float
) -> dict[str, Any]:
    outdir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="gpu-validation-"))
    cfg = {"mode": mode, "scale": scale, "smoke": smoke}
    (work / "config.json").write_text(json.dumps(cfg))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(HERE), str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
    )
    env.setdefault("PYTHONUNBUFFERED", "1")
    results: dict[str, Any] = {
        "code": code_version(),
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "mode": mode,
        "scale": scale,
        "smoke": smoke,
        "deadline_s": deadline_s,
        "host": platform.node(),
        "parts": {},
    }
    log = open(outdir / "log.txt", "a", encoding="utf-8")  # noqa: SIM115 - closed below
    total = time.perf_counter()
    try:
        for part, _, modes in PARTS:
            if (only and part not in only) or mode not in modes:
                if mode not in modes:
                    results["parts"][part] = {
                        "status": "skipped",
                        "why": f"needs real tensors ({'/'.join(modes)})",
                    }
                continue
            left = deadline_s - (time.perf_counter() - total)
            if left < 10:
                results["parts"][part] = {
                    "status": "not run",
                    "why": f"the {deadline_s:.0f} s deadline was reached",
                }
                continue
            limit = min(_limit(part, cfg), left)
            print(
                f"[{time.perf_counter() - total:6.1f} s] {part} (limit {limit:.0f} s)", flush=True
            )
            started = time.perf_counter()
            try:
                proc = subprocess.run(
                    [sys.executable, __file__, "--part", part, "--work", str(work)],
                    env=env,
                    cwd=ROOT,
                    timeout=limit,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                log.write(f"==== {part} (exit {proc.returncode})\n{proc.stdout}{proc.stderr}\n")
                result = _load(work, part) or {
                    "status": "error",
                    "error": f"exited {proc.returncode} without a result",
                    "stderr_tail": proc.stderr[-3000:],
                }
            except subprocess.TimeoutExpired as exc:
                log.write(f"==== {part} (killed after {limit:.0f} s)\n{exc.stdout or ''}\n")
                result = _load(work, part) or {
                    "status": "timeout",
                    "error": f"killed after {limit:.0f} s",
                }
            result["wall_s"] = time.perf_counter() - started
            results["parts"][part] = result
            print(
                f"         {part}: {result['status']} in {result['wall_s']:.1f} s"
                + (f" ({result.get('error')})" if result["status"] != "ok" else ""),
                flush=True,
            )
            log.flush()
    finally:
        log.close()
    results["total_s"] = time.perf_counter() - total
    from gpu_validation_page import derive, summary

    results["derived"] = derive(results)
    (outdir / "results.json").write_text(json.dumps(results, indent=1, default=str))
    (outdir / "summary.md").write_text(summary(results))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("outdir", nargs="?", type=Path, help="where results.json goes")
    parser.add_argument("--mode", choices=("cuda", "cpu", "fake"))
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every budget")
    parser.add_argument("--smoke", action="store_true", help="tiny budgets, one run each")
    parser.add_argument("--only", action="append", default=[], choices=[p for p, _, _ in PARTS])
    parser.add_argument(
        "--deadline",
        type=float,
        default=420.0,
        help="seconds for the whole run: no part starts after it, a running "
        "part is cut at it (default 420: 7 minutes)",
    )
    parser.add_argument(
        "--render",
        type=Path,
        action="append",
        help="render results files instead of running (repeat it: the page "
        "shows the last, and a table of every run given)",
    )
    parser.add_argument("--page", type=Path, help="with --render: the docs page to write")
    parser.add_argument("--part", help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.path[:0] = [str(HERE), str(ROOT)]
    if args.part:
        return run_part(args.part, args.work)
    if args.render:
        from gpu_validation_page import page

        runs = [(path, json.loads(path.read_text())) for path in args.render]
        text = page(runs)
        if args.page:
            args.page.write_text(text)
        else:
            sys.stdout.write(text)
        return 0
    if args.outdir is None:
        parser.error("OUTDIR is required (or --render)")
    mode = args.mode or _default_mode()
    scale = 0.05 if args.smoke and args.scale == 1.0 else args.scale
    results = orchestrate(args.outdir, mode, scale, args.smoke, args.only, args.deadline)
    print((args.outdir / "summary.md").read_text())
    bad = [p for p, r in results["parts"].items() if r["status"] not in ("ok", "skipped")]
    if bad:
        print(f"parts that did not finish: {', '.join(bad)}", file=sys.stderr)
    return 1 if bad else 0


def _default_mode() -> str:
    try:
        import torch
    except ImportError:
        return "fake"
    return "cuda" if torch.cuda.is_available() else "cpu"


if __name__ == "__main__":
    raise SystemExit(main())

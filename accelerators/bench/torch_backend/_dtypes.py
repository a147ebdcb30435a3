"""Which GEMM dtypes torch can run on a device, and the torch dtype that stores each.

=======  ==================================  ============================================
dtype    kernel                              where
=======  ==================================  ============================================
fp64     ``torch.mm`` (DGEMM; FP64 tensor    every backend (XPU only with native fp64)
         cores on A100/H100, matrix cores
         on MI200/MI300)
fp32     ``torch.mm`` (TF32 off)             every backend
tf32     ``torch.mm`` (TF32 on)              CUDA, compute capability 8.0+
bf16     ``torch.mm``                        CPU, XPU, ROCm, CUDA 8.0+
fp16     ``torch.mm``                        everywhere
fp8      ``torch._scaled_mm`` (e4m3)         CUDA 8.9+, ROCm gfx94x/gfx95x
int8     ``torch._int_mm`` (int32 out)       CPU, CUDA and ROCm where a probe call runs
mxfp8,   block-scaled ``torch._scaled_mm``   CUDA 10.0+ (Blackwell) where a probe product
fp4      (E8M0 scales per 32 values; FP4     runs and matches its reference
         as MXFP4)                           (:mod:`._block_scaled`)
=======  ==================================  ============================================
"""

from __future__ import annotations

from typing import Any

from accelerators.bench.measure._backend import DeviceProps
from accelerators.bench.torch_backend._block_scaled import probe

__all__ = ["GEMM_DTYPES", "torch_dtype", "unsupported"]

#: Every GEMM dtype a profile may name.
GEMM_DTYPES = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4", "mxfp8")
_BLOCK_SCALED = ("fp4", "mxfp8")
#: torch attributes the block-scaled dtypes need.
_BLOCK_SCALED_ATTRS = {
    "fp4": ("float4_e2m1fn_x2", "float8_e8m0fnu", "_scaled_mm"),
    "mxfp8": ("float8_e4m3fn", "float8_e8m0fnu", "_scaled_mm"),
}


def _cuda_capability(device: DeviceProps) -> tuple[int, int]:
    try:
        major, minor = (int(x) for x in (device.capability or "0.0").split(".")[:2])
    except ValueError:
        return 0, 0
    return major, minor


def _block_scaled(torch: Any, kind: str, device: DeviceProps, dtype: str, where: Any) -> str | None:
    """Why a block-scaled dtype (mxfp8, fp4) is not measured on this device, or ``None``."""
    if kind != "cuda" or _cuda_capability(device) < (10, 0):
        where_text = (
            f"compute capability {device.capability}" if kind == "cuda" else f"a {kind} device"
        )
        return (
            f"{dtype} GEMMs need an NVIDIA Blackwell GPU (compute capability 10.0+), "
            f"this is {where_text}"
        )
    missing = [a for a in _BLOCK_SCALED_ATTRS[dtype] if not hasattr(torch, a)]
    if missing:
        return f"unsupported by this torch: torch {torch.__version__} has no {', '.join(missing)}"
    return probe(torch, dtype, where)


def _int8_probe(torch: Any, where: Any) -> str | None:
    """Run one small ``torch._int_mm``; the error text when it fails."""
    if not hasattr(torch, "_int_mm"):
        return f"unsupported by this torch: torch {torch.__version__} has no torch._int_mm"
    a = torch.ones((32, 64), dtype=torch.int8, device=where)
    b = torch.ones((32, 64), dtype=torch.int8, device=where).t()
    try:
        out = torch._int_mm(a, b)
        if int(out[0, 0].item()) != 64:
            return "torch._int_mm returned a wrong product on a probe call"
    except (RuntimeError, NotImplementedError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"torch._int_mm fails on this device: {first}"
    return None


def unsupported(torch: Any, kind: str, device: DeviceProps, dtype: str, where: Any) -> str | None:
    """``None`` when torch runs ``dtype`` GEMMs on ``device``, else why not (one sentence).

    :param torch: the torch module.
    :param kind: the backend kind (``cuda``, ``rocm``, ``xpu``, ``cpu``).
    :param device: the device.
    :param dtype: a benchmark dtype.
    :param where: the ``torch.device`` (for the int8 probe call).
    """
    if dtype not in GEMM_DTYPES:
        return f"{dtype} is not a GEMM dtype of this benchmark (known: {', '.join(GEMM_DTYPES)})"
    if dtype in _BLOCK_SCALED:
        return _block_scaled(torch, kind, device, dtype, where)
    if kind == "cpu":
        if dtype == "tf32":
            return "TF32 is a GPU tensor-core format"
        if dtype == "fp8":
            return "fp8 GEMMs are measured on GPUs only"
        return _int8_probe(torch, where) if dtype == "int8" else None
    if kind == "xpu":
        if dtype in ("tf32", "fp8", "int8"):
            return f"{dtype} GEMMs are not measured on Intel XPU by this benchmark"
        if dtype == "fp64" and not getattr(
            torch.xpu.get_device_properties(device.index), "has_fp64", True
        ):
            return "this Intel GPU has no native fp64"
        return None
    if kind == "rocm":
        arch = device.capability or ""
        if dtype == "tf32":
            return "TF32 through torch is not measured on ROCm"
        if dtype == "fp8" and not arch.startswith(("gfx94", "gfx95")):
            return f"fp8 GEMMs need an MI300-class GPU (gfx94x/gfx95x), this is {arch}"
        if dtype == "fp8" and not hasattr(torch, "_scaled_mm"):
            return f"torch {torch.__version__} has no torch._scaled_mm"
        return _int8_probe(torch, where) if dtype == "int8" else None
    major, minor = _cuda_capability(device)
    if dtype in ("tf32", "bf16") and major < 8:
        return f"{dtype} tensor cores need compute capability 8.0+, this is {major}.{minor}"
    if dtype == "fp8":
        if (major, minor) < (8, 9):
            return f"fp8 tensor cores need compute capability 8.9+, this is {major}.{minor}"
        if not hasattr(torch, "_scaled_mm"):
            return f"torch {torch.__version__} has no torch._scaled_mm"
    if dtype == "int8":
        return _int8_probe(torch, where)
    return None


def torch_dtype(torch: Any, kind: str, device: DeviceProps, dtype: str) -> Any:
    """The torch dtype that stores ``dtype`` inputs on ``device``."""
    if dtype == "fp4":
        return torch.uint8  # two E2M1 codes per byte, viewed as float4_e2m1fn_x2 per call
    if dtype == "mxfp8":
        return torch.float8_e4m3fn
    if dtype == "fp8":
        arch = device.capability or ""
        if kind == "rocm" and arch.startswith("gfx94"):
            return torch.float8_e4m3fnuz
        return torch.float8_e4m3fn
    return {
        "fp64": torch.float64,
        "fp32": torch.float32,
        "tf32": torch.float32,
        "bf16": torch.bfloat16,
        "fp16": torch.float16,
        "int8": torch.int8,
    }[dtype]

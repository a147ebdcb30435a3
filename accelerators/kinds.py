"""What kind of accelerator a name means: skyward's ``is_nvidia``, ``is_trainium`` and the like.

>>> from accelerators.kinds import is_nvidia, is_amd, is_tpu, is_trainium
>>> is_nvidia("NVIDIA H100 80GB HBM3"), is_amd("Aqua Vanjaram [Instinct MI300X VF]")
(True, True)
>>> is_trainium("trn2.48xlarge"), is_tpu("tpu-v5p-8"), is_nvidia("MI300X")
(True, True, False)

Each takes anything :meth:`AcceleratorSpec.coerce <accelerators.spec.AcceleratorSpec.coerce>`
takes (a name the reader accepts, an instance type, a spec string, a constant, a spec, a list)
or a catalog entry, and answers for **every** accelerator the spec would accept: a fallback
chain (``H100 | MI300X``) is NVIDIA only if each alternative is, and a request by memory or
vendor (``nvidia:24GB``, ``80GB+``) only if every catalog entry it accepts is. A name that
names nothing raises :class:`~accelerators.errors.UnknownAcceleratorError`, as parsing does:
these never answer False for a typo.

skyward kept ``is_trainium`` as a field of its runtime ``AcceleratorInfo`` (``Trainium1``..``3``)
and ``is_nvidia`` only inside its RunPod provider; here they are functions of a name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from accelerators._vendors import vendor_record

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import SpecLike

__all__ = [
    "accelerators_of",
    "is_amd",
    "is_apple",
    "is_ascend",
    "is_biren",
    "is_cambricon",
    "is_furiosa",
    "is_gaudi",
    "is_google",
    "is_gpu",
    "is_hygon",
    "is_iluvatar",
    "is_inferentia",
    "is_intel",
    "is_metax",
    "is_moore_threads",
    "is_neuron",
    "is_npu",
    "is_nvidia",
    "is_qualcomm",
    "is_tenstorrent",
    "is_tpu",
    "is_trainium",
]


def accelerators_of(value: Accelerator | SpecLike) -> tuple[Accelerator, ...]:
    """Every catalog entry ``value`` would accept, in order (its SKUs, then its fallbacks')."""
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

    if isinstance(value, Accelerator):
        return (value,)
    spec = AcceleratorSpec.coerce(value)
    found: dict[Accelerator, None] = {}
    for alternative in spec.alternatives:
        found.update(dict.fromkeys(alternative.candidates))
    return tuple(found)


def _every(
    test: Callable[[Accelerator], bool], what: str
) -> Callable[[Accelerator | SpecLike], bool]:
    def check(value: Accelerator | SpecLike) -> bool:
        found = accelerators_of(value)
        return bool(found) and all(test(acc) for acc in found)

    check.__doc__ = f"Whether every accelerator ``value`` accepts is {what}."
    return check


def _made_by(name: str) -> Callable[[Accelerator | SpecLike], bool]:
    """The check for vendor ``name``, described from the vendor registry."""
    record = vendor_record(name)
    if record is None:  # pragma: no cover - the names below are the registry's
        raise KeyError(name)
    products = f" ({record.products})" if record.products else ""
    return _every(lambda acc: acc.vendor == record.name, f"{record.display}'s{products}")


is_nvidia = _made_by("nvidia")
is_amd = _made_by("amd")
is_intel = _made_by("intel")
is_google = _made_by("google")
is_qualcomm = _made_by("qualcomm")
is_gpu = _every(lambda acc: acc.device_class == "gpu", "a GPU (of any vendor)")
is_tpu = _every(lambda acc: acc.device_class == "tpu", "a TPU")
is_neuron = _every(lambda acc: acc.device_class == "neuron", "an AWS Neuron device")
is_trainium = _every(lambda acc: acc.family == "Trainium", "an AWS Trainium chip")
is_inferentia = _every(lambda acc: acc.family == "Inferentia", "an AWS Inferentia chip")
is_gaudi = _every(lambda acc: acc.device_class == "hpu", "an Intel Gaudi HPU")
is_ascend = _made_by("huawei")
is_cambricon = _made_by("cambricon")
is_hygon = _made_by("hygon")
is_iluvatar = _made_by("iluvatar")
is_metax = _made_by("metax")
is_moore_threads = _made_by("mthreads")
is_biren = _made_by("biren")
is_tenstorrent = _made_by("tenstorrent")
is_furiosa = _made_by("furiosa")

is_apple = _made_by("apple")
is_npu = _every(
    lambda acc: acc.device_class == "npu",
    "an NPU (Huawei Ascend, Qualcomm Cloud AI, Cambricon MLU, Tenstorrent, FuriosaAI)",
)

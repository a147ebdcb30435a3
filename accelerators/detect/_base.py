"""The probe interface, the device record and the helpers every vendor probe shares.

A probe answers one question: which devices of *its* vendor does this process see? It
returns a tuple of :class:`DeviceInfo`, or ``None`` when its vendor is not here. It never
raises: :meth:`Probe.detect` turns any exception into ``None`` plus :attr:`Probe.reason`.

Nothing here imports a vendor SDK, torch or pydantic; the catalog is loaded only when a
raw device name has to be matched (:func:`match_accelerator`).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = [
    "CommandRunner",
    "DeviceInfo",
    "DeviceKind",
    "Probe",
    "as_float",
    "as_int",
    "load_torch",
    "match_accelerator",
    "read_text",
    "run_command",
    "to_text",
    "torch_properties",
]

DeviceKind = Literal["gpu", "tpu", "neuron", "hpu", "npu", "cpu"]


@dataclass(frozen=True)
class DeviceInfo:
    """One device as this process sees it.

    ``accelerator`` is the catalog entry the raw name matched, ``None`` when it is not in the
    catalog. Telemetry fields are ``None`` where the probe could not read them.
    """

    index: int
    kind: DeviceKind
    vendor: str | None
    raw_name: str
    accelerator: Accelerator | None
    memory_bytes: int | None
    is_mig: bool = False
    mig_profile: str | None = None
    multiprocessors: int | None = None
    compute_capability: str | None = None
    l2_cache_bytes: int | None = None
    clocks_mhz: Mapping[str, float] = field(default_factory=dict, hash=False)
    throttle_reasons: tuple[str, ...] = ()
    temperature_c: float | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    ecc_errors: int | None = None
    extra: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        # Freeze the mappings so that a frozen record is frozen all the way down.
        object.__setattr__(self, "clocks_mhz", MappingProxyType(dict(self.clocks_mhz)))
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))


class Probe(ABC):
    """One vendor's detector (Ray's ``AcceleratorManager`` pattern, one small module each).

    Subclasses implement :meth:`_detect` and take their dependencies (SDK module objects, an
    environment mapping, a filesystem root, a command runner) as constructor arguments so that
    tests can pass fakes. :meth:`detect` is the never-raising entry point.
    """

    #: Short name, also the :attr:`Detected.source <accelerators.detect.Detected.source>` value.
    name: ClassVar[str] = "probe"

    def __init__(self) -> None:
        self.reason: str | None = None
        """Why the last :meth:`detect` found nothing, or why its device 0 is unmatched."""
        self.failed: bool = False
        """Whether the last :meth:`detect` hit an unexpected error (the answer is unknown)."""
        self.source: str = self.name
        """What answered the last :meth:`detect` (``name``, or a more precise tool name)."""

    def detect(self) -> tuple[DeviceInfo, ...] | None:
        """Devices of this vendor visible to the process; ``None`` when the vendor is absent.

        An empty tuple means the vendor is present but every device is hidden from this process
        (e.g. ``CUDA_VISIBLE_DEVICES=""``). Never raises.
        """
        self.reason = None
        self.failed = False
        self.source = self.name
        try:
            return self._detect()
        except Exception as exc:  # a probe must never break detection
            self.failed = True
            self.reason = f"{self.name} probe failed: {type(exc).__name__}: {exc}"
            return None

    @abstractmethod
    def _detect(self) -> tuple[DeviceInfo, ...] | None:
        """Do the work; may raise (``detect`` catches)."""

    def _absent(self, reason: str) -> tuple[DeviceInfo, ...] | None:
        """Record why the vendor is not here; returns ``None`` (``return self._absent(...)``)."""
        self.reason = reason
        return None

    def _note_unmatched(self, devices: Sequence[DeviceInfo], reporter: str) -> None:
        """Set :attr:`reason` when device 0 has no catalog entry."""
        if devices and devices[0].accelerator is None:
            self.reason = (
                f"{reporter} reported {devices[0].raw_name!r}, which is not in the catalog"
            )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


# -- external commands ---------------------------------------------------------------------


class CommandRunner(Protocol):
    """``run(argv, timeout) -> (returncode, stdout)``; 127 = not on PATH, 124 = timed out."""

    def __call__(self, argv: Sequence[str], timeout: float) -> tuple[int, str]: ...


def run_command(argv: Sequence[str], timeout: float) -> tuple[int, str]:
    """Run a fixed argv (no shell) with a timeout; never raises.

    :param argv: the command and its arguments; ``argv[0]`` is looked up on ``PATH``.
    :param timeout: seconds before the command is killed.
    :returns: ``(returncode, stdout)``; ``(127, "")`` when the command is not on ``PATH``,
        ``(124, "")`` when it timed out, ``(126, message)`` when it could not be started.
    """
    import shutil
    import subprocess

    if shutil.which(argv[0]) is None:
        return 127, ""
    try:
        done = subprocess.run(  # fixed argv, no shell
            list(argv), capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return 124, ""
    except (OSError, ValueError) as exc:
        return 126, str(exc)
    return done.returncode, done.stdout


# -- small readers -----------------------------------------------------------------------


def read_text(path: str | os.PathLike[str]) -> str | None:
    """Stripped content of a small (sysfs/proc) file, ``None`` when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except (OSError, ValueError):
        return None


def as_int(value: object) -> int | None:
    """``int(value)``, or ``None`` for ``None`` and anything that is not a number."""
    try:
        return int(value) if value is not None else None  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


def as_float(value: object) -> float | None:
    """``float(value)``, or ``None`` for ``None`` and anything that is not a number."""
    try:
        return float(value) if value is not None else None  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def to_text(value: object) -> str:
    """SDK strings come back as ``bytes`` from older pynvml releases; normalise to ``str``."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace").strip("\x00 ").strip()
    return str(value).strip()


# -- torch (shared by the CUDA and ROCm probes) ---------------------------------------------


def load_torch(*, driver_present: bool) -> Any:
    """The ``torch`` module if it costs nothing or is worth its import, else ``None``.

    An already-imported torch is always used. Otherwise torch is imported only when it is
    installed *and* ``driver_present`` says a vendor driver is loaded, so that a CPU-only host
    never pays torch's import time just to learn that it has no GPU.

    :param driver_present: whether the caller found its vendor's kernel driver.
    """
    module = sys.modules.get("torch")
    if module is not None:
        return module
    if not driver_present or importlib.util.find_spec("torch") is None:
        return None
    return importlib.import_module("torch")


def torch_properties(torch: Any) -> list[dict[str, Any]]:
    """``torch.cuda.get_device_properties`` of every visible device, as plain dicts.

    Keys: ``name``, ``total_memory``, ``multi_processor_count``, ``major``, ``minor``,
    ``L2_cache_size``, ``gcnArchName``, ``uuid``, ``pci_domain_id``, ``pci_bus_id``,
    ``pci_device_id``; a key is ``None`` where this torch build lacks the attribute.
    """
    keys = (
        "name",
        "total_memory",
        "multi_processor_count",
        "major",
        "minor",
        "L2_cache_size",
        "gcnArchName",
        "uuid",
        "pci_domain_id",
        "pci_bus_id",
        "pci_device_id",
    )
    out = []
    for index in range(int(torch.cuda.device_count())):
        props = torch.cuda.get_device_properties(index)
        out.append({key: getattr(props, key, None) for key in keys})
    return out


# -- catalog matching ----------------------------------------------------------------------

_NAME_FIELDS = (
    "nvml",
    "rocm",
    "gfd",
    "gke",
    "karpenter",
    "eks",
    "flyte",
    "flyte2",
    "ray",
    "skypilot",
    "modal",
    "hf",
    "other",
)


def match_accelerator(
    names: Iterable[str],
    *,
    vendor: str | None = None,
    device_class: str | None = None,
    catalog: Sequence[Accelerator] | None = None,
) -> Accelerator | None:
    """Catalog entry for the first of ``names`` that resolves, or ``None``.

    With ``catalog=None`` each name goes through ``accelerators.catalog._names.resolve_name`` (the
    project's resolver for NVML names, labels and aliases) and then, if that module is missing
    or finds nothing, through an exact, then case-insensitive, then punctuation-insensitive
    comparison with every name the catalog lists. A given ``catalog`` (tests, custom data) is
    matched with the comparison only. Entries of another vendor or device class never match.

    :param names: raw spellings to try, most specific first.
    :param vendor: catalog vendor the entry must have (``"nvidia"``, ``"amd"``…), if any.
    :param device_class: catalog device class the entry must have (``"gpu"``, ``"tpu"``…).
    :param catalog: entries to match against instead of the packaged catalog.
    """
    wanted = [n.strip() for n in dict.fromkeys(names) if n and n.strip()]
    if not wanted:
        return None
    if catalog is None:
        found = _resolve(wanted, vendor, device_class)
        if found is not None:
            return found
        from accelerators import catalog as packaged

        catalog = packaged.all()
    entries = [a for a in catalog if _fits(a, vendor, device_class)]
    for fold in (str.strip, str.casefold, _squash):
        index: dict[str, Accelerator] = {}
        for acc in entries:
            for spelling in _spellings(acc):
                index.setdefault(fold(spelling), acc)
        for name in wanted:
            hit = index.get(fold(name))
            if hit is not None:
                return hit
    return None


def _resolve(
    names: Sequence[str], vendor: str | None, device_class: str | None
) -> Accelerator | None:
    try:
        from accelerators.catalog._names import resolve_name
    except ImportError:
        return None
    for name in names:
        try:
            match = resolve_name(name)
        except Exception:  # UnknownAcceleratorError, or a resolver bug: the comparison remains
            continue
        acc = getattr(match, "accelerator", None)
        if acc is not None and _fits(acc, vendor, device_class):
            return acc  # type: ignore[no-any-return]
    return None


def _fits(acc: Accelerator, vendor: str | None, device_class: str | None) -> bool:
    return (vendor is None or acc.vendor == vendor) and (
        device_class is None or acc.device_class == device_class
    )


def _spellings(acc: Accelerator) -> list[str]:
    out = [acc.name, *acc.aliases]
    for key in _NAME_FIELDS:
        value = getattr(acc.names, key, None)
        if isinstance(value, str):
            out.append(value)
        elif value:
            out.extend(value)
    return out


def _squash(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())

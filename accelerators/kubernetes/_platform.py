"""The :class:`Platform` ABC: one Kubernetes flavour, one adapter.

A platform turns one alternative of an :class:`~accelerators.AcceleratorSpec` (a spec
without fallbacks) into a :class:`~accelerators.kubernetes.Placement`: the extended resources
to request, the node requirements and the tolerations. :meth:`Platform.fragment` then
combines the placements of all alternatives into one camelCase pod fragment (node affinity
rendered by :mod:`._affinity`; see ``docs/kubernetes.md``). Adapters are in ``_<name>.py``
and registered in :mod:`accelerators.kubernetes` (``CONTRIBUTING.md``, "Adding a platform").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from accelerators.errors import PlacementError, close_matches
from accelerators.kubernetes import _options
from accelerators.kubernetes._affinity import fallback_affinity, node_affinity
from accelerators.kubernetes._devices import device_resource
from accelerators.kubernetes._fragment import Placement, PodFragment, Requirement
from accelerators.kubernetes._tolerations import normalise_toleration

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

__all__ = ["COMMON_OPTIONS", "Platform"]

#: An alternative's placement, or the error that says why the platform has none.
_Tried = Placement | PlacementError

#: Options every platform accepts (documented in ``docs/kubernetes.md``).
COMMON_OPTIONS: tuple[str, ...] = ("labels", "label_values", "tolerations", "runtime_class_name")


class Platform(ABC):
    """One Kubernetes flavour: which resource names, node labels and tolerations it uses.

    Subclasses set :attr:`name`, :attr:`summary`, :attr:`labels` (label role -> default
    key) and :attr:`options` (platform-specific option names), implement :meth:`place`,
    and may override :meth:`configure` to read their options.

    :param labels: label role -> key, overriding the defaults in :attr:`labels`.
    :param label_values: catalog name, model or alias -> label value(s), overriding the
        catalog's names for this platform's primary label.
    :param tolerations: extra tolerations, added after the platform's own.
    :param runtime_class_name: ``spec.runtimeClassName`` to set (e.g. ``"nvidia"``).
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    labels: ClassVar[Mapping[str, str]] = {}
    options: ClassVar[tuple[str, ...]] = ()
    #: Whether :meth:`place` handles a shared slot (``T4@shared``): GPU sharing it can select.
    places_shared: ClassVar[bool] = False
    #: The cloud whose machine types make this platform's nodes (``instances.toml``'s
    #: ``cloud``), or ``None`` for a platform that runs anywhere.
    cloud: ClassVar[str | None] = None

    def __init__(
        self,
        *,
        labels: Mapping[str, str] | None = None,
        label_values: Mapping[str, str | Sequence[str]] | None = None,
        tolerations: Iterable[Any] | None = None,
        runtime_class_name: str | None = None,
        **options: Any,
    ) -> None:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            valid = sorted({*COMMON_OPTIONS, *self.options})
            hints = close_matches(unknown[0], valid)
            hint = f"; did you mean {hints[0]!r}?" if hints else ""
            raise PlacementError(
                f"Unknown option {unknown[0]!r} for platform {self.name!r}: valid options "
                f"are {', '.join(valid)}{hint}"
            )
        roles = _options.label_keys(self.name, labels)
        bad_roles = sorted(set(roles) - set(self.labels))
        if bad_roles:
            raise PlacementError(
                f"Unknown label role {bad_roles[0]!r} for platform {self.name!r}: its roles "
                f"are {', '.join(sorted(self.labels)) or '(none)'}"
            )
        self.label_keys: dict[str, str] = {**self.labels, **roles}
        self.value_overrides = _options.label_values(self.name, label_values)
        self.extra_tolerations = tuple(
            normalise_toleration(t)
            for t in _options.sequence(self.name, "tolerations", tolerations)
        )
        self.runtime_class_name = _options.text(self.name, "runtime_class_name", runtime_class_name)
        self.configure(**options)

    def configure(self, **options: Any) -> None:  # noqa: B027 - optional hook
        """Read platform-specific options (already checked against :attr:`options`)."""

    def __repr__(self) -> str:
        return f"<Platform {self.name}>"

    @abstractmethod
    def place(self, spec: AcceleratorSpec) -> Placement:
        """Place one alternative (a spec without fallbacks) or raise :class:`PlacementError`.

        :param spec: the alternative to place.
        """

    # -- helpers for subclasses -------------------------------------------------------
    def key(self, role: str) -> str:
        """The label key for ``role``, after the user's overrides."""
        return self.label_keys[role]

    def fail(self, spec: AcceleratorSpec, reason: str) -> PlacementError:
        """A :class:`PlacementError` naming the spec and this platform."""
        return PlacementError(f"Cannot place {str(spec)!r} on platform {self.name!r}: {reason}")

    def label_values_for(
        self,
        accelerators: Iterable[Accelerator],
        names: Callable[[Accelerator], Iterable[str | None] | str | None],
    ) -> tuple[str, ...]:
        """Label values for ``accelerators``: the user's overrides, else ``names(acc)``.

        Duplicates and missing names are dropped; order is kept (preferred SKU first).
        """
        out: list[str] = []
        for acc in accelerators:
            found = next(
                (
                    self.value_overrides[key.casefold()]
                    for key in (acc.name, acc.model, *acc.aliases)
                    if key.casefold() in self.value_overrides
                ),
                None,
            )
            if found is not None:
                out.extend(found)
                continue
            raw = names(acc)
            if isinstance(raw, str):
                out.append(raw)
            elif raw is not None:
                out.extend(v for v in raw if v)
        return tuple(dict.fromkeys(out))

    def candidates_and_resource(
        self, spec: AcceleratorSpec, *, gpus_only: bool = False
    ) -> tuple[list[Accelerator], str | None]:
        """The SKUs ``spec`` accepts and the extended resource they are requested as.

        A memory or vendor request (no named accelerator) keeps the candidates of its vendor
        (NVIDIA when none is given), and only GPUs when ``gpus_only``.
        """
        acc = spec.accelerator
        if acc is not None:
            return list(spec.candidates), acc.k8s_resource or device_resource(
                acc.vendor, acc.device_class
            )
        vendor = spec.vendor or "nvidia"
        candidates = [
            a
            for a in spec.candidates
            if a.vendor == vendor and (not gpus_only or a.device_class == "gpu")
        ]
        device_class = "gpu" if gpus_only or not candidates else candidates[0].device_class
        return candidates, device_resource(vendor, device_class)

    def whole_count(self, spec: AcceleratorSpec, what: str = "devices") -> int:
        """``spec.count`` as an int, or a :class:`PlacementError` for a fraction."""
        if spec.is_fractional:
            raise self.fail(
                spec,
                f"a fractional count ({spec.count}) needs GPU sharing, which this platform "
                f"cannot express; ask for whole {what}, or use platform 'gke' (time-sharing "
                "or MPS) or 'nvidia' (GPU Operator time-slicing or MPS)",
            )
        return int(spec.count)

    # -- composition ----------------------------------------------------------------------
    def left_out(self, spec: AcceleratorSpec) -> tuple[str, ...]:
        """Why each alternative of ``spec`` that this platform has no placement for is left
        out, when it can place others (:meth:`fragment` places those): ``V100`` is
        ``V100-16GB | V100-32GB``, and GKE has no label for the 32 GB card. Empty when every
        alternative is placed, or none is (then :meth:`fragment` raises)."""
        tried = self._tries(spec)
        reasons = tuple(str(r) for _, r in tried if isinstance(r, PlacementError))
        return reasons if len(reasons) < len(tried) else ()

    def placeable(self, spec: AcceleratorSpec) -> tuple[AcceleratorSpec, ...]:
        """The alternatives of ``spec`` this platform places, in order (all of them when it
        can place none: :meth:`fragment` then says why for each)."""
        tried = self._tries(spec)
        placed = tuple(alt for alt, r in tried if not isinstance(r, PlacementError))
        return placed or spec.alternatives

    def _tries(self, spec: AcceleratorSpec) -> list[tuple[AcceleratorSpec, _Tried]]:
        """Each alternative with its placement, or the error that says why it has none (a
        spec without fallbacks raises that error: it has nothing else to place)."""
        alternatives = spec.alternatives
        if len(alternatives) == 1:
            return [(alternatives[0], self.place(alternatives[0]))]
        out: list[tuple[AcceleratorSpec, _Tried]] = []
        for alt in alternatives:
            try:
                out.append((alt, self.place(alt)))
            except PlacementError as exc:
                out.append((alt, exc))
        return out

    def _placeable(
        self, spec: AcceleratorSpec
    ) -> tuple[tuple[AcceleratorSpec, ...], list[Placement]]:
        """The alternatives this platform places and their placements.

        A spec's alternatives are each acceptable (a fallback chain, or the models of a family
        a name left open: ``V100`` is ``V100-16GB | V100-32GB``), so one the platform has no
        placement for is left out (:meth:`left_out` says which and why) and the pod runs on
        the others. Only when none can be placed is the spec refused, naming each.
        """
        tried = self._tries(spec)
        placed = [(alt, r) for alt, r in tried if not isinstance(r, PlacementError)]
        if not placed:
            reasons = "; ".join(str(r) for _, r in tried)
            raise PlacementError(
                f"Cannot place {str(spec)!r} on platform {self.name!r}: none of its "
                f"alternatives can be placed here ({reasons})"
            )
        return tuple(alt for alt, _ in placed), [r for _, r in placed]

    def fragment(self, spec: AcceleratorSpec) -> PodFragment:
        """The pod fragment for ``spec`` and all its fallbacks (not yet validated)."""
        alternatives = spec.alternatives
        for alt in alternatives:
            if alt.shared and not self.places_shared:
                raise self.fail(
                    alt,
                    "a shared GPU slot ('@shared') needs GPU sharing, which this platform "
                    "cannot select; use platform 'nvidia' (GPU Operator time-slicing or MPS: "
                    "nvidia.com/gpu.shared or the -SHARED product) or 'gke' (time-sharing or MPS)",
                )
        alternatives, placements = self._placeable(spec)
        first = placements[0]
        for alt, placement in zip(alternatives[1:], placements[1:], strict=True):
            if dict(placement.resources) != dict(first.resources):
                raise PlacementError(
                    f"Cannot place {str(spec)!r} on platform {self.name!r} as one pod: "
                    f"{str(alternatives[0])!r} requests {_show(first.resources)} but the "
                    f"fallback {str(alt)!r} requests {_show(placement.resources)}, and a pod "
                    "has one fixed resource request. Build one pod per alternative, or use "
                    "fallbacks with the same count and resource name"
                    + (
                        " (mig_strategy='single' gives every MIG profile the resource "
                        "nvidia.com/gpu)"
                        if self.name == "nvidia"
                        else ""
                    )
                )
        out: PodFragment = {
            "resources": {
                "limits": {k: str(v) for k, v in first.resources.items()},
                "requests": {k: str(v) for k, v in first.resources.items()},
            }
        }
        if len(placements) == 1:
            selector: dict[str, str] = {}
            rest: list[Requirement] = []
            for req in first.requirements:
                single = req.operator == "In" and len(req.values) == 1
                if single and not first.affinity_only and req.key not in selector:
                    selector[req.key] = req.values[0]
                else:
                    rest.append(req)
            if selector:
                out["nodeSelector"] = selector
            if rest:
                out["affinity"] = node_affinity([tuple(rest)], [])
        else:
            out_affinity = fallback_affinity([p.requirements for p in placements])
            if out_affinity:
                out["affinity"] = out_affinity
        tolerations: list[dict[str, Any]] = []
        for item in [t for p in placements for t in p.tolerations] + list(self.extra_tolerations):
            if dict(item) not in tolerations:
                tolerations.append(dict(item))
        out["tolerations"] = tolerations
        if self.runtime_class_name:
            out["runtimeClassName"] = self.runtime_class_name
        return out


def _show(resources: Mapping[str, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in resources.items()) or "no resources"

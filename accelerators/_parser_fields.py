"""What the parser's alternatives mean: a name folded into the fields of a spec.

The grammar (:mod:`accelerators._parser`) reads tokens; this module turns what it read into
the keyword arguments of a spec: it resolves names (:mod:`accelerators.catalog._names`),
folds what a name implies (a SKU, a count, a partition) into the explicit fields, and
refuses what cannot hold together. Those refusals are not grammar mistakes: each raises
the type the same mistake raises through the spec's constructor
(:class:`~accelerators.errors.InvalidSpecError`, :class:`UnknownPartitionError`...), with
a caret under the span of the text that says it (:func:`~accelerators.errors.with_caret`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

from accelerators._text import quote
from accelerators.catalog._memory import MemoryRequest
from accelerators.catalog._names import NameMatch, resolve_name, select_by_memory
from accelerators.catalog._partitions import check_partition
from accelerators.catalog._system_counts import per_machine
from accelerators.catalog._system_words import denoted, names_denoting
from accelerators.errors import (
    AcceleratorError,
    CountNotStatedError,
    InvalidSpecError,
    close_matches,
    with_caret,
)

if TYPE_CHECKING:
    from accelerators._tokenizer import Token

__all__ = [
    "DENOTED",
    "MAX_COUNT",
    "SHARED",
    "WHOLE",
    "Alternative",
    "ParsedAlternative",
    "build",
    "check_denotes",
    "complete_named",
    "count_value",
    "denoting",
    "node_count",
    "refuse",
    "resolve",
    "share_count",
]

#: The largest device count a spec accepts (2**53: every integer up to it is exact as a
#: float, so counts survive JSON and the Kubernetes quantity text unchanged).
MAX_COUNT = 2**53
#: Words after ``@`` that ask for a whole, unpartitioned device; the first is canonical.
WHOLE = ("whole", "unpartitioned")
#: ``@shared`` (or Flyte 2's trailing word, ``T4 shared``): a shared slot of a GPU.
SHARED = "shared"

#: What the names of a source stand for (``AcceleratorSpec.parse(text, denotes=...)``):
#: ``device``, one device as the operating system and Kubernetes count them (a name that
#: states no count is one); ``board``, a product as sold (a dual-GPU K80 board is 2 devices);
#: ``node``, a machine, partition, pool or instance type, whose device count only a count in
#: the name (or the spec) says; ``mixed``, a list of several of those kinds, read as devices
#: where the kinds agree (a product that holds several devices and states no count is
#: refused: one device, or the board?). The first is the default.
DENOTED = ("device", "board", "node", "mixed")


class ParsedAlternative(NamedTuple):
    """One alternative: the keyword arguments of a spec and where in the source it stands."""

    fields: dict[str, Any]
    span: tuple[int, int]


class Alternative:
    """One alternative being parsed: the spec's fields, its span and what could follow it."""

    __slots__ = ("count_span", "end", "fields", "follow", "group", "memory_span", "start")

    def __init__(
        self, fields: dict[str, Any], start: int, *, follow: list[str] | None = None
    ) -> None:
        self.fields = fields
        self.start = start
        self.end = 0
        self.follow: list[str] = [] if follow is None else follow
        self.memory_span: tuple[int, int] | None = None
        self.count_span: tuple[int, int] | None = None
        #: Further models a group name means (Modal's ``B200+`` is B200, then B300; ``any``).
        self.group: tuple[Any, ...] = ()


@contextmanager
def denoting(value: object) -> Iterator[None]:
    """Read the spec text of the ``with`` block as a source whose names stand for ``value``
    (:data:`DENOTED`; checked first)."""
    with names_denoting(check_denotes(value)):  # the catalog's reader reads it too: one state
        yield


def check_denotes(value: object) -> str:
    """``value`` if it is one of :data:`DENOTED`; else the error that says what is expected."""
    if isinstance(value, str) and value in DENOTED:
        return value
    near = close_matches(value, DENOTED, n=1) if isinstance(value, str) else []
    hint = f"; did you mean {near[0]!r}?" if near else ""
    raise InvalidSpecError(
        "Expected denotes= to be 'device' (a name is one device), 'board' (a product as "
        "sold), 'node' (a machine, partition or instance type) or 'mixed' (a list of those "
        f"kinds), got {value!r}{hint}"
    )


def refuse(message: str, source: str, span: tuple[int, int]) -> NoReturn:
    """Raise :class:`InvalidSpecError`: text that follows the grammar but cannot hold."""
    raise with_caret(InvalidSpecError(message), source, span)


def resolve(source: str, name: Token) -> NameMatch:
    """The catalog entry ``name`` stands for (its errors point at it)."""
    try:
        return resolve_name(name.text)
    except AcceleratorError as exc:
        raise with_caret(exc, source, name.span) from None


def complete_named(
    source: str,
    alternative: Alternative,
    match: NameMatch,
    name: Token,
    *,
    exact: bool,
    partition: Token | None,
) -> None:
    """Fold what the name implies (SKU, count, partition) into the explicit fields."""
    fields = alternative.fields
    acc = match.accelerator
    memory: MemoryRequest | None = fields.get("memory")
    if memory is not None and alternative.group and match.source != "group":
        # A size picks among the models a name left open ("gpu-a100-large:80GB").
        fitting = [a for a in (acc, *alternative.group) if memory.matches(a)]
        if fitting:
            match = replace(match, accelerator=fitting[0], pinned=False, family=())
            acc, alternative.group = fitting[0], ()
    if memory is not None:
        try:
            acc = select_by_memory(match, memory)
        except AcceleratorError as exc:
            span = (name.position, (alternative.memory_span or name.span)[1])
            raise with_caret(exc, source, span) from None
    fields["accelerator"] = acc
    fields["exact"] = exact or match.pinned
    if match.needs_count and "count" not in fields:
        error = CountNotStatedError(match.needs_count)
        error.name = name.text  # explain shows how the name reads
        raise with_caret(error, source, name.span)
    if partition is None:  # a slice ("A100@1g.10gb") is never a node or a board
        match = _denoted(source, alternative, match, name)
    if match.count is not None:
        count = fields.setdefault("count", match.count)
        if count != match.count:
            refuse(
                f"{quote(name.text)} already means a count of {match.count}, but the spec "
                f"asks for {count}; give the count once",
                source,
                alternative.count_span or name.span,
            )
    chosen = _chosen_partition(source, match, name, partition)
    where = partition.span if partition is not None else name.span
    if chosen is not None and alternative.group and match.source != "group":
        # A MIG profile picks among the models a name left open ("A100@3g.20gb": 40 GB).
        fitting = [a for a in (acc, *alternative.group) if chosen in a.partitions]
        if fitting:
            acc, alternative.group = fitting[0], tuple(fitting[1:])
            fields["accelerator"] = acc
    if chosen is not None and fields.get("shared"):
        refuse(
            f"{quote(name.text + ' shared')} already asks for a shared slot, so '@{chosen}' "
            "cannot follow it; write 'shared' or '@shared' once, without a partition",
            source,
            where,
        )
    if chosen == SHARED:
        fields["shared"] = True
    elif chosen in WHOLE:
        fields["unpartitioned"] = True
        if not acc.partitions:
            refuse(
                f"{acc.name} cannot be partitioned, so '@{chosen}' means nothing for it",
                source,
                where,
            )
    elif chosen is not None:
        try:
            check_partition(acc, chosen)
        except AcceleratorError as exc:
            raise with_caret(exc, source, where) from None
        fields["partition"] = chosen


def _denoted(source: str, alternative: Alternative, match: NameMatch, name: Token) -> NameMatch:
    """The match as its source's names mean it (``denotes``, :func:`denoted`).

    A name for a node (``gpu-a100``, a partition) that states no count leaves the count to
    its system: the spec must give it, never 1 by default. A name for a board as sold
    (``Tesla K80``, ``MI250``) counts the devices the board holds, once per board the name
    states. A slice, a shared slot or a count the spec itself gives keeps its meaning.
    """
    denotes = denoted()
    fields = alternative.fields
    if (
        denotes == DENOTED[0]
        or match.partition is not None
        or fields.get("shared")
        or fields.get("partition") is not None
        or {"count", "count_range"} & set(fields)
    ):
        return match
    if denotes == "mixed":
        return _mixed(source, alternative, match, name)
    if denotes == "node":
        if match.count is not None:
            return match
        fixed = per_machine((fields["accelerator"], *alternative.group), name.text)
        if fixed is None:
            raise _node_without_count(source, name.text, name.span, name=name.text)
        return replace(match, count=fixed)  # a Mac's profile "m1_max": a Mac has one M1 Max
    if match.devices:  # "A16 64GB", "1x Tesla K80 (2 GPUs)": the devices, counted already
        return match
    per_board = _devices_per_board(alternative)
    boards = match.count if match.count is not None else 1
    if len(per_board) != 1 or boards < 1 or not float(boards).is_integer():
        return match
    per = per_board.pop()
    return match if per == 1 else replace(match, count=boards * per)


def _mixed(source: str, alternative: Alternative, match: NameMatch, name: Token) -> NameMatch:
    """The match where a source's names are of several kinds (``denotes="mixed"``): a name
    reads as one device where a device's and a board's reading agree. A product that holds
    several devices (an MI250 is 2, an A16 4) and states no count is refused: one of its
    devices, or the board, is its system's to say."""
    if match.count is not None or match.devices:
        return match
    held = _devices_per_board(alternative)
    most = max(held)
    if most == 1:
        return match
    products = "a product that holds" if len(held) == 1 else "products that hold up to"
    error = CountNotStatedError(
        f"{quote(name.text)} names {products} {most} devices, and its list mixes devices, "
        "boards and nodes (denotes='mixed'), so whether it means one device or the whole "
        f"board is its system's to say: give the count ('{name.text}:1' for one "
        f"device, '{name.text}:{most}' for the board), or say what the names stand for "
        "(denotes='device' or 'board')"
    )
    error.name = name.text
    raise with_caret(error, source, name.span)


def _devices_per_board(alternative: Alternative) -> set[int]:
    """The devices a board of each model the alternative names holds (1 for most; 2 for a
    K80 or an MI250, 4 for an A16)."""
    return {
        acc.devices_per_board for acc in (alternative.fields["accelerator"], *alternative.group)
    }


def node_count(source: str, alternative: Alternative, span: tuple[int, int]) -> None:
    """Refuse a memory or vendor request with no count where names stand for nodes, or for
    several kinds (``denotes="node"``, ``"mixed"``): Mila's node feature ``32gb`` holds as many
    GPUs as its nodes do, and NJIT's GRES type ``10gb`` is a MIG slice's memory."""
    fields = alternative.fields
    denotes = denoted()
    if (
        denotes not in ("node", "mixed")
        or {"count", "count_range"} & set(fields)
        or fields.get("shared")
    ):
        return
    raise _node_without_count(source, source[span[0] : span[1]].strip(), span, denotes=denotes)


def _node_without_count(
    source: str,
    text: str,
    span: tuple[int, int],
    *,
    name: str | None = None,
    denotes: str = "node",
) -> CountNotStatedError:
    """The error for ``text``, read as a node's name, that states no count: with a caret, and
    the ``name`` it is about (explain shows how a name reads)."""
    error = CountNotStatedError(
        f"{quote(text)} {'names' if denotes == 'node' else 'may name'} a node, partition or "
        f"instance (denotes={denotes!r}), and how many devices it holds is not in the name: "
        f"give the count ('{text}:8'), or read the name as one device (denotes='device')"
    )
    error.name = name
    return with_caret(error, source, span)


def _chosen_partition(
    source: str, match: NameMatch, name: Token, partition: Token | None
) -> str | None:
    """The partition the spec asks for: after ``@``, or in the name itself (once)."""
    if partition is None:
        return match.partition
    chosen = partition.text.lower()
    if match.partition is not None and chosen != match.partition:
        refuse(
            f"{quote(name.text)} already names the partition {match.partition!r}, but the "
            f"spec asks for {partition.text!r}; give the partition once",
            source,
            partition.span,
        )
    return chosen


def build(alternative: Alternative) -> list[ParsedAlternative]:
    """The parsed alternative, then, for a group name, each further model of the group as a
    fallback with the same fields."""
    span = (alternative.start, alternative.end)
    built = [ParsedAlternative(alternative.fields, span)]
    for member in alternative.group:
        built.append(ParsedAlternative({**alternative.fields, "accelerator": member}, span))
    return built


def share_count(run: list[Alternative]) -> list[Alternative]:
    """dstack's ``A10,A10G:2``: names listed with ',' before the one that carries a count
    share it (any of them, that many). Only bare names share; ``H100:8, A100`` keeps each.
    A bare name that reads as a family shares it with each model (``H100,MI300X:8``)."""
    *head, last = run
    if "count" not in last.fields or not head:
        return run
    if any(set(alt.fields) - {"accelerator", "exact"} for alt in head):
        return run
    keys = ("count", "count_range")
    shared: dict[str, Any] = {k: last.fields[k] for k in keys if k in last.fields}
    for alt in head:
        alt.fields.update(shared)
    return run


def count_value(text: str) -> int | float:
    """``8`` -> 8 (an exact int, however long), ``0.5`` -> 0.5; beyond 2**53 -> inf; a
    fraction a float cannot hold apart from a whole number (``9007199254740992.5``) -> nan,
    never the whole number it rounds to."""
    if "." not in text:
        return int(text) if len(text) <= 20 else math.inf
    value = float(text)
    fraction = text.partition(".")[2]
    if value.is_integer() and fraction.strip("0"):
        return math.nan
    return int(value) if value.is_integer() and value <= MAX_COUNT else value

"""Names other systems accept, from their public sources (``tests/peer_names/*.tsv``).

Each row must resolve to the device and count its system means, or, for an accelerator this
catalog does not carry, raise ``UnknownAcceleratorError``: never a wrong device. The share
of resolved rows is what ``benchmarks/peer_names.py`` prints.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accelerators import AcceleratorSpec, catalog
from accelerators.catalog._names import resolve_name
from accelerators.catalog._schema import Names

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("peer_names", ROOT / "benchmarks" / "peer_names.py")
assert _spec is not None
assert _spec.loader is not None
peer_names: Any = importlib.util.module_from_spec(_spec)
sys.modules["peer_names"] = peer_names  # dataclasses look their module up there
_spec.loader.exec_module(peer_names)

ROWS = peer_names.load()
SYSTEMS = sorted({row.system for row in ROWS})


def test_every_system_has_a_corpus() -> None:
    assert set(SYSTEMS) == {
        "coreweave",
        "flyte2",
        "gcp_tpu",
        "hf",
        "modal",
        "ray",
        "skypilot",
        "slurm",
    }
    assert len(ROWS) >= 250


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.system}:{r.name}" for r in ROWS])
def test_row_resolves_or_is_refused_never_wrong(row: Any) -> None:
    outcome = peer_names.evaluate(row)
    expected = "unknown" if row.device is None else "resolved"
    assert (outcome.status, outcome.row) == (expected, row), outcome.detail


def test_overall_share_meets_the_target() -> None:
    outcomes = [peer_names.evaluate(row) for row in ROWS]
    summary = peer_names.summarise(outcomes)
    resolved = sum(s["resolved"] for s in summary.values())
    assert resolved / len(ROWS) >= peer_names.TARGET
    # Every system meets it (Ray's misses: the 2012 Radeon HD 7900 cards its AMD table names).
    below = {name for name, s in summary.items() if s["share"] < peer_names.TARGET}
    assert not below


# -- every catalog spelling, in every system's form, parses back to its entry ------------------
_ALL = [
    (acc, system, text)
    for acc in catalog.all()
    for system in Names.model_fields
    for value in [getattr(acc.names, system)]
    for text in ((value,) if isinstance(value, str) else value or ())
]
_MODELS: dict[str, set[str]] = {}
for _acc, _system, _text in _ALL:
    _MODELS.setdefault(_text.casefold(), set()).add(_acc.model)
#: Spellings of one model only (EC2's "a100" names both A100 sizes; Karpenter bounds memory).
SPELLINGS = [case for case in _ALL if len(_MODELS[case[2].casefold()]) == 1]


@given(case=st.sampled_from(SPELLINGS), count=st.integers(min_value=1, max_value=64))
def test_any_system_spelling_parses_back_to_its_entry(case: Any, count: int) -> None:
    acc, _system, text = case
    spec = AcceleratorSpec.parse(text)
    assert spec.accelerator is not None
    assert spec.accelerator.model == acc.model
    if resolve_name(text).count is None and spec.partition is None:  # no count in the name
        with_count = AcceleratorSpec.parse(f"{text}:{count}")
        assert with_count.accelerator == spec.accelerator
        assert with_count.count == count
    assert AcceleratorSpec.parse(str(spec)) == spec


# -- the held-out corpus: systems the catalog was never taught (tests/peer_names/held_out) -------
HELD_OUT = peer_names.load(peer_names.HELD_OUT)


def test_the_held_out_corpus_is_large_and_sourced() -> None:
    systems = {row.system for row in HELD_OUT}
    assert len(systems) >= 15
    assert len(HELD_OUT) >= 400
    assert not systems & set(SYSTEMS)  # none of the taught systems
    kinds = {row.kind for row in HELD_OUT}
    assert {"driver", "pci.ids", "instance", "scheduler", "config"} <= kinds
    for row in HELD_OUT:
        assert row.source, row.name
        assert row.source.startswith("https://") or "@" in row.source or ":" in row.source


@pytest.mark.parametrize("row", HELD_OUT, ids=[f"{r.system}:{r.name}" for r in HELD_OUT])
def test_held_out_row_is_never_read_wrong(row: Any) -> None:
    outcome = peer_names.evaluate(row)
    assert outcome.status in ("resolved", "unknown"), outcome.detail
    if row.device is None:  # a device the catalog does not carry: refused
        assert outcome.status == "unknown", outcome.detail


def test_held_out_shares() -> None:
    outcomes = [peer_names.evaluate(row) for row in HELD_OUT]
    resolved = sum(o.status == "resolved" for o in outcomes)
    carried = [o for o in outcomes if o.row.device is not None]
    # every row counted (a correct refusal of a device the catalog lacks counts as a miss):
    # issue 21's bar, reached in catalog 2026.11.6 (697/730)
    assert resolved / len(outcomes) >= peer_names.TARGET
    # rows whose device the catalog carries: only H800 PCIe (driver and pci.ids names) is left
    # (no page gives its figures, so the catalog has no such SKU and refuses it)
    assert sum(o.status == "resolved" for o in carried) / len(carried) >= 0.99


# -- the fresh corpus: systems no corpus above used (issue 32) ----------------------------------
FRESH = peer_names.load(peer_names.FRESH)
#: Names that are a platform's own label whose documented meaning is one model, where the
#: fresh corpus reads the name as the family it leaves open: Mystic's "nvidia_h100_80gb" is,
#: to the letter, GKE's label of the H100 SXM. (Catalog 2026.11.9 dropped the aliases
#: NVIDIA-A100, NVIDIA-V100, H100-80GB and H200-141GB, and a looser match that leaves the model
#: open reads as the family: "nvidia_a100", "H100 80GB" and "H200 141GB" are now right.)
#: Empty since 2026-11-29: another system's spelling matched only by folding case and
#: separators says no more than its words, so "nvidia_h100_80gb" (GKE writes
#: nvidia-h100-80gb) reads as the family its row expects.
CONVENTION: set[str] = set()
SEALED = peer_names.load(peer_names.SEALED)
#: The same kind of rows in the sealed third, found when it was run once, with the reader
#: done (at 299158b): spellings the catalog pins to one model (Baseten's "A100" is the 80 GB
#: card; the catalog's bare A100 is the 40 GB one, as flytekit's; "nvidia_h100" is, to the
#: letter, Flyte's and EKS's label of the H100 SXM). Mystic's "nvidia_v100" was a third; it
#: is right since catalog 2026.11.9, and Baseten's "A100" since catalog 2026.11.10 (a bare A100
#: reads as the family: catalog [[open_names]]), changes made after the sealed third had been
#: read, so neither is a sealed figure. Mystic's "nvidia_h100" is right since 2026-11-29 (a
#: folded match of Flyte's nvidia-h100 says no more than its words), not a sealed figure either.
CONVENTION_SEALED: set[tuple[str, str]] = set()


def test_the_fresh_corpus_is_new_sourced_and_split() -> None:
    systems = {row.system for row in FRESH}
    sealed = peer_names.load(peer_names.SEALED)
    assert len(systems | {row.system for row in sealed}) >= 12
    assert len(FRESH) + len(sealed) >= 300
    assert not systems & (set(SYSTEMS) | {row.system for row in HELD_OUT})
    for row in FRESH + sealed:
        assert row.source, row.name
        assert row.meaning, row.name
    # the split is the documented hash of system and name
    for row in FRESH + sealed:
        digest = hashlib.sha256(f"{row.system}\t{row.name}".encode()).digest()
        assert (digest[0] % 3 == 0) == (row in sealed), row.name


@pytest.mark.parametrize("row", FRESH, ids=[f"{r.system}:{r.name}" for r in FRESH])
def test_fresh_row_is_read_right_or_refused(row: Any) -> None:
    outcome = peer_names.evaluate(row)
    if row.name in CONVENTION:
        assert outcome.status == "wrong", outcome.detail
        assert "is not" in outcome.detail, outcome.detail
        return
    assert outcome.status in ("resolved", "unknown"), outcome.detail
    if row.device is None:  # a device the catalog lacks, or a name that determines none
        assert outcome.status == ("resolved" if row.refuse else "unknown"), outcome.detail


def test_fresh_visible_shares() -> None:
    outcomes = [peer_names.evaluate(row) for row in FRESH]
    headline = peer_names.headline(outcomes)
    # measured on the visible two thirds: 192/216 right and 4 convention rows with the reader
    # (299158b); 195/216 (90.3 %) and 1 (0.5 %) since catalog 2026.11.9; 192/216 since an
    # instance size without a count is refused (Replicate's gpu-a40-small, gpu-a40-large and
    # gpu-a100-large have 1 GPU, but Exoscale's gpua5000.medium has 2); 176/216 since names
    # are read as their file's '# denotes:' says: fal's, Koyeb's, Lightning's and Replicate's
    # machine names state no count, and are refused read as nodes (193/216 read as devices)
    assert headline["right"] >= 176
    assert (
        peer_names.headline([peer_names.evaluate(r, as_devices=True) for r in FRESH])["right"]
        >= 192
    )
    assert headline["wrong"] / headline["rows"] <= 0.01
    assert headline["wrong"] <= len(CONVENTION)


@pytest.mark.parametrize("row", SEALED, ids=[f"{r.system}:{r.name}" for r in SEALED])
def test_sealed_row_is_read_right_or_refused(row: Any) -> None:
    # the sealed third was read once when the reader was done; this pins what it read then
    outcome = peer_names.evaluate(row)
    if (row.system, row.name) in CONVENTION_SEALED:
        assert outcome.status == "wrong", outcome.detail
        assert "is not" in outcome.detail, outcome.detail
        return
    assert outcome.status in ("resolved", "unknown"), outcome.detail


def test_sealed_shares() -> None:
    headline = peer_names.headline([peer_names.evaluate(row) for row in SEALED])
    # measured once at 299158b: 87/95 right, 5 refused, 3 convention rows; 88/95 and 2 since
    # catalog 2026.11.9, 89/95 and 1 since 2026.11.10 (no longer sealed figures for those changes);
    # 85/95 read as the files' '# denotes:' say (Lightning's T4 and L4, fal's GPU-L40 and
    # Koyeb's and Replicate's machines state no count: refused as nodes), 90/95 as devices
    as_devices = peer_names.headline([peer_names.evaluate(r, as_devices=True) for r in SEALED])
    assert as_devices["right"] / as_devices["rows"] >= 0.92
    assert headline["right"] >= 85
    assert headline["wrong"] <= len(CONVENTION_SEALED)


# -- the later fresh corpora, each run once with the reader frozen (the catalog too from the
# ninth): the second (24 more systems, collected after the first sealed third was read), the
# third (19), the fourth (22, for the reader issue 32 ships), the fifth (29), the sixth (16),
# the seventh (23), the eighth (27), the ninth (29), the tenth (33), the eleventh (33), the
# twelfth (33), the thirteenth (31), the fourteenth (33), the fifteenth (33), the sixteenth (32),
# the seventeenth (30) and the eighteenth (30)
#: The fresh corpora in the order they were collected, each (visible, sealed): the benchmark's
#: one table of them (a corpus added there is checked here).
IN_ORDER = [(FRESH, SEALED)] + [
    (peer_names.load(visible), peer_names.load(sealed))
    for visible, sealed in peer_names._FRESH_PARTS[1:]
]


def _before(index: int) -> list[Any]:
    """The held-out corpus and every fresh corpus collected before ``IN_ORDER[index]``."""
    return HELD_OUT + [row for visible, sealed in IN_ORDER[:index] for row in visible + sealed]


@pytest.mark.parametrize("index", range(3, len(IN_ORDER)), ids=lambda i: f"fresh{i + 1}")
def test_a_later_corpus_holds_no_name_an_earlier_corpus_has(index: int) -> None:
    visible, sealed = IN_ORDER[index]
    seen = {row.name for row in ROWS + _before(index)}
    repeated = [row for row in visible + sealed if row.name in seen]
    if index == 43:
        # the forty-fourth kept them (the rule was not applied before its split): 257 rows,
        # which the benchmark reports apart ("names no earlier corpus has")
        assert len(repeated) == 257
        assert {row.name for row in repeated} <= peer_names.names_before("fresh 44")
        return
    assert not [row.name for row in repeated]


#: Fresh corpora smaller than the 300 names issue 32 asks of a new corpus: the sixteenth, a
#: second measurement in one session, kept 275 (222 of its collectors' names were in earlier
#: corpora and were dropped before the split); the twenty-fifth, a third in one session, kept
#: 291 (144 dropped so); the twenty-sixth, collected in the next session, kept 248 (245
#: dropped so, and six systems left with fewer than 5 rows); the twenty-seventh, in the session
#: after, kept 203 (182 dropped so, six systems left with fewer than 5 rows, and two systems
#: collected twice, of which the smaller file was set aside before the split); the
#: thirty-ninth kept 160 (194 dropped so, two systems left with fewer than 5 rows: most systems
#: its collectors' grounds held were already read); the forty-first kept 239 (190 dropped so,
#: five systems left with fewer than 5 rows, and the session's search budget spent mid-round);
#: the forty-third, a second measurement in one session, kept 232 (171 dropped so, four systems
#: left with fewer than 5 rows, three set aside as clusters or a fork earlier corpora read, and
#: the helpers' look-ups running out before most finished their systems).
_SMALLER = {15: 275, 24: 291, 25: 248, 26: 203, 38: 160, 40: 239, 42: 232}


@pytest.mark.parametrize(
    ("visible", "sealed", "earlier", "least"),
    [(*IN_ORDER[i], _before(i), _SMALLER.get(i, 300)) for i in range(1, len(IN_ORDER))],
    ids=[f"fresh{i + 1}" for i in range(1, len(IN_ORDER))],
)
def test_a_later_fresh_corpus_is_new_sourced_and_split(
    visible: list[Any], sealed: list[Any], earlier: list[Any], least: int
) -> None:
    rows = visible + sealed
    systems = {row.system for row in rows}
    assert len(systems) >= 12
    assert len(rows) >= least
    assert not systems & (set(SYSTEMS) | {row.system for row in earlier})
    for row in rows:
        assert row.source, row.name
        assert row.meaning, row.name
        if row.device is not None:  # every model it names is in the catalog
            assert peer_names._expected_models(row) is not None, row.device
        digest = hashlib.sha256(f"{row.system}\t{row.name}".encode()).digest()
        assert (digest[0] % 3 == 0) == (row in sealed), row.name


#: Each later fresh corpus's guards: (corpus number, part, right at least, wrong at most).
#: (2026-11-30, eighth stop: in a list of several kinds, a name that starts with a processor's
#: word set apart before the model and states no count, "gpu_h200", may be a partition or host
#: of several devices and is refused: 11 silently wrong readings fewer, 10 of them counts, in
#: the eleventh, twenty-eighth, twenty-ninth, thirty-sixth and thirty-seventh corpora, and 24
#: right readings fewer, device types written so, in the second, fifth, eighth, fifteenth,
#: twenty-third and thirty-first: their guards were lowered by those rows, no more.)
GUARDS = [
    # measured with df6784d's reader plus the fixes after fresh3's one run (counts, TPU)
    # (docs in tests/peer_names/README.md): regression guards, not issue 32's goals
    # (since 2026-11-29 each name is read as its file's '# denotes:' says: a node's name
    # that states no count is refused, so 1-GPU nodes that read right by chance are
    # refusals now, and the count misses of boards and nodes are gone; every figure below
    # is that reading's)
    # (raised by catalog 2026.11.11's cards and 2026.11.12's open names, and by 2026.11.14's
    # 2026.11.15's and 2026.11.16's cards, whose rows were relabelled from '-' after the runs)
    # (a numbered instance size now leaves the count to the spec: 4 rows right by chance
    # before, such as Lepton's gpu.a10.6xlarge, and 2 wrong, Saturn Cloud's V100-8XLarge)
    # (raised 2026-11-29 by the nineteenth and twentieth runs' fixes: a Mac runner's one chip,
    # a Jetson developer kit's module, a CUDA or OS version; none lowered)
    # (lowered 2026-11-29 where a 'mixed' file's product of several devices that states no
    # count is refused, since denotes='mixed' reads so: 17 rows whose system meant one of its
    # devices were right by that guess, 11 whose system meant the board were wrong counts)
    # (raised 2026-11-29 where a model's own name is an open name, P100 or GTX-1060, and reads
    # as the family: 12 wrong rows right, 2 refused, none lowered)
    # (raised 2026-11-30 by catalog 2026.11.44: a bare 910B (no Ascend, no bin) reads as the
    # open name of the 910B and the 910B4, and a 910B bin's own word (910B3) as that bin;
    # Volcano's 910C, labelled '-' before the catalog carried it, relabelled ASCEND-910C)
    # (raised 2026-12-01: a device's own name pins the board its convention implies only
    # written as the device writes it; "NVidia H200", "nvidia_H200" or "4x NVIDIA H200" read
    # as the H200 family, as their words do: 8 wrong rows right, none lowered)
    # (2026-11-30, fifth stop: Compute Engine's "machine:accelerator:count" shapes read, +11
    # right, and one wrong by its label: Brev's n1-highmem-8:nvidia-tesla-v100:8 is GKE's 16 GB
    # V100, labelled either V100)
    (2, "", 444, 4),
    (2, "-sealed", 243, 4),
    (3, "", 292, 2),
    (3, "-sealed", 139, 2),
    # the fourth corpus's one run, with the reader frozen at f560e4d, was 200/41 and
    # 87/23 (its unseen figures); these are after the fixes that run found and the vGPU
    # reading (a DGX system and a rack's NVL domain now leave the count to the spec: 5
    # rows right before, such as OpenPAI's DGX1-V100, one V100 of a DGX-1)
    (4, "", 334, 6),
    # (catalog 2026.11.42: a TPU7x slice size counts TensorCores, so PyTorch's runner
    # "linux.google.tpuv7x.4", whose .4 counts chips, is refused, no longer read as 4 chips)
    (4, "-sealed", 142, 5),
    # the fifth corpus's one run, with the reader frozen at 75c71e8, was 282/30 and
    # 145/13 (its unseen figures); these are after the fixes that run found and the
    # M60 and A16 vGPU rows relabelled to the sixth brief's count (a share of one GPU)
    # (catalog 2026.11.40's M3 Max and M4 Max: Spheron's CPU types m3-max and m4-max, labelled
    # refuse, now read as those chips, as its other Apple CPU types m1-max...m4-pro already did)
    (5, "", 316, 11),
    (5, "-sealed", 160, 7),
    # the sixth corpus's one run, with the reader frozen at 4a5729b, was 253/5 and 126/2
    # (its unseen figures); these are after the fixes that run found and the prose counts
    # and TPU topology reading of the seventh corpus's stop
    (6, "", 317, 2),
    (6, "-sealed", 148, 2),
    # the seventh corpus's one run, with the reader's code frozen at d4b0471 and catalog
    # 2026.11.15, was 116/6 and 48/2 (its unseen figures); these are after the fixes that
    # run found and three Inferless rows' counts relabelled to the brief's rule
    (7, "", 136, 2),
    (7, "-sealed", 58, 1),
    # the eighth corpus's one run, with the reader's code frozen at 59dba07 and catalog
    # 2026.11.16, was 174/8 and 69/5 (its unseen figures); these are after the fixes that
    # run found (an AMD board's "4c" and a "series" word are refused) and three InvokeAI
    # rows relabelled for 2026.11.16's GTX 1650 SUPER and 1630 (one right row became wrong)
    (8, "", 197, 4),
    (8, "-sealed", 84, 0),
    # (raised on 2026-11-29 by consumer card numbers with a variant or a platform word,
    # series words, GeForce and Radeon generations and the MI200, MI300, TITAN X and RX Vega
    # open names, by five vGPU counts relabelled to their source's max per GPU, and by
    # catalog 2026.11.29's cards, whose rows were relabelled from '-'; four rows read right
    # by the name and wrong by their system's context: Nosana's "Market
    # 3060" holds the 3060 Ti, llama.cpp's "RTX 40 Series" is its laptop row, Modular's
    # "Radeon 9070" has the XT's 64 CUs, ComfyUI's "titan x" is a substring test)
    # the ninth corpus's one run, with the reader's code and catalog 2026.11.29 frozen at
    # e38f83f, was 271/12 and 124/6 (its unseen figures); these are after the fixes that
    # run found (the count words "quad" and "octa", "mtp" a serving word, "VRAM" prose,
    # a cloud flavor's vCPU x GB shape beside a stated count)
    # (catalog 2026.11.30 adds Apple's chips: Spheron's twelve CPU types "m1" ... "m4-pro",
    # rows labelled 'refuse' because the system's field is the CPU, now read as the chip's
    # GPU: wrong by the system's context, and the fifth corpus's guards allow them)
    (9, "", 330, 4),
    # (2026-11-30, eighth stop: "RTX 6000 PRO" with PRO after the number reads, +9 right in
    # five corpora, and InferenceMAX's runner "rtx6000pro", a node of 8 in a file that says
    # 'mixed', reads as one card, as its "mi325x" and "b300" do: one more wrong by context)
    (9, "-sealed", 150, 2),
    # the tenth corpus's one run, with the reader's code and catalog 2026.11.30 frozen at
    # 892e360, was 212/9 and 105/6 (its unseen figures); these are after the fixes that
    # run found (a bracketed "(Mobile)" is not dropped, a B-series vGPU profile is small)
    (10, "", 246, 2),
    (10, "-sealed", 113, 0),
    # the eleventh corpus's one run, with the reader's code and catalog 2026.11.32 frozen at
    # 1cb080e, was 207/11 and 108/8 (its unseen figures); these are after the fixes that run
    # found (a bracketed count is read, x8x8 refused, a board's memory is the board, a core
    # partition is no host figure, GPU_SKU: and gpumodel: keys, '*' and fraction counts)
    (11, "", 267, 4),
    (11, "-sealed", 142, 0),
    # the twelfth corpus's one run, with the reader's code and catalog 2026.11.32 frozen at
    # fe719bd, was 203/13 and 120/6 (its unseen figures); these are after the fixes that run
    # found (a bracketed "8x" is read, a DGX's number is no count, server makers' option
    # words, a board's power)
    (12, "", 265, 8),
    (12, "-sealed", 152, 2),
    # the thirteenth corpus's one run, with the reader's code and catalog 2026.11.32 frozen
    # at 9fd24d2, was 202/4 and 90/8 (its unseen figures); these are after the fixes that
    # run found (a MIG slice with no profile and a GeForce "vGPU" are refused, Cloud AI 100
    # is its three cards, board partners' retail names)
    (13, "", 252, 1),
    (13, "-sealed", 116, 1),
    # the fourteenth corpus's one run, with the reader's code and catalog 2026.11.32 frozen
    # at 241d0a7, was 178/13 and 96/5 (its unseen figures); these are after the fix that run
    # found (a memory or vendor request with no count is refused read as a node's)
    (14, "", 200, 0),
    (14, "-sealed", 103, 1),
    # the fifteenth corpus's one run, with the reader's code and catalog 2026.11.34 frozen
    # at 060e6e3, was 201/1 and 97/4 (its unseen figures); these are after the fixes that
    # run found (a PCIe link's x16 and Apple's GPU cores are no count; partners' words)
    (15, "", 209, 0),
    (15, "-sealed", 107, 0),
    # the sixteenth corpus's one run, with the reader's code and catalog 2026.11.34 frozen
    # at 1fcbfb4, was 122/3 and 67/1 (its unseen figures); these are after the fix that run
    # found (the words "A100 PCIe" leave the card's size open; only the constant's
    # identifier A100_PCIE pins the 40 GB one; Intel's "Max Series" and "Flex Series")
    (16, "", 127, 2),
    (16, "-sealed", 68, 1),
    # the seventeenth corpus's one run, with the reader's code and catalog 2026.11.36 frozen
    # at 6523b41, was 161/7 and 81/2 (its unseen figures); these are after the fixes that
    # run found (an "sm75" compute capability is checked against the model, "x86" is no
    # count, no Tesla board is a Quadro card, TPU v7x, "HBM" is any HBM; Accel-Sim's
    # "SM6_GTX1080" reads as the GTX 1080 its name says, while its row is the 1080 Ti)
    (17, "", 172, 3),
    (17, "-sealed", 84, 2),
    # the eighteenth corpus's one run, with the reader's code and catalog 2026.11.37 frozen
    # at 425eb45, was 100/4 and 69/3 (its unseen figures); these are after the fixes that
    # run found (a Jetson's "(8 GB ram)" is its memory, not set aside; a catalog "HBM" of
    # no generation takes any; the B200's 192 GB)
    (18, "", 128, 0),
    (18, "-sealed", 78, 1),
    # the nineteenth corpus's one run, with the reader's code and catalog 2026.11.38 frozen
    # at 41ad486, was 126/5 and 79/3 (its unseen figures); these are after the fixes that
    # run found (x64 after the OS is no count; software versions and CI job words are noise;
    # a node of Apple chips, Jetson modules or a GB10 holds one, the catalog's per_machine)
    (19, "", 148, 2),
    (19, "-sealed", 95, 1),
    # the twentieth corpus's one run, with the reader's code and catalog 2026.11.39 frozen
    # at c18c6bd, was 166/0 and 80/0 (its unseen figures); these are after the fixes that
    # run found (MIG profiles with underscores, an OS with its version, APUs)
    (20, "", 172, 0),
    (20, "-sealed", 82, 0),
    # the twenty-first corpus's one run, with the reader's code and catalog 2026.11.41 frozen
    # at f1016e1, was 199/6 and 88/1 (its unseen figures); these are after the fix that run
    # found (a board's ECC setting is no word of the model) and two rows the collector had
    # labelled '-' for cards its catalog list carried (the TITAN V, the GTX TITAN X)
    (21, "", 207, 5),  # (raised: a count before a '/' choice, MAGI-1's "H100/H800 x 8")
    (21, "-sealed", 89, 0),
    # the twenty-second corpus's one run, with the reader's code and catalog 2026.11.41
    # frozen at 2d342a3, was 120/4 and 48/2 (its unseen figures); these are after the fix
    # that run found (a laptop word beside a desktop card's name is a variant, refused)
    (22, "", 123, 2),
    (22, "-sealed", 50, 1),
    # the twenty-third corpus's one run, with the reader's code and catalog 2026.11.41 frozen
    # at b6505f2, was 150/8 and 84/6 (its unseen figures); these are after the benchmark reads
    # a row's SKUs of one model as that model (5 rows), 8 rows relabelled by their collectors'
    # own notes (board counts the brief's rule forced on device names, an M1 Pro labelled '-',
    # an Azure size the instance table reads) and the fixes that run found (a count glued
    # before a card's number, "3x3090"; a PCIe slot's generation glued to the word, "PCIe5")
    # (2026-12-01: a count after the model and its size, xpk's "a100-40gb-8", reads)
    (23, "", 162, 1),
    (23, "-sealed", 97, 0),
    # the twenty-fourth corpus's one run, with the reader's code and catalog 2026.11.41 frozen
    # at c68d7bf, was 121/6 and 53/2 (its unseen figures); these are after the fixes that run
    # found (catalog 2026.11.42: a TPU7x slice size counts TensorCores, two per chip; a count
    # before a '/' choice, "4x H100/H200")
    # (2026-11-30, fifth stop: LLMCompass's TPUv3_8 refused, one right fewer, with the
    # thirty-third's silently wrong count TPUv4_4096: a TPU generation glued to 'TPU' leaves
    # the size's unit unclear)
    (24, "", 143, 3),
    (24, "-sealed", 66, 0),
    # the twenty-fifth corpus's one run, with the reader's code and catalog 2026.11.42 frozen
    # at f079f38, was 107/5 and 68/3 (its unseen figures); nothing was fixed after it
    (25, "", 111, 4),
    (25, "-sealed", 69, 3),
    # the twenty-sixth corpus's one run, with the reader frozen at 00fd7cc (nothing fixed
    # after it): 106/159 right and 2 wrong, 61/89 and 1 (its unseen figures); raised
    # 2026-11-30 by a cloud region read as where the machine runs ("EP US-East-1 8xA100")
    # (2026-12-01: Trainium3 joined the catalog, "trn3"; a MIG profile alone that one
    # family's models have reads as that family, and the node-exporter capture's "2g.35gb",
    # which its row refuses as naming no model, reads as the H200's: labels disagree, as
    # TrueFoundry's "3g.71gb" and GKE's "1g.35gb" are labelled the H200)
    (26, "", 114, 2),
    (26, "-sealed", 61, 2),
    # the twenty-seventh corpus's one run, with the reader and catalog frozen at c90633e:
    # 80/143 right and 1 wrong, 37/60 and 1 (its unseen figures); raised 2026-11-30 by the
    # fixes its visible part taught (host figures after commas, an OS release, Tenstorrent's
    # architecture words, a kernel driver, catalog 2026.11.43's CANN SoC names), which also
    # raised the second, fourth, sixth, tenth, thirteenth, fourteenth and eighteenth guards
    # (six rows of the fourth and sixth relabelled from '-'), and by an ML model's size in a
    # recipe's name (llama3_8b_...), which raised the nineteenth and twenty-fourth; the
    # fourteenth lowered by one after the twenty-eighth's run: xDiT's "Nvidia H20 Cluster
    # (8xNVLink)" gives a count in a cluster's name, which is refused (per machine or in all?)
    (27, "", 98, 1),
    (27, "-sealed", 43, 1),
    # the twenty-eighth corpus's one run, with the reader and catalog frozen at 1e8e4f6:
    # 182/340 right and 12 wrong, 86/161 and 9 (its unseen figures); lowered after it where a
    # count may be of racks, systems or machines (39x ... NVL72, 1024x NVIDIA HGX H100,
    # 32XE8545-4xA100, dgxb200x8.n56, a cluster's 8xB200) or a trailing number follows a bare
    # CPU word (cpu_a100_2): 8 and 1 wrong rows refused, none right lost; raised by Slurm's
    # GPU options read as their GRES (--gres=gpu:a100:1): 8 and 4 more right; and by "(R)"
    # read as the registered sign and a count of one-GPU cards (GPU-h20-4Cards): 1 and 2
    (28, "", 193, 3),
    (28, "-sealed", 93, 6),
    # the twenty-ninth corpus's one run, with the reader and catalog frozen at fd6cc2d:
    # 225/357 right and 9 wrong, 88/161 and 4 (its unseen figures); after it, an AMD chip's
    # code name is refused (Wine's CARD_AMD_RADEON_RX_VEGA_10 read as 10 Vega boards), and
    # (2026-11-30) Dortania's "GTX Titan X (GP 102-400 Pascal core)", once the Maxwell card
    (29, "", 232, 7),
    (29, "-sealed", 92, 2),
    # the thirtieth corpus's one run, with the reader and catalog frozen at 731564d: 184/301
    # right and 3 wrong, 100/154 and 4 (its unseen figures)
    (30, "", 194, 0),
    (30, "-sealed", 105, 1),
    # the thirty-first corpus's one run, with the reader and catalog frozen at 0f25dbb:
    # 260/477 right and 5 wrong, 105/204 and 2 (its unseen figures)
    (31, "", 281, 2),
    (31, "-sealed", 110, 2),
    # the thirty-second corpus's one run, with the reader and catalog frozen at b239722:
    # 174/346 right and 14 wrong, 99/195 and 3 (its unseen figures); after it, 'rtx' beside a
    # pre-Turing card and 'DRIVE' are refused, RTX 4000 SFF and MI325 read, a config file's
    # extension is set aside, and a bracketed architecture is kept (GTX TITAN X (Pascal)); seven
    # of the visible part's wrong rows are Azure sizes read from the instance table that the
    # corpus rule labels by the name alone
    # (2026-12-01: a Compute Engine machine type's vCPUs before the device are no count, and
    # Conductor's "n1-standard-4-t4-1" reads as its one T4)
    (32, "", 205, 12),
    (32, "-sealed", 112, 3),
    # the thirty-third corpus's one run, with the reader and catalog frozen at 4897e6a:
    # 117/217 right and 2 wrong, 59/103 and 0 (its unseen figures)
    (33, "", 131, 1),
    (33, "-sealed", 63, 0),
    # the thirty-fourth corpus's one run, with the reader and catalog frozen at 23db98b:
    # 112/225 right and 3 wrong, 57/116 and 0 (its unseen figures)
    (34, "", 151, 3),
    (34, "-sealed", 73, 0),
    # the thirty-fifth corpus's one run, with the reader and catalog frozen at 5426153:
    # 143/269 right and 7 wrong, 59/116 and 4 (its unseen figures); its silently wrong counts
    # fixed after the run (a bracketed "(8-GPU)", TPU multislices, the HGX-B200 alias)
    (35, "", 176, 2),
    (35, "-sealed", 79, 1),
    # the thirty-sixth corpus's one run, with the reader and catalog frozen at a21488f:
    # 206/288 right and 10 wrong, 100/138 and 7 (its unseen figures); since then its benchmark
    # hosts' memory read as counts is refused, a Server Edition's '-' label corrected, and a
    # reseller's "V100/S" is read as a V100 or a V100S (not a V100S alone)
    (36, "", 208, 4),
    (36, "-sealed", 100, 4),
    # the thirty-seventh corpus's one run, with the reader and catalog frozen at b1ebbe4:
    # 106/200 right and 9 wrong, 54/100 and 2 (its unseen figures); since then a number of
    # nodes beside the count ("4n_4gpu") is refused, and so are hosts named by a processor's
    # word, the GPU and a host's number in a 'mixed' file ("gpu-a40-1"); a generation and
    # number ("ADA6000"), a node's GRES ("gpu:l4:8(S:0-1)") and a dated results folder
    # ("Nvidia_P4_052019") read
    (37, "", 110, 2),
    (37, "-sealed", 57, 2),
    # the thirty-eighth corpus's one run, with the reader and catalog frozen at e0fb1f6:
    # 121/286 right and 3 wrong, 54/139 and 2 (its unseen figures); since then a bare "RTX
    # 6000" may be the RTX PRO 6000 (UBELIX's "8x NVIDIA RTX6000" of 96 GB), and a node's GRES
    # as sinfo prints it reads ("gpu:h200:8(S:0-1)"), and so do two counts before the model
    # ("16x8xH800": their product)
    (38, "", 127, 1),
    (38, "-sealed", 57, 2),
    # the thirty-ninth corpus's one run, with the reader and catalog frozen at b28447d:
    # 55/108 right and 4 wrong, 22/52 and 4 (its unseen figures); since then PBS's select=
    # requests and an SDK's atoms (":h100_sxm") read
    (39, "", 68, 4),
    (39, "-sealed", 33, 2),
    # the fortieth corpus's one run, with the reader and catalog frozen at 0af5002: 117/250
    # right and 7 wrong, 43/110 and 6 (its unseen figures); since then a prose count confirmed
    # by a plural device word ("384 A100 40GB GPUs") and an AMD chip's code name beside its
    # model ("SIFT_CHIPID_NAVI21_W6800") read
    (40, "", 133, 7),
    (40, "-sealed", 54, 6),
    # the forty-first corpus's one run, with the reader and catalog frozen at bd3452d: 74/152
    # right and 7 wrong, 35/87 and 9 (its unseen figures)
    (41, "", 74, 7),
    (41, "-sealed", 35, 9),
    # the forty-second corpus's one run, with the reader and catalog 2026.12.1 frozen at
    # ed284a8: 96/246 right and 8 wrong, 45/95 and 3 (its unseen figures); since then a count
    # after the model and its size ("a100-80gb-2") and a MIG profile alone that one family's
    # models have ("1g.35gb") read, and a bare number in brackets before a count
    # ("warboy(1)*2") refuses the name
    (42, "", 101, 6),
    (42, "-sealed", 48, 3),
    # the forty-third corpus's one run, with the reader and catalog 2026.12.1 frozen at
    # 4ac5d85: 44/144 right and 2 wrong, 30/88 and 3 (its unseen figures); since then a TPU
    # pod or slice word with no size is refused outside a device list ("TPU v5e pod": 256
    # chips, never one), a DGX Station counts its 4 A100s or one GB300, and a Compute Engine
    # machine type's vCPUs are no count ("n1-standard-4-t4": two sealed rows read 4 T4s)
    (43, "", 45, 0),
    (43, "-sealed", 31, 1),
    # the forty-fourth corpus's one run, with the reader and catalog 2026.12.1 frozen at
    # c78a0f5: 234/292 right and 7 wrong, 96/124 and 1 (its unseen figures; without the names
    # an earlier corpus has, 84/117 and 3, 27/42 and 1); since then a MIG suffix after a
    # model keeps open what its profile does not tell ("H100 MIG 4g.40gb": SXM or PCIe),
    # ModelZ's count before its host figures is read, and XSM is SXM
    (44, "", 242, 5),
    (44, "-sealed", 97, 0),
    # the forty-fifth corpus's one run, with the reader and catalog 2026.12.2 frozen at
    # 7f72048 (names an earlier corpus has dropped before its split): 89/346 right and 4
    # wrong, 41/147 and 3 (its unseen figures); since then a rate after its number (an LLM
    # calculator's "B200 FP4 Dense (18 PFLOPS)") is the device's figure
    (45, "", 129, 4),
    (45, "-sealed", 52, 3),
]


def test_the_benchmark_reads_every_fresh_corpus_on_disk() -> None:
    on_disk = {p for p in peer_names.CORPORA.glob("fresh*/*") if p.is_dir()}
    listed = {part for pair in peer_names._FRESH_PARTS for part in pair}
    assert listed == on_disk  # a corpus folder no number reaches would go unread
    assert all(rows for pair in IN_ORDER for rows in pair)


def test_every_later_fresh_corpus_part_has_a_guard() -> None:
    parts = [(number, part) for number, part, *_ in GUARDS]
    assert parts == [(n, p) for n in range(2, len(IN_ORDER) + 1) for p in ("", "-sealed")]


@pytest.mark.parametrize(
    ("number", "part", "right", "wrong"), GUARDS, ids=[f"fresh{g[0]}{g[1]}" for g in GUARDS]
)
def test_later_fresh_corpora_do_not_regress(number: int, part: str, right: int, wrong: int) -> None:
    rows = IN_ORDER[number - 1][part == "-sealed"]
    headline = peer_names.headline([peer_names.evaluate(row) for row in rows])
    assert headline["right"] >= right
    assert headline["wrong"] <= wrong


def test_a_count_the_name_states_is_never_dropped_in_the_later_corpora() -> None:
    # The count misses left are names that state no count, read as one device because their
    # file's '# denotes:' is 'mixed' while the name is a node's, or 'device' while their
    # system means a part of a device (read with denotes='node' or 'board' they are refused
    # or counted): Friendli's vm-config codes, Novita's "B200 SXM" instance, InferenceMAX's
    # runner names, Yale's partitions. The node and partition names of TACC, NHR@ZIB, PSI,
    # SURF, UD, DFKI, CSCS, NCAR and SF Compute that read 1 before are refused since their
    # files say 'node'; TOP500's K80 boards count their GPUs ('board'); since denotes='mixed'
    # refuses a product of several devices that states no count, Nscale's MI250, Outscale's
    # M60, Tenstorrent's n300, ML Engineering's MI250X, Qualcomm's AI 100 Ultra, MIT LL's MI250
    # and Flex 140 and Boavizta's K520 and M60 are refused, not read as one device.
    # (2026-11-30: ten rows whose labels and '# denotes:' line disagreed were made to agree by
    # the brief's count rule, and now read right: Armada's resource name nvidia.com/a100 and the
    # compile targets of Modular, CP2K and IREE count one device; the hardware tables of
    # LLM-Inference-Bench, llm-d and Unified.to count boards, so their MI250s count 2)
    implied = {"aws-a100", "azure-v100", "B200 SXM"}
    implied |= {"mi325x", "gb200", "gb300", "b300", "rtx6000pro"}
    # (Yale's partitions "gpu_b200", "gpu_h200" and "gpu_rtx6000" are refused since
    # 2026-11-30's eighth stop: in a file that says 'mixed', a processor's word set apart
    # before the model may start a partition's or host's name; the same rule refuses the
    # partitions of UW Hyak, HKUST and NTU and a contest cluster's below)
    # the twelfth: Levanter's per-core TPU v3 and Trainium keys, which its rows count as half
    # a chip
    implied |= {"trn1", "tpu v3"}
    # the thirteenth: a GB200 superchip its row counts as its two B200 dies (the catalog's
    # GB200 is one device), in a file that says 'mixed'
    implied |= {"GB200-Superchip"}
    # the twenty-first: Spatter's environment file name for an IBM POWER9 node with two V100s,
    # in a file that says 'mixed'
    implied |= {"nvidiav100"}
    # the twenty-fourth: LLMCompass's system config named "AMD MI210", which holds four, in a
    # file that says 'mixed' (the MI210 is one device a board)
    implied |= {"AMD MI210"}
    # the twenty-sixth: Telegraf's test capture named for an A100 SXM4, which holds four GPUs,
    # in a file that says 'mixed'
    implied |= {"a100-sxm4-v12"}
    # the twenty-eighth: NYU's spec-sheet node types, named as one GPU in a file that says
    # 'mixed' (UW Hyak's partitions "gpu-2080ti" and "gpu-l40" are refused since the eighth
    # stop; its MLPerf names whose count was of racks, HGX boards,
    # DGX nodes or servers, and NYU's "cpu_a100_2", are refused since that run, and so, since
    # 2026-11-30, is its system of 64 Azure VMs, "ND_H200_v5 x64", once read as 64 GPUs)
    implied |= {"L40S GPU", "H100 GPU", "H200 GPU", "RTX Pro 6000 GPU"}
    # (the twenty-ninth's, HKUST's partitions "gpu-l20" and "gpu-rtx4090d" of 4-GPU nodes, are
    # refused since the eighth stop)
    # the thirty-first: NREC's vGPU host role of four GPUs, named by the GPU, in a file that
    # says 'mixed' (Lambda's benchmark folder for a Threadripper 3970X with a Radeon Pro VII,
    # whose CPU model was read as 3970 boards, is refused since that run, and so, since
    # 2026-11-30's second stop, are NREC's compute-host roles compute-l40s and compute-h200:
    # a leading 'compute' names a compute node)
    implied |= {"vgpul40s"}
    # the thirty-sixth: a Kubernetes contest cluster's time-sliced shares, whose size is its
    # device plugin's config (the name says "shared", not how many share a GPU: a shared slot
    # of no stated size), and TokenSim's "GB300-NVL72", a rack's name its simulator resolves to
    # one GPU's spec, in a file that says 'mixed'
    # ("gpu-a800-shared" and "gpu-l40-shared" are refused since the eighth stop)
    implied |= {"a100-80gb-shared", "v100-32gb-shared", "v100-16gb-shared"}
    implied |= {"l40-shared", "GB300-NVL72"}
    # (h2oGPT's benchmark hosts, named by the memory the driver reports and the GPU, "24-RTX
    # 3090", read as 24 cards by the number right before the model, are refused since that
    # run: a number before the model that is a size of it, or past 8 and no multiple of 4)
    # the thirty-seventh: NeMo RL's nightly file for GB200 nodes of 4, in a file that says
    # 'mixed' (a Singapore school's host named by the GPU alone, "gpu-6000ada", is refused
    # since the eighth stop; its training config for 4
    # nodes of 4 GB300s, "..._4n_4gpu.gb300...", read as 4, is refused since that run: a number
    # of nodes beside the count may make it each node's; and since 2026-11-30's eighth stop so
    # are the school's hosts named by the GPU and a host's index, "gpu-a40-1", a host of ten
    # A40s, once read as one A40 by its trailing number beside a device word, as a cloud's
    # "GPU-L40S-1" is one L40S: in a list of several kinds only a host figure makes it a count)
    implied |= {"nightly_gb200.txt"}
    # the thirty-ninth: Joulie's node classes named by the GPU ("nvidia-h100-sxm" of 4,
    # "amd-w7900" of 4) in a file that says 'mixed', and Purdue's MIG resource name
    # "nvidia_com_mig_1g_5gb", which its row counts as a seventh of the A100 (the slice's
    # share) where the reader counts one 1g.5gb slice
    implied |= {"nvidia-h100-sxm", "amd-w7900", "nvidia_com_mig_1g_5gb"}
    # the fortieth: libdrm's names for one GPU of AMD's dual-GPU MI25x2 board, in a file that
    # says 'device' (the "x2" of AMD's dual boards, as "S9300 x2", is the product's name there;
    # glued after a model it counts two, as Hugging Face's "h200x2" does)
    implied |= {"AMD Radeon Instinct MI25x2", "AMD Radeon Instinct MI25x2 MxGPU"}
    # the forty-first: a network simulator's server blueprints, whose GPU descriptions ("AMD
    # INSTINCT MI300X 192GB 750W OAM", "NVIDIA A100 SXM4", "IRONWOOD", "Grace Hopper
    # Superchip") its rows count by the blueprint's xpu count, in a file that says 'mixed'
    implied |= {"AMD INSTINCT MI300X 192GB 750W OAM", "NVIDIA A100 SXM4", "IRONWOOD"}
    implied |= {"Intel Gaudi3 128GB 900W OAM", "AMD INSTINCT MI300X OAM", "Ironwood TPU"}
    implied |= {"Grace Hopper Superchip", "AMD MI300X OAM", "AMD MI350X OAM"}
    # the forty-second: a kernel-spec table whose rack ids are one GPU's record ("gb300-nvl72",
    # as TokenSim's) and whose "amd-mi325x-platform" its server file counts 8; Furiosa's
    # selectors "warboy*2" and "warboy*12", which its docs count in single cores (half a
    # Warboy each); Cluster Toolkit's "tpu7x-32", which counts chips where Google's TPU names
    # count TensorCores (its "v5p-4" is 4 chips; Cloud TPU's v5p-8 is 4)
    implied |= {"gb300-nvl72", "amd-mi325x-platform", "warboy*2", "warboy*12", "tpu7x-32"}
    # (the thirty-third's one, an ML-systems simulator's TPUv4_4096, a pod of 4096 chips read by
    # Google's TensorCore slice names as 2048, is refused since that stop: a generation glued
    # to 'TPU' is no Google name, so its size's unit is unclear; LLMCompass's TPUv3_8, right by
    # Google's units, is refused with it)
    # (the thirtieth's two, BMRC's OpenStack flavours for a whole node of three V100s named by
    # the GPU and 'full', are refused since that run: 'full' ends the name as a machine's size)
    missed = set()
    for row in [row for visible, sealed in IN_ORDER[1:] for row in visible + sealed]:
        outcome = peer_names.evaluate(row)
        if "has count" in outcome.detail:
            assert row.name in implied, outcome.detail
            missed.add(row.name)
    assert missed == implied  # a name read right now leaves the list


def test_a_family_reading_is_right_when_it_holds_every_model_the_row_names() -> None:
    from accelerators import AcceleratorSpec

    family = AcceleratorSpec.parse("H100")
    assert str(family) == "H100-SXM | H100-PCIE | H100-NVL"
    assert peer_names._family_reading(family, ["H100-SXM"])
    assert peer_names._family_reading(family, ["H100-SXM", "H100-PCIE"])  # claims less
    assert not peer_names._family_reading(family, ["H100-SXM", "A100-80GB"])
    assert not peer_names._family_reading(AcceleratorSpec.parse("H100-SXM | T4"), ["H100-SXM"])
    one = AcceleratorSpec.parse("H100-SXM")
    assert not peer_names._family_reading(one, ["H100-SXM", "H100-PCIE"])
    # a choice of several families (dstack's H100,MI300X): each family holds what the row names
    choice = AcceleratorSpec.parse("H100 | MI300X")
    assert peer_names._family_reading(choice, ["H100-SXM", "MI300X"])
    assert not peer_names._family_reading(choice, ["H100-SXM", "MI325X"])
    assert not peer_names._family_reading(choice, ["H100-SXM"])
    # an open name's models are a family too, though the catalog files them apart
    opened = AcceleratorSpec.parse("RTX 6000")
    assert peer_names._family_reading(opened, ["QUADRO-RTX-6000"])
    assert not peer_names._family_reading(AcceleratorSpec.parse("T4 | L4"), ["T4"])

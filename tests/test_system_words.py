"""A system's own words around the model, set aside only where its names are one device each
(``accelerators.catalog._system_words``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelerators import AcceleratorSpec
from accelerators.errors import AcceleratorError, CountNotStatedError, UnknownAcceleratorError

#: Names whose other words are a workload, a build, a stage or a site's: one device each.
SET_ASIDE = [
    ("A100-80GB_solver_wombat", "A100-80GB", ["solver", "wombat"]),
    ("h100-sxm-sandbox", "H100-SXM!", ["sandbox"]),
    ("mi300x_autotune_results", "MI300X", ["autotune"]),
    ("ClusterKoalaH100Sxm", "H100-SXM!", ["Koala"]),  # a case change sets it apart
    ("H100 wombat", "H100-SXM | H100-PCIE | H100-NVL", ["wombat"]),  # the family, as before
    # a variant letter set apart ("rtx_4090_d" is the RTX 4090 D) does not run on into a word
    ("rtx_4090_dtype", "RTX-4090", ["dtype"]),
]


@pytest.mark.parametrize(("name", "spec", "words"), SET_ASIDE, ids=[r[0] for r in SET_ASIDE])
def test_a_systems_word_is_set_aside_where_names_are_devices(
    name: str, spec: str, words: list[str]
) -> None:
    assert str(AcceleratorSpec.parse(name)) == spec
    assert str(AcceleratorSpec.parse(name, denotes="board")) == spec
    tokens = AcceleratorSpec.explain(name).names[0].tokens
    roles = {t.text: (t.role, t.meaning) for t in tokens}
    for word in words:
        assert roles[word] == (
            "system word",
            "the system's own word (its names are one device each)",
        )


@pytest.mark.parametrize("name", [r[0] for r in SET_ASIDE])
def test_where_names_may_be_nodes_the_word_may_hide_a_count(name: str) -> None:
    # read as devices first: the memo of readings must not carry that reading over
    AcceleratorSpec.parse(name)
    with pytest.raises(UnknownAcceleratorError, match="is not a word it can place"):
        AcceleratorSpec.parse(name, denotes="mixed")
    with pytest.raises((UnknownAcceleratorError, CountNotStatedError)):
        AcceleratorSpec.parse(name, denotes="node")
    # and back: the device reading is unchanged by the refusals in between
    assert AcceleratorSpec.parse(name) == AcceleratorSpec.parse(name, denotes="device")


def test_the_refusal_says_how_the_word_would_read_where_names_are_devices() -> None:
    with pytest.raises(UnknownAcceleratorError) as refused:
        AcceleratorSpec.parse("A100-80GB_solver_wombat", denotes="mixed")
    message = str(refused.value).splitlines()[0]
    assert "'solver' is not a word it can place: where names may be nodes" in message
    assert "denotes='device'" in message
    assert message.count("where names may be nodes") == 1  # said once, for both words
    assert "; nor 'wombat'" in message


def test_a_stated_count_still_counts_beside_a_systems_word() -> None:
    spec = AcceleratorSpec.parse("8x_h100_sxm_nightly")
    assert (spec.accelerator.model, spec.count) == ("H100-SXM", 8)
    node = AcceleratorSpec.parse("8x_h100_sxm_nightly", denotes="node")
    assert node.count == 8


REFUSED = [
    # a variant or another product: another device than the model alone
    ("NvidiaL40sKoala", "'koala' follows the model"),  # glued right after it: a variant?
    ("rtx_4090_dac", "'dac' follows the model"),  # no D card and "ac"
    ("L40S Ultra", "'Ultra' could name a variant, another product or several devices"),
    ("A2 embedded", "'embedded' could name a variant"),
    ("jetson-xavier-nx-clara", "'clara' could name a variant, another product"),
    # a word that says there are several devices, whose count the name does not give
    ("h100_sharded_runs", "'sharded' could name a variant, another product or several devices"),
    ("h100-distributed", "'distributed' could name"),
    # a share or a kind of device glued to a device word
    ("t4_egpu_pool", "'egpu' is not a word it can place"),
    # a part number or a chip: digits
    ("RX 580 2048SP", "'2048sp' is not a word it can place"),
    # glued to the model, or too short to tell from a variant letter
    ("xyza100", "Unknown accelerator|not a word it can place"),
    ("A100 qa", "'qa' follows the model|'qa' is not a word"),
    # a typo of a word that says something about the device, with the word it may be
    ("H100 SXMM", r"'sxmm' is not a word it can place \(did you mean 'sxm'"),
    ("A100 nvlnk", "'nvlnk' is not a word it can place"),
    ("A100 Tesal", "did you mean 'tesla'"),
    # (three letters, two swapped: "vnl" for NVL; "xsm" for SXM is a form word since two
    # systems were seen writing it)
    ("h100_vnl_runs", "'vnl' (is not a word it can place|follows the model)"),
    ("h100_runs_vnl", r"'vnl' is not a word it can place \(did you mean 'nvl'"),
    # two known words run together: a name of the system's own (TensorRT-LLM's runners)
    ("b200-trtllm", "'trtllm' is not a word it can place"),
]


@pytest.mark.parametrize(("name", "why"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_word_that_could_change_the_device_is_never_set_aside(name: str, why: str) -> None:
    with pytest.raises(UnknownAcceleratorError, match=why):
        AcceleratorSpec.parse(name)


def test_the_vocabulary_keeps_its_never_set_aside_words_apart() -> None:
    from accelerators.catalog._words import vocabulary

    vocab = vocabulary()
    assert {"ultra", "embedded", "distributed", "clara"} <= vocab.not_system
    assert not vocab.not_system & set(vocab.words)  # a known word is never unknown


def test_a_not_system_word_the_vocabulary_knows_is_a_data_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from accelerators.catalog import _words
    from accelerators.errors import CatalogDataError

    real = _words.load_toml

    def load(package: str, name: str, **kwargs: object) -> dict[str, object]:
        data = dict(real(package, name))
        data["not_system"] = {"variants": ["ultra", "node"]}  # "node" is a platform word
        return data

    monkeypatch.setattr(_words, "load_toml", load)
    _words.vocabulary.cache_clear()
    try:
        with pytest.raises(CatalogDataError, match="'node' is a noise word"):
            _words.vocabulary()
    finally:
        monkeypatch.undo()
        _words.vocabulary.cache_clear()


@settings(max_examples=300, deadline=None)
@given(
    word=st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12),
    before=st.booleans(),
)
def test_any_word_beside_a_model_never_changes_the_device_or_the_count(
    word: str, before: bool
) -> None:
    name = f"{word}_h100_sxm" if before else f"h100_sxm_{word}"
    try:
        spec = AcceleratorSpec.parse(name)
    except AcceleratorError:
        return  # refused, saying why (an unknown word, a size whose count is the system's)
    assert spec.accelerator is not None
    assert spec.accelerator.model == "H100-SXM"
    assert spec.count in (None, 1)

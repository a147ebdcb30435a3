"""No input makes sizing raise anything but AcceleratorError (hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from accelerators.errors import AcceleratorError
from accelerators.sizing import (
    ModelShape,
    cost_of_throughput,
    estimate_cost,
    estimate_memory,
    instances,
    recommend,
)

anything = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=3),
)
names = st.one_of(
    st.sampled_from(
        ["H100-SXM:8", "A100@1g.5gb", "TPU-V5E@2x2:4", "p5.48xlarge", "L4:0.5", "80GB+"]
    ),
    st.text(max_size=16),
)
clouds = st.one_of(
    st.none(), st.sampled_from(["aws", "gcp", "azure", "hf", "AWS "]), st.text(max_size=5)
)
config_keys = st.sampled_from(
    [
        "hidden_size",
        "num_hidden_layers",
        "num_attention_heads",
        "num_key_value_heads",
        "intermediate_size",
        "vocab_size",
        "head_dim",
        "num_parameters",
        "tie_word_embeddings",
        "hidden_act",
        "model_type",
        "text_config",
    ]
)


def _ok_or_ours(call: Any, *args: Any, **kwargs: Any) -> Any:
    """The call's result, or None when it raised one of our errors (any other error fails)."""
    try:
        return call(*args, **kwargs)
    except AcceleratorError:
        return None


@settings(max_examples=100, deadline=None)
@given(config=st.dictionaries(config_keys, anything, max_size=8))
def test_any_config_dict_gives_a_shape_or_a_sizing_error(config: dict[str, Any]) -> None:
    shape = _ok_or_ours(ModelShape.from_hf_config, config)
    if shape is not None:
        assert shape.params > 0
        assert shape.layers is not None


@settings(max_examples=100, deadline=None)
@given(spec=names, cloud=clouds, hours=anything, kind=st.sampled_from(["on-demand", "spot", "x"]))
def test_instances_and_costs_never_raise_foreign_errors(
    spec: str, cloud: str | None, hours: Any, kind: str
) -> None:
    offers = _ok_or_ours(instances, spec, cloud)
    if offers is not None:
        assert all(o.needed > 0 for o in offers)
    cost = _ok_or_ours(estimate_cost, spec, hours, cloud, kind=kind)
    if cost is not None:
        assert cost.usd >= 0
        assert cost.usd_per_hour > 0
    throughput = _ok_or_ours(cost_of_throughput, hours, spec, cloud)
    if throughput is not None:
        assert throughput.usd_per_tflop_hour > 0


@settings(max_examples=20, deadline=None)
@given(
    params=anything,
    method=anything,
    dtype=anything,
    seq_len=anything,
    batch=anything,
    memory=anything,
    vendor=st.one_of(st.none(), st.text(max_size=8)),
)
def test_estimates_and_recommend_never_raise_foreign_errors(
    params: Any, method: Any, dtype: Any, seq_len: Any, batch: Any, memory: Any, vendor: Any
) -> None:
    try:
        shape = ModelShape.like(params)
    except AcceleratorError:
        shape = ModelShape.like(7e9)
    need = _ok_or_ours(
        estimate_memory, shape, method=method, dtype=dtype, seq_len=seq_len, batch=batch
    )
    if need is not None:
        assert need.total_gb > 0
    ranked = _ok_or_ours(recommend, memory_gb=memory, vendors=vendor, top=3)
    if ranked is not None:
        assert all(r.capacity_gb >= r.memory_needed_gb for r in ranked)

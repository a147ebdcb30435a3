"""The examples in the planning modules' docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "accelerators.sizing._flops",
        "accelerators.sizing._throughput",
        "accelerators.sizing._inventory",
        "accelerators.sizing._plan",
    ],
)
def test_docstring_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, module
    assert result.failed == 0, module

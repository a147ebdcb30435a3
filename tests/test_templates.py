"""``accelerators.templates``: the fine-tune templates' one parameter set, light enough to import
in every DAG parse.

What the parameters plan (``plan_finetune``, ``finetune_choice``) is tested in
``tests/sizing/test_finetune_params.py``; that both templates declare them alike, in
``plugins/airflow/tests/test_finetune_parity.py``; the import cost, in
``tests/test_import_budget.py``.
"""

from __future__ import annotations

import inspect
import subprocess
import sys

from accelerators.sizing import plan_finetune
from accelerators.templates import EXAMPLE_MODEL, FINETUNE_PARAMS, TemplateParam, finetune_defaults

#: Python types of the JSON Schema types a parameter declares.
JSON_TYPES = {
    "string": str,
    "object": dict,
    "number": (int, float),
    "null": type(None),
    "array": list,
}


def test_the_parameters_are_plan_finetune_s_in_its_order_with_its_defaults() -> None:
    signature = inspect.signature(plan_finetune).parameters.values()
    positional = [p for p in signature if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert [p.name for p in FINETUNE_PARAMS] == [p.name for p in positional]
    for param, argument in zip(FINETUNE_PARAMS, positional, strict=True):
        if param.name != "clouds":  # [] in a template (a JSON list), None in Python: every cloud
            assert param.default == argument.default, param.name


def test_each_default_is_of_its_declared_types_and_among_its_choices() -> None:
    for param in FINETUNE_PARAMS:
        assert isinstance(param, TemplateParam)
        assert param.types, param.name
        assert isinstance(param.default, tuple(JSON_TYPES[t] for t in param.types)), param.name
        assert param.choices is None or param.default in param.choices, param.name
        assert param.description, param.name
    assert EXAMPLE_MODEL in next(p for p in FINETUNE_PARAMS if p.name == "model_config").description


def test_the_defaults_are_fresh_copies() -> None:
    first, second = finetune_defaults(), finetune_defaults()
    assert first == second == {p.name: p.default for p in FINETUNE_PARAMS}
    first["clouds"].append("aws")
    assert second["clouds"] == []
    assert finetune_defaults()["clouds"] == []


def test_importing_the_templates_loads_no_sizing_and_no_pydantic() -> None:
    code = (
        "import sys, accelerators.templates\n"
        "print(sorted(m for m in sys.modules if m.startswith(('accelerators.sizing', 'pydantic'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"

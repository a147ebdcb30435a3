"""Callable constants in templated fields: Airflow calls a callable field to render it.

``airflow.sdk``'s templater renders a templated field holding a callable by calling it with
``context=`` and ``jinja_env=``. Our constants are callable (``accelerators.H100(count=8)``);
rendered this way they must come back unchanged, as a value that is not callable would.
"""

from __future__ import annotations

from pathlib import Path

import pendulum
from airflow.sdk import DAG

import accelerators
from accelerators_provider import AcceleratorGateOperator


def test_a_constant_in_a_templated_field_renders_as_itself(airflow_db: Path) -> None:
    with DAG(
        dag_id="callable_constant", schedule=None, start_date=pendulum.datetime(2026, 1, 1)
    ) as dag:
        gate = AcceleratorGateOperator(
            task_id="gate",
            accelerator=accelerators.H100,
            expect=accelerators.H100,  # kept as given: a templated field holding a constant
            platform="gke",
            image="registry.example.com/bench:1",
        )
    assert gate.expect is accelerators.H100
    gate.render_template_fields({"params": {}, "dag": dag, "run_id": "manual"})
    assert gate.expect is accelerators.H100
    assert gate.accelerator == "H100-SXM"  # the operator keeps the spec text of its accelerator

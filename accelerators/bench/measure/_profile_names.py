"""The benchmark profiles' names, checked without importing the benchmark.

Airflow parses a DAG file in a fresh process, and a gate task's ``profile="quik"`` should fail
that parse (did you mean ``quick``?) rather than the gate pod minutes later; the profiles
themselves (:mod:`._profiles`, whose budgets import the kernels' tables) cost that parse
~25 ms. This module imports only :mod:`accelerators.errors`.
"""

from __future__ import annotations

from accelerators.errors import AcceleratorError, close_matches

__all__ = ["PROFILE_NAMES", "profile_name"]

#: The names of :data:`~accelerators.bench.PROFILES`, fastest first.
PROFILE_NAMES: tuple[str, ...] = ("quick", "standard", "full")


def profile_name(value: object) -> str:
    """``value`` as a profile name (case and surrounding blanks aside).

    :raises AcceleratorError: not a profile's name; the message lists them and the closest.
    """
    name = str(value).strip().lower()
    if name in PROFILE_NAMES:
        return name
    hints = close_matches(name, PROFILE_NAMES)
    hint = f"; did you mean {hints[0]!r}?" if hints else ""
    raise AcceleratorError(
        f"Unknown benchmark profile {value!r}: expected one of {', '.join(PROFILE_NAMES)}{hint}"
    )

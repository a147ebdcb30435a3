"""The profiles' names, known without importing the benchmark (an Airflow DAG file checks a
gate's ``profile=`` when it is parsed), agree with the profiles and suggest the closest."""

from __future__ import annotations

import subprocess
import sys

import pytest

from accelerators import AcceleratorError, bench


def test_the_names_are_the_profiles() -> None:
    assert tuple(bench.PROFILES) == bench.PROFILE_NAMES
    for name in bench.PROFILE_NAMES:
        assert bench.profile_name(f" {name.upper()} ") == name


@pytest.mark.parametrize(("typo", "meant"), [("quik", "quick"), ("standrad", "standard")])
def test_a_typo_gets_did_you_mean(typo: str, meant: str) -> None:
    with pytest.raises(AcceleratorError, match=f"did you mean '{meant}'"):
        bench.profile_name(typo)
    from accelerators.bench.measure._profiles import get_profile

    with pytest.raises(AcceleratorError, match=f"did you mean '{meant}'"):
        get_profile(typo)


def test_checking_a_name_imports_nothing_of_the_benchmark() -> None:
    code = (
        "import sys\nfrom accelerators.bench import profile_name\nprofile_name('quick')\n"
        "print(sorted(m for m in sys.modules if m.startswith('accelerators.bench')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [
        "['accelerators.bench',",
        "'accelerators.bench.measure',",
        "'accelerators.bench.measure._profile_names']",
    ]

"""Shared pytest configuration for the accelerators test suite."""

from __future__ import annotations

import os

from hypothesis import settings

# ---------------------------------------------------------------------------- hypothesis profiles
# "dev" keeps local runs quick; "ci" searches harder and drops the deadline (CI machines are
# noisy). CI=true (set by CI) selects "ci"; HYPOTHESIS_PROFILE names a profile explicitly, and
# pytest's --hypothesis-profile option overrides both.
settings.register_profile("dev", max_examples=200)
settings.register_profile("ci", max_examples=2000, deadline=None)
_in_ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if _in_ci else "dev"))

"""Helpers shared by the bench tests: a catalog device as detection reports it, a real torch
GEMM case timed a few calls (its output corrupted after each call if asked), then checked, and
a fake AWS environment for the S3 history's tests."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from accelerators import catalog
from accelerators.bench.measure._backend import Shape
from accelerators.detect import DeviceInfo


def catalog_device(name: str, mig: str | None = None) -> DeviceInfo:
    """Device 0 as detection reports catalog entry ``name`` (a MIG slice ``mig`` of it)."""
    return DeviceInfo(
        index=0,
        kind="gpu",
        vendor=None,
        raw_name=name,
        accelerator=catalog.get(name),
        memory_bytes=None,
        is_mig=mig is not None,
        mig_profile=mig,
    )


def run_checked_case(
    backend: Any, dtype: str, corrupt: Callable[[Any, int], None] | None, calls: int
) -> Any:
    """``calls`` timed calls of a 384x320x512 ``dtype`` GEMM on ``backend``'s one device, each
    output handed to ``corrupt(out, call)``; returns ``case.check(...)``."""
    from accelerators.bench.torch_backend._backend import _TorchGemmCase

    (device,) = backend.devices()
    session = backend.open_gemm(device, dtype, pool_elements=1 << 20)
    case = session.case(Shape(384, 320, 512))
    if not isinstance(case, _TorchGemmCase):
        raise TypeError(f"expected a torch GEMM case, got {type(case).__name__}")
    try:
        for call in range(calls):
            case.before()
            case.run()
            if corrupt is not None:
                corrupt(case.out, call)
        return case.check(blocks=2, block=32, seed=1)
    finally:
        case.close()
        session.close()


def fake_aws(monkeypatch: pytest.MonkeyPatch, endpoint: str | None = None) -> None:
    """Credentials and a region boto3 takes, no user's AWS files or profile, and S3 at
    ``endpoint`` where one is given (a moto server, a fault server)."""
    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    if endpoint is not None:
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)

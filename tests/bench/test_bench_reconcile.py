"""Driver-visible devices against benchmarked ones: matched by UUID, the rest named."""

from __future__ import annotations

from accelerators.bench import BenchReport, ReasonCode, Severity, Verdict, run
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

UUIDS = [f"GPU-{i:08x}-1111-2222-3333-444455556666" for i in range(8)]


def _bare(uuid: str) -> str:
    return uuid.removeprefix("GPU-")  # torch's form of the same UUID


def _run(expect: str, picked: list[int], **kwargs: object) -> BenchReport:
    detected = fake_detected("H100-SXM", count=8, uuids=UUIDS, **kwargs)  # type: ignore[arg-type]
    backend = FakeBackend([FakeDevice(uuid=_bare(UUIDS[i])) for i in picked])
    return run(expect, backend=backend, detected=detected)  # type: ignore[arg-type]


def _reason(report: BenchReport, code: ReasonCode):  # type: ignore[no-untyped-def]
    return next(r for r in report.reasons if r.code is code)


def test_eight_seen_and_two_benchmarked_fails_an_eight_gpu_spec() -> None:
    report = _run("H100-SXM:8", [3, 5])
    assert report.verdict is Verdict.FAIL
    reason = _reason(report, ReasonCode.TOO_FEW_DEVICES)
    assert reason.severity is Severity.FAIL
    assert (reason.value, reason.threshold) == (2, 8)
    assert "8 device(s) visible to the driver, 2 benchmarked" in reason.message
    assert UUIDS[0] in reason.message
    assert UUIDS[3] not in reason.message


def test_the_unbenchmarked_devices_are_named_by_uuid_when_the_spec_is_met() -> None:
    report = _run("H100-SXM:2", [3, 5])
    reason = _reason(report, ReasonCode.UNBENCHMARKED_DEVICES)
    assert reason.severity is Severity.WARN
    assert reason.value == 6
    for index in (0, 1, 2, 4, 6, 7):
        assert UUIDS[index] in reason.message
    for index in (3, 5):
        assert UUIDS[index] not in reason.message
    assert report.verdict is Verdict.WARN


def test_identity_and_telemetry_come_from_the_device_with_the_same_uuid() -> None:
    # The driver's device 0 has ECC errors; torch benchmarks only the driver's device 1.
    report = _run("H100-SXM", [1], per_device=[{"ecc_errors": 7}, {"ecc_errors": 0}])
    assert ReasonCode.ECC_ERRORS not in {r.code for r in report.reasons}
    assert report.devices[0].ecc_errors == 0
    hurt = _run("H100-SXM", [0], per_device=[{"ecc_errors": 7}, {"ecc_errors": 0}])
    assert hurt.devices[0].ecc_errors == 7


def test_all_devices_benchmarked_adds_no_reason() -> None:
    report = _run("H100-SXM:8", list(range(8)))
    assert ReasonCode.UNBENCHMARKED_DEVICES not in {r.code for r in report.reasons}
    assert ReasonCode.TOO_FEW_DEVICES not in {r.code for r in report.reasons}


def test_a_mig_slice_named_by_its_parent_gpu_uuid_is_still_matched() -> None:
    parent = "GPU-cccccccc-0000-0000-0000-000000000000"
    detected = fake_detected(
        "H100-SXM",
        mig_profile="1g.10gb",
        uuids=["MIG-dddddddd-0000-0000-0000-000000000000"],
        per_device=[
            {"extra": {"uuid": "MIG-dddddddd-0000-0000-0000-000000000000", "parent_uuid": parent}}
        ],
    )
    backend = FakeBackend([FakeDevice(compute_units=16, uuid=parent.removeprefix("GPU-"))])
    report = run("H100-SXM@1g.10gb", backend=backend, detected=detected)  # type: ignore[arg-type]
    assert report.devices[0].mig_profile == "1g.10gb"
    codes = {r.code for r in report.reasons}
    assert ReasonCode.UNBENCHMARKED_DEVICES not in codes
    assert ReasonCode.TOO_FEW_DEVICES not in codes

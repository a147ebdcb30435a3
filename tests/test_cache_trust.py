"""Caches are never trusted more than their folder, and are checked against the data file.

A cached copy with a valid shape but wrong values (an H100 with 8 GB), in the parsed-TOML JSON
or in the validated ``.bin`` (its checksum recomputed), is never used nor carried into the
other cache; a folder another user owns or others can write is not used at all; a new folder
is ``0700``. The AWS sizing cache follows the same folder and writes through fresh temporary
files, never a fixed name a link could sit on.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

import accelerators
from accelerators import _datafiles
from accelerators.catalog import _names, _store, _trusted

PACKAGE, NAME = "accelerators.data", "catalog.toml"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "cache" / "accelerators"
    monkeypatch.setenv(_datafiles.CACHE_ENV, str(folder))
    original = _store.LOADED.file()
    _store.LOADED.cache_clear()
    yield folder
    _store.LOADED.install(original)
    _names.cache_clear()


def _load_h100_memory() -> float:
    _store.LOADED.cache_clear()
    return next(a for a in _store.LOADED.file().accelerators if a.name == "H100-SXM").memory_gb


def _tamper_json(folder: Path) -> None:
    [entry] = folder.glob(f"{NAME}.*.json")
    data = json.loads(entry.read_text(encoding="utf-8"))
    for acc in data["accelerators"]:
        if acc["name"] == "H100-SXM":
            acc["memory_gb"]["value"] = 8
    entry.write_text(json.dumps(data), encoding="utf-8")


def test_a_json_copy_with_wrong_values_is_never_used_nor_carried_over(cache: Path) -> None:
    assert _load_h100_memory() == 80
    _tamper_json(cache)
    for blob in cache.glob("*.bin"):
        blob.unlink()  # the next process reads the JSON copy and validates it
    assert _load_h100_memory() == 80
    [entry] = cache.glob(f"{NAME}.*.json")  # the copy was rewritten from the data file
    rewritten = json.loads(entry.read_text(encoding="utf-8"))
    h100 = next(a for a in rewritten["accelerators"] if a["name"] == "H100-SXM")
    assert h100["memory_gb"]["value"] == 80
    for entry in cache.glob(f"{NAME}.*.json"):
        entry.unlink()
    assert _load_h100_memory() == 80  # and the validated copy never held 8 GB


def test_a_validated_copy_with_a_recomputed_checksum_is_checked(cache: Path) -> None:
    _load_h100_memory()
    raw = _store._read_data()
    for acc in raw["accelerators"]:  # type: ignore[union-attr]
        if acc["name"] == "H100-SXM":
            acc["memory_gb"]["value"] = 8
    key = _trusted.cache_key(_datafiles.data_bytes(PACKAGE, NAME))
    assert key is not None
    _datafiles.write_blob(_store._TRUSTED_NAME, key, _trusted.to_blob(_store._validate(raw)))
    assert _datafiles.read_blob(_store._TRUSTED_NAME, key) is not None  # checksum good
    assert _load_h100_memory() == 80


def test_the_check_reads_every_record_of_the_data_file() -> None:
    """Pins the data file's layout the cheap check relies on: if this fails after an edit of
    catalog.toml's formatting, update ``_store._NAME``/``_MEMORY`` (the cache is otherwise
    never used: correct, but every process validates again)."""
    raw = _datafiles.data_bytes(PACKAGE, NAME)
    loaded = _store.LOADED.file()
    assert len(_store._NAME.findall(raw)) == len(loaded.accelerators)
    assert len(_store._MEMORY.findall(raw)) == len(loaded.accelerators)
    assert _store.agrees_with(loaded, raw)


def test_a_json_copy_missing_records_is_not_used(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _datafiles.load_toml(PACKAGE, "instances.toml")
    [entry] = cache.glob("instances.toml.*.json")
    data = json.loads(entry.read_text(encoding="utf-8"))
    table = next(k for k, v in data.items() if isinstance(v, list) and len(v) > 1)
    data[table] = data[table][1:]
    entry.write_text(json.dumps(data), encoding="utf-8")
    assert _datafiles.load_toml(PACKAGE, "instances.toml") == first


def test_a_new_cache_folder_is_private(cache: Path) -> None:
    _load_h100_memory()
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o1777])
def test_a_folder_others_can_write_is_not_used(cache: Path, mode: int) -> None:
    cache.mkdir(parents=True)
    os.chmod(cache, mode)
    _datafiles.load_toml(PACKAGE, NAME)
    assert _load_h100_memory() == 80
    assert list(cache.iterdir()) == []  # nothing written, and nothing planted is read:
    (cache / "planted.json").write_text("{}")
    assert _datafiles.trusted_cache_dir() is None


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_folder_of_another_user_is_not_used(cache: Path) -> None:
    cache.mkdir(parents=True, mode=0o700)
    os.chown(cache, 65534, 65534)
    assert _datafiles.trusted_cache_dir() is None
    assert _load_h100_memory() == 80


def test_the_json_entry_is_keyed_by_the_code_version_too(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _datafiles.load_toml(PACKAGE, NAME)
    [before] = cache.glob(f"{NAME}.*.json")
    monkeypatch.setattr(accelerators, "__version__", "999.0.0")
    _datafiles.load_toml(PACKAGE, NAME)
    [after] = cache.glob(f"{NAME}.*.json")
    assert after.name != before.name


# ----------------------------------------------------------------------------- AWS sizing
def test_the_aws_cache_honours_off(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from accelerators.sizing import aws

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(_datafiles.CACHE_ENV, "off")
    assert aws.cache_dir() is None
    assert aws.cached_instances() == ()
    assert not (tmp_path / "off").exists()


@pytest.mark.parametrize("region", ["bad region", "../../../tmp/x", "us-east-1/../../x", ""])
def test_a_bad_region_is_bad_input(region: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from accelerators.sizing import SizingError, aws

    pytest.importorskip("boto3")
    with pytest.raises(SizingError, match="Expected an AWS region such as us-east-1"):
        aws.refresh(region)
    typer_testing = pytest.importorskip("typer.testing")
    from accelerators.cli import build_app

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "y")
    result = typer_testing.CliRunner().invoke(
        build_app(), ["instances", "H100-SXM", "--refresh", "--region", region]
    )
    assert result.exit_code == 2
    assert "Expected an AWS region" in result.output

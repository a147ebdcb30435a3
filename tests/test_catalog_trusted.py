"""The validated catalog kept on disk (``accelerators/catalog/_trusted.py``).

A process reads the records back without validating them again; whatever it reads must be
exactly what validating the data file gives, and anything wrong with the stored copy must
send it back to the data file and the validator.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
from pydantic import BaseModel

from accelerators import _datafiles
from accelerators.catalog import _names, _store, _trusted
from accelerators.catalog._file import CatalogFile
from accelerators.errors import CatalogDataError


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty cache folder; the catalog loaded before is put back afterwards."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(_datafiles.CACHE_ENV, str(folder))
    original = _store.LOADED.file()
    _store.LOADED.cache_clear()
    yield folder
    _store.LOADED.install(original)
    _names.cache_clear()


def _blobs(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"{_store._TRUSTED_NAME}.*.bin"))


def _validated() -> CatalogFile:
    return _store._validate(_store._read_data())


def _load() -> CatalogFile:
    _store.LOADED.cache_clear()
    return _store.LOADED.file()


def _assert_same(built: Any, validated: Any, path: str = "catalog") -> None:
    """Same types, values and set fields all the way down (pydantic's == skips some)."""
    assert type(built) is type(validated), path
    if isinstance(validated, BaseModel):
        assert built.model_fields_set == validated.model_fields_set, path
        assert built.__dict__.keys() == validated.__dict__.keys(), path
        for name, value in validated.__dict__.items():
            _assert_same(built.__dict__[name], value, f"{path}.{name}")
    elif isinstance(validated, tuple | list):
        assert len(built) == len(validated), path
        for i, (one, other) in enumerate(zip(built, validated, strict=True)):
            _assert_same(one, other, f"{path}[{i}]")
    elif isinstance(validated, dict):
        assert list(built) == list(validated), path
        for key, value in validated.items():
            _assert_same(built[key], value, f"{path}[{key!r}]")
    else:
        assert built == validated, path


def test_the_stored_records_equal_the_validated_ones(cache: Path) -> None:
    first = _load()  # validates and stores
    [blob] = _blobs(cache)
    again = _load()  # reads the stored records
    assert again is not first
    validated = _validated()
    _assert_same(first, validated)
    _assert_same(again, validated)
    assert again.model_dump() == validated.model_dump()
    assert [a.name for a in again.accelerators] == [a.name for a in validated.accelerators]
    assert _blobs(cache) == [blob]


def test_a_second_process_does_not_validate(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _load().model_dump()

    def no_validation(raw: dict[str, object]) -> CatalogFile:
        raise AssertionError("validated although validated records are stored")

    monkeypatch.setattr(_store, "_validate", no_validation)
    assert _load().model_dump() == expected


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[:-100], id="truncated"),
        pytest.param(lambda data: data[:40] + bytes([data[40] ^ 1]) + data[41:], id="bit-flip"),
        pytest.param(lambda data: b"", id="empty"),
    ],
)
def test_a_damaged_copy_is_rebuilt_from_the_data_file(
    cache: Path, monkeypatch: pytest.MonkeyPatch, damage: Any
) -> None:
    _load()
    [blob] = _blobs(cache)
    blob.write_bytes(damage(blob.read_bytes()))
    validations: list[int] = []
    real = _store._validate

    def counting(raw: dict[str, object]) -> CatalogFile:
        validations.append(1)
        return real(raw)

    monkeypatch.setattr(_store, "_validate", counting)
    _assert_same(_load(), _validated())
    assert len(validations) == 2  # the rebuild, and _validated() here
    key = blob.name.removeprefix(f"{_store._TRUSTED_NAME}.").removesuffix(".bin")
    rewritten = _datafiles.read_blob(_store._TRUSTED_NAME, key)  # checksum good again
    assert rewritten is not None
    _assert_same(_trusted.from_blob(rewritten), _validated())


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param((2, ()), id="other-format"),
        pytest.param((1, ("not", "a", "catalog")), id="wrong-shape"),
        pytest.param((1, (1, "1", "sources", (), (), 0)), id="wrong-types"),
        pytest.param([1, 2, 3], id="not-a-pair"),
    ],
)
def test_a_copy_with_a_good_checksum_but_the_wrong_content_is_rebuilt(
    cache: Path, payload: object
) -> None:
    """What another format or schema would have stored reads as absent, never half-built."""
    _load()
    [blob] = _blobs(cache)
    key = blob.name.removeprefix(f"{_store._TRUSTED_NAME}.").removesuffix(".bin")
    _datafiles.write_blob(_store._TRUSTED_NAME, key, marshal.dumps(payload))
    with pytest.raises(ValueError, match="not a stored catalog"):
        _trusted.from_blob(_datafiles.read_blob(_store._TRUSTED_NAME, key) or b"")
    _assert_same(_load(), _validated())
    assert _trusted.from_blob(_datafiles.read_blob(_store._TRUSTED_NAME, key) or b"")


def test_a_bad_data_file_still_fails_validation_and_is_not_stored(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _load()
    [blob] = _blobs(cache)
    real_bytes = _datafiles.data_bytes(_store._DATA_PACKAGE, _store._DATA_FILE)
    text = real_bytes.decode("utf-8")
    bad = text.replace("schema_version = 1", "schema_version = 99", 1)
    assert bad != text
    monkeypatch.setattr(_datafiles, "data_bytes", lambda package, name: bad.encode("utf-8"))
    with pytest.raises(CatalogDataError, match="schema_version 99 is not supported"):
        _load()
    assert _blobs(cache) == [blob]  # the good entry stays; nothing stored for the bad file


def test_the_key_follows_the_data_the_schema_and_pydantic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = _datafiles.data_bytes(_store._DATA_PACKAGE, _store._DATA_FILE)
    key = _trusted.cache_key(data)
    assert key is not None
    assert _trusted.cache_key(data) == key
    assert _trusted.cache_key(data + b"\n") != key
    monkeypatch.setattr(pydantic, "VERSION", "0.0.0")
    assert _trusted.cache_key(data) != key


@pytest.mark.parametrize("module", ["_schema", "_records", "_file"])
def test_without_schema_source_nothing_is_trusted(
    module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every module that shapes a record is in the key: a copy stored under another shape of
    # any one of them is never read back as this one's
    import importlib

    schema_module = importlib.import_module(f"accelerators.catalog.{module}")
    monkeypatch.setattr(schema_module, "__file__", f"/nonexistent/{module}.py")
    assert _trusted.cache_key(b"data") is None


def test_cache_off_validates_every_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_datafiles.CACHE_ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    original = _store.LOADED.file()
    try:
        _assert_same(_load(), _validated())
        assert list(tmp_path.iterdir()) == []
    finally:
        _store.LOADED.install(original)


def test_a_test_reader_bypasses_the_stored_copy(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _load()
    data = _store._read_data()
    data["catalog_version"] = "1999.01.0"
    monkeypatch.setattr(_store, "_read_data", lambda: data)
    assert _load().catalog_version == "1999.01.0"


def test_names_resolve_the_same_from_stored_records(cache: Path) -> None:
    """Every spelling resolves to the same SKU, pinning and count as from validated records."""

    def resolved(catalog: CatalogFile) -> dict[str, tuple[object, ...]]:
        _store.LOADED.install(catalog)
        _names.cache_clear()
        out = {}
        for text in _names.known_spellings():
            match = _names.resolve_name(text)
            out[text] = (match.accelerator.name, match.pinned, match.count, match.partition)
        return out

    _load()
    stored = _load()
    assert resolved(stored) == resolved(_validated())

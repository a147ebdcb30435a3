"""The parsed-data cache: the TOML file stays the truth, the JSON copy only makes it faster."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from accelerators import _datafiles
from accelerators.catalog import _store

PACKAGE, NAME = "accelerators.data", "catalog.toml"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(_datafiles.CACHE_ENV, str(folder))
    return folder


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"{NAME}.*.json"))


def test_the_cached_copy_equals_the_toml(cache: Path) -> None:
    first = _datafiles.load_toml(PACKAGE, NAME)
    [entry] = _entries(cache)
    assert json.loads(entry.read_text(encoding="utf-8")) == first
    data_file = Path(_store.__file__).parent.parent / "data" / NAME
    truth = tomllib.loads(data_file.read_text(encoding="utf-8"))
    assert first == truth


def test_a_second_load_reads_the_cache_not_the_toml(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _datafiles.load_toml(PACKAGE, NAME)

    def no_toml(_: str) -> dict[str, object]:
        raise AssertionError("parsed the TOML although a cached copy exists")

    monkeypatch.setattr(tomllib, "loads", no_toml)
    assert _datafiles.load_toml(PACKAGE, NAME) == first


@pytest.mark.parametrize("damage", [b"{not json", b"[1, 2]", b""])
def test_a_damaged_entry_falls_back_to_the_toml_and_is_rewritten(
    cache: Path, damage: bytes
) -> None:
    first = _datafiles.load_toml(PACKAGE, NAME)
    [entry] = _entries(cache)
    entry.write_bytes(damage)
    assert _datafiles.load_toml(PACKAGE, NAME) == first
    assert json.loads(entry.read_text(encoding="utf-8")) == first


def test_an_entry_is_named_by_the_file_digest_and_older_ones_go(cache: Path) -> None:
    _datafiles.load_toml(PACKAGE, NAME)
    [entry] = _entries(cache)
    stale = cache / f"{NAME}.{'0' * 32}.json"
    stale.write_text('{"stale": true}', encoding="utf-8")
    entry.unlink()  # as after an upgrade: only an entry for other bytes is left
    data = _datafiles.load_toml(PACKAGE, NAME)
    assert "stale" not in data
    assert _entries(cache) == [entry]  # the stale entry was removed when the new one was written


def test_off_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_datafiles.CACHE_ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _datafiles.cache_dir() is None
    assert _datafiles.load_toml(PACKAGE, NAME)
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_cache_folder_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(_datafiles.CACHE_ENV, str(blocker / "cache"))
    assert _datafiles.load_toml(PACKAGE, NAME)["schema_version"] == 1


def test_data_json_cannot_hold_is_not_cached(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime as dt

    monkeypatch.setattr(tomllib, "loads", lambda _: {"when": dt.date(2026, 1, 1)})
    assert _datafiles.load_toml(PACKAGE, NAME) == {"when": dt.date(2026, 1, 1)}
    assert _entries(cache) == []


def test_default_folder_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(_datafiles.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _datafiles.cache_dir() == tmp_path / "accelerators"

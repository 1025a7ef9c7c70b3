"""The cache folder (engines/cachedir.py): where it is, the check before a solve or a training, one cached table."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import numpy as np
import pytest

from boardlab.engines import cachedir


def test_the_folder_is_boardlab_cache_else_the_user_s_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / "here"))
    assert cachedir.cache_dir() == tmp_path / "here"
    for unset in ("", None):
        if unset is None:
            monkeypatch.delenv("BOARDLAB_CACHE")
        else:
            monkeypatch.setenv("BOARDLAB_CACHE", unset)
        assert cachedir.cache_dir() == Path.home() / ".cache" / "boardlab"


def test_a_key_s_digest_is_its_sorted_json_s_sha256_cut_to_16_hex_digits() -> None:
    """Pinned: the names of cached tables and shipped models are these digests, so they must not drift."""
    key = {"players": 2, "game": "x"}
    assert cachedir.key_digest(key) == "206d45846515faff"
    assert cachedir.key_digest(dict(reversed(key.items()))) == cachedir.key_digest(key)
    assert cachedir.key_digest({"players": 3, "game": "x"}) != cachedir.key_digest(key)


def test_a_missing_folder_is_made_and_a_file_in_the_way_is_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b"
    cachedir.check_writable(deep)
    assert deep.is_dir()
    cachedir.check_writable(deep)  # an existing folder is fine
    (tmp_path / "file").write_text("not a folder")
    for blocked in (tmp_path / "file", tmp_path / "file" / "below"):
        with pytest.raises(
            ValueError, match=r"^the cache folder .*file.* cannot be used \(.+\); set BOARDLAB_CACHE"
        ) as err:
            cachedir.check_writable(blocked)
        assert "\n" not in str(err.value)


def _count_and_compute(counter: Path) -> np.ndarray:
    with counter.open("a") as log:
        log.write("computed\n")
    time.sleep(0.5)  # long enough for the other process to ask meanwhile
    return np.arange(6.0)


def _ask(path: Path, counter: Path) -> None:
    array = cachedir.cached_array(path, lambda: _count_and_compute(counter), lambda a: None, "table")
    assert np.array_equal(array, np.arange(6.0))


def test_processes_asking_for_one_table_at_once_compute_it_once(tmp_path: Path) -> None:
    path, counter = tmp_path / "cache" / "table.npy", tmp_path / "counter"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_ask, args=(path, counter)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert [w.exitcode for w in workers] == [0, 0]
    assert counter.read_text() == "computed\n"
    assert np.array_equal(np.load(path), np.arange(6.0)) and cachedir.checksum_path(path).exists()


def test_a_table_refused_by_its_check_or_checksum_is_computed_again_with_one_warning(tmp_path: Path, capsys) -> None:
    path = tmp_path / "table.npy"
    np.save(path, np.zeros(3))
    again = cachedir.cached_array(path, lambda: np.ones(3), lambda a: None if a.sum() == 3 else "not ones", "table")
    assert np.array_equal(again, np.ones(3)) and np.array_equal(np.load(path), np.ones(3))
    first = capsys.readouterr().err.splitlines()[0]  # then the computation's own lines
    assert first == f"warning: table {path} is not usable (not ones); computing it again"
    np.save(path, np.full(3, 1.0))  # the very bytes the checksum names: read, not computed
    assert cachedir.cached_array(path, lambda: pytest.fail("computed again"), lambda a: None, "table").sum() == 3
    np.save(path, np.array([3.0, 0.0, 0.0]))  # passes the check, but the checksum names other bytes
    assert np.array_equal(cachedir.cached_array(path, lambda: np.ones(3), lambda a: None, "table"), np.ones(3))
    assert "its checksum does not match" in capsys.readouterr().err

"""The cache folder (engines/cachedir.py): where it is, and the check made before a solve or a training."""

from __future__ import annotations

from pathlib import Path

import pytest

from engines import cachedir


def test_the_folder_is_boardlab_cache_else_the_user_s_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / "here"))
    assert cachedir.cache_dir() == tmp_path / "here"
    for unset in ("", None):
        if unset is None:
            monkeypatch.delenv("BOARDLAB_CACHE")
        else:
            monkeypatch.setenv("BOARDLAB_CACHE", unset)
        assert cachedir.cache_dir() == Path.home() / ".cache" / "boardlab"


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

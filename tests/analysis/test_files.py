"""Files replaced whole, and sets of files replaced together."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boardlab.analysis import files


def test_a_file_is_replaced_whole_or_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    files.atomic_write(path, b"old")
    with pytest.raises(OSError), files.replacing(path) as tmp:
        tmp.write_bytes(b"half")
        raise OSError(28, "No space left on device")
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["a.txt"]
    files.atomic_write(path, b"new")
    assert path.read_bytes() == b"new" and oct(path.stat().st_mode & 0o777) == "0o644"


def test_a_set_replaces_the_old_set_together(tmp_path: Path) -> None:
    for name in ("t.csv", "t.png", "keep.txt"):
        (tmp_path / name).write_text(f"old {name}")
    with files.replacing_together(tmp_path, last="t.csv") as stage:
        assert stage.parent == tmp_path and stage.name.startswith(files.STAGE_PREFIX)
        (stage / "t.png").write_text("new png")
        (stage / "t.csv").write_text("new csv")
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {
        "t.csv": "new csv",
        "t.png": "new png",
        "keep.txt": "old keep.txt",
    }


def test_a_failure_while_writing_leaves_the_old_set_whole(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("old csv")
    (tmp_path / "t.png").write_text("old png")
    with pytest.raises(OSError), files.replacing_together(tmp_path, last="t.csv") as stage:
        (stage / "t.csv").write_text("new csv")
        (stage / "t.png").write_text("trunc")
        raise OSError(28, "No space left on device")
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"t.csv": "old csv", "t.png": "old png"}


def test_the_record_goes_first_and_comes_last(tmp_path: Path, monkeypatch) -> None:
    """A failure among the renames leaves no record: a folder with its record holds that record's whole set."""
    (tmp_path / "t.csv").write_text("old csv")
    (tmp_path / "t.png").write_text("old png")
    moved = []

    def fail_after_one(src, dst) -> None:
        if moved:
            raise OSError(5, "Input/output error")
        moved.append(Path(dst).name)
        os.rename(src, dst)

    monkeypatch.setattr(files.os, "replace", fail_after_one)
    with pytest.raises(OSError), files.replacing_together(tmp_path, last="t.csv") as stage:
        (stage / "t.csv").write_text("new csv")
        (stage / "t.png").write_text("new png")
    assert moved == ["t.png"] and not (tmp_path / "t.csv").exists()


def test_a_stage_left_by_a_killed_process_is_removed(tmp_path: Path) -> None:
    left = tmp_path / f"{files.STAGE_PREFIX}dead"
    left.mkdir()
    (left / "t.csv").write_text("half")
    with files.replacing_together(tmp_path) as stage:
        (stage / "t.csv").write_text("new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]

"""Chunks are keyed by the code that played them: changed policy code plays the affected arms afresh."""

from __future__ import annotations

import subprocess
import sys

from boardlab.experiments.run import FolderStore, RunSpec
from boardlab.experiments.run import fingerprint as fp
from tests.experiments.run.helpers import SPEC, counting_chunks, run, run_many

SWINE = RunSpec("swine", ("hold-at-20", "chase"), 200, seed=3, chunk_size=100)
PANTOLINO = RunSpec("pantolino", ("greedy", "greedy"), 200, seed=3, chunk_size=100)


def changed(monkeypatch, module: str) -> None:
    """Pretend the source of ``module`` was edited."""
    digest = fp.module_digest
    monkeypatch.setattr(fp, "module_digest", lambda name: digest(name) + ("edited" if name == module else ""))


def test_changed_policy_code_replays_only_the_arms_it_plays_and_says_why(tmp_path, monkeypatch, capsys) -> None:
    store = tmp_path / "chunks"
    run_many([SWINE, PANTOLINO], FolderStore(store))
    played = counting_chunks(monkeypatch)
    run_many([SWINE, PANTOLINO], FolderStore(store))
    assert played == [] and "changed" not in capsys.readouterr().err  # same code: everything resumes
    changed(monkeypatch, "swine.policies")
    results = run_many([SWINE, PANTOLINO], FolderStore(store))
    assert [r.chunks_resumed for r in results] == [0, 2] and sorted(played) == [0, 1]
    err = capsys.readouterr().err
    assert "the code of chase, hold-at-20 changed" in err and "playing afresh" in err


def test_a_run_folder_replays_when_its_policies_code_changed(tmp_path, monkeypatch, capsys) -> None:
    run(SPEC, jobs=1, run_dir=tmp_path)
    changed(monkeypatch, "boardlab.engines.core.unrelated")  # not a module these policies use: the chunks resume
    assert run(SPEC, jobs=1, run_dir=tmp_path).chunks_resumed == 3
    changed(monkeypatch, "boardlab.engines.pantolino.heuristics")
    assert run(SPEC, jobs=1, run_dir=tmp_path).chunks_resumed == 0
    assert "the code of keep-jokers, greedy changed" in capsys.readouterr().err
    assert run(SPEC, jobs=1, run_dir=tmp_path).chunks_resumed == 3  # and the new chunks resume


def test_the_code_digest_is_the_same_in_another_process_that_imported_other_modules_first() -> None:
    code = (
        "from boardlab.experiments.run.spec import RunSpec; print(RunSpec('swine', ('expert:8', 'chase'), 10).code())"
    )
    first = "import boardlab.engines.pantolino.learned, boardlab.experiments.ladder; "
    other = subprocess.run([sys.executable, "-c", first + code], capture_output=True, text=True, check=True).stdout
    assert RunSpec("swine", ("expert:8", "chase"), 10).code() == eval(other)

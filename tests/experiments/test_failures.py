"""Never lose work: kills, interrupts, corrupt checkpoints, failing workers, and the Dask backend."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from boardlab.experiments.cli import app
from boardlab.experiments.run import MemoryStore, RunSpec, open_executor, play

SIMULATE = str(Path(sys.executable).with_name("simulate"))
ARGS = ["pantolino", "-p", "keep-jokers", "-n", "240000", "--chunk-size", "6000", "--seed", "7", "--json"]


def simulate(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([SIMULATE, *ARGS, "--out", str(out), *extra], capture_output=True, text=True, timeout=300)


def without_timing(text: str) -> dict:
    data = json.loads(text)
    data.pop("elapsed_s")
    data.pop("run_dir")
    return data


def sigint_at_default() -> None:
    """In a child before exec: Ctrl-C acts as on a terminal's foreground job.

    A job a non-interactive shell starts in the background ignores SIGINT, and so does every process it starts
    (Python then installs no KeyboardInterrupt handler); the tests must not depend on how pytest was started.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_and_stop(out: Path, sig: int, jobs: str) -> subprocess.CompletedProcess:
    """Start a run, wait until a few chunks are saved, then send ``sig``."""
    proc = subprocess.Popen(
        [SIMULATE, *ARGS, "--out", str(out), "--jobs", jobs],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=sigint_at_default,
    )
    deadline = time.monotonic() + 120
    while len(list((out / "chunks").glob("chunk-*.ckpt"))) < 3 and time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"run ended before it could be stopped: {proc.stderr.read()}")
        time.sleep(0.01)
    if sig in (signal.SIGKILL, signal.SIGTERM):  # as `timeout` sends it: to the whole process group
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict:
    result = simulate(tmp_path_factory.mktemp("whole") / "run", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    return without_timing(result.stdout)


def test_a_killed_run_resumes_to_the_same_result(tmp_path: Path, uninterrupted: dict) -> None:
    killed = start_and_stop(tmp_path / "run", signal.SIGKILL, "1")
    assert killed.returncode == -signal.SIGKILL
    saved = len(list((tmp_path / "run" / "chunks").glob("chunk-*.ckpt")))
    assert 3 <= saved < 40 and not (tmp_path / "run" / "run.json").exists()
    resumed = simulate(tmp_path / "run", "--jobs", "2")
    assert resumed.returncode == 0, resumed.stderr
    assert without_timing(resumed.stdout) == uninterrupted
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["chunks_resumed"] >= saved - 1


@pytest.mark.parametrize(("sig", "jobs"), [(signal.SIGINT, "1"), (signal.SIGINT, "2"), (signal.SIGTERM, "2")])
def test_ctrl_c_and_sigterm_stop_cleanly_and_say_how_to_resume(
    tmp_path: Path, sig: int, jobs: str, uninterrupted: dict
) -> None:
    stopped = start_and_stop(tmp_path / "run", sig, jobs)
    assert stopped.returncode == 130
    lines = stopped.stderr.strip().splitlines()
    assert lines[-1].startswith("interrupted") and "run the same command again to resume" in lines[-1]
    assert "Traceback" not in stopped.stderr and "leaked" not in stopped.stderr and len(lines) == 1
    resumed = simulate(tmp_path / "run", "--jobs", jobs)
    assert without_timing(resumed.stdout) == uninterrupted


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_ctrl_c_that_python_swallows_still_stops_the_run_at_the_next_chunk() -> None:
    """A signal landing in a finalizer (a temporary file's ``__del__``) is printed and ignored by Python."""
    from boardlab.experiments import interrupts
    from boardlab.experiments.run.executors import InProcess

    class SwallowsTheInterrupt:
        def __del__(self) -> None:
            interrupts.request_stop(signal.SIGINT, None)

    heard: list[int] = []

    def progress(games: int) -> None:
        heard.append(games)
        if len(heard) == 2:  # the first chunk is played
            SwallowsTheInterrupt()  # collected at once; its KeyboardInterrupt goes nowhere

    spec = RunSpec("pantolino", ("keep-jokers", "keep-jokers"), 4_000, seed=3, chunk_size=500)
    store = MemoryStore()
    with pytest.raises(KeyboardInterrupt):
        play([spec], store, InProcess(), progress=progress)
    assert heard[1:] == [500]  # stopped after the chunk during which the signal came, not at the end
    play([spec], MemoryStore(), InProcess())  # the request was acted on once: the next run is not stopped


def test_corrupt_checkpoints_are_reported_and_recomputed(tmp_path: Path, uninterrupted: dict) -> None:
    first = simulate(tmp_path / "run", "--jobs", "2")
    chunks = sorted((tmp_path / "run" / "chunks").glob("chunk-*.ckpt"))
    chunks[4].write_bytes(chunks[4].read_bytes()[:200])  # truncated
    data = bytearray(chunks[9].read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte
    chunks[9].write_bytes(bytes(data))
    again = simulate(tmp_path / "run", "--jobs", "2")
    assert again.returncode == 0
    assert "2 corrupt or truncated checkpoint(s) were recomputed (chunks 4, 9)" in again.stderr
    assert without_timing(again.stdout) == without_timing(first.stdout) == uninterrupted


def test_a_failing_worker_is_one_line_and_keeps_finished_chunks(tmp_path: Path, monkeypatch) -> None:
    import boardlab.engines.pantolino as pantolino

    real_play, calls = pantolino.play, []

    def flaky(*args, **kwargs):
        calls.append(args[2])  # games asked for; the checks before the run play zero
        if len([n for n in calls if n]) == 3:
            raise RuntimeError("simulated worker failure")
        return real_play(*args, **kwargs)

    monkeypatch.setattr(pantolino, "play", flaky)
    result = CliRunner().invoke(
        app,
        [
            "pantolino",
            "--policy",
            "keep-jokers",
            "-n",
            "10000",
            "--chunk-size",
            "1000",
            "--jobs",
            "1",
            "--quiet",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: chunk 2 failed: RuntimeError: simulated worker failure; the 2 finished "
        f"chunks are saved in {tmp_path / 'chunks'}"
    )
    assert len(list((tmp_path / "chunks").glob("chunk-*.ckpt"))) == 2
    monkeypatch.setattr(pantolino, "play", real_play)
    again = CliRunner().invoke(
        app,
        [
            "pantolino",
            "--policy",
            "keep-jokers",
            "-n",
            "10000",
            "--chunk-size",
            "1000",
            "--jobs",
            "1",
            "--json",
            "--out",
            str(tmp_path),
        ],
    )
    assert again.exit_code == 0 and json.loads(again.stdout)["n_games"] == 10000


def test_checkpoints_of_another_command_are_refused(tmp_path: Path) -> None:
    runner = CliRunner()
    assert (
        runner.invoke(
            app,
            ["pantolino", "--policy", "keep-jokers", "-n", "2000", "--quiet", "--jobs", "1", "--out", str(tmp_path)],
        ).exit_code
        == 0
    )
    other = runner.invoke(
        app, ["pantolino", "--policy", "keep-jokers", "-n", "2000", "--seed", "5", "--quiet", "--out", str(tmp_path)]
    )
    assert other.exit_code == 2 and "holds checkpoints of a different run; use --overwrite" in other.stderr
    replaced = runner.invoke(
        app,
        [
            "pantolino",
            "--policy",
            "keep-jokers",
            "-n",
            "2000",
            "--seed",
            "5",
            "--quiet",
            "--jobs",
            "1",
            "--overwrite",
            "--out",
            str(tmp_path),
        ],
    )
    assert replaced.exit_code == 0
    fresh = runner.invoke(
        app,
        [
            "pantolino",
            "--policy",
            "keep-jokers",
            "-n",
            "2000",
            "--seed",
            "5",
            "--json",
            "--jobs",
            "1",
            "--fresh",
            "--out",
            str(tmp_path),
        ],
    )
    assert fresh.exit_code == 0


def test_a_local_dask_cluster_matches_loky_exactly() -> None:
    pytest.importorskip("dask.distributed")
    spec = RunSpec(
        "pantolino", ("greedy", "keep-jokers", "random"), 3_000, seed=11, chunk_size=500, variant="escaping-boots"
    )
    with open_executor("loky", 2) as executor:
        loky = play([spec], MemoryStore(), executor)[0].summary.to_arrays()
    with open_executor("dask", 2) as executor:
        dask = play([spec], MemoryStore(), executor)[0].summary.to_arrays()
    assert loky.keys() == dask.keys() and all(np.array_equal(loky[k], dask[k]) for k in loky)


def test_the_local_dask_cluster_has_a_worker_here_and_worker_processes() -> None:
    pytest.importorskip("dask.distributed")
    from boardlab.experiments.run.cluster import dask_client

    with dask_client(None, 3) as client:
        assert sorted(client.ncores().values()) == [1, 1, 1]
        pids = list(client.run(os.getpid).values())
        assert pids.count(os.getpid()) == 1 and len(set(pids)) == 3


def test_a_local_dask_cluster_leaves_port_8787_to_others() -> None:
    pytest.importorskip("dask.distributed")
    from boardlab.experiments.run.cluster import dask_client

    with socket.socket() as taken, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.suppress(OSError):  # already in use is just as good
            taken.bind(("127.0.0.1", 8787))
            taken.listen()
        with dask_client(None, 2) as client:
            assert len(client.ncores()) == 2
    assert not [w for w in caught if "already in use" in str(w.message)]


def test_ctrl_c_under_dask_stops_cleanly_and_resumes(tmp_path: Path, uninterrupted: dict) -> None:
    pytest.importorskip("dask.distributed")
    proc = subprocess.Popen(
        [SIMULATE, *ARGS, "--out", str(tmp_path / "run"), "--backend", "dask"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_at_default,
    )
    deadline = time.monotonic() + 120
    while len(list((tmp_path / "run" / "chunks").glob("chunk-*.ckpt"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal arrived")
    assert proc.returncode == 130
    message = "interrupted: finished chunks are saved; run the same command again to resume"
    assert stderr.strip().splitlines() == [message]  # nothing from Dask's own loggers
    resumed = simulate(tmp_path / "run", "--backend", "dask")
    assert resumed.returncode == 0, resumed.stderr
    assert without_timing(resumed.stdout) == uninterrupted


def test_dask_errors_are_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "pantolino",
            "--policy",
            "keep-jokers",
            "-n",
            "100",
            "--scheduler",
            "tcp://127.0.0.1:9",
            "--quiet",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 2 and result.stderr.strip() == "error: --scheduler goes with --backend dask"


def test_a_second_process_on_the_same_folder_is_refused_at_once(tmp_path: Path, uninterrupted: dict) -> None:
    first = subprocess.Popen(
        [SIMULATE, *ARGS, "--out", str(tmp_path / "run"), "--jobs", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not list((tmp_path / "run" / "chunks").glob("chunk-*.ckpt")) and time.monotonic() < deadline:
        time.sleep(0.01)
    second = simulate(tmp_path / "run", "--seed", "8", "--jobs", "1")
    # refused while the first still held the folder (a second that waited for the lock would have run instead)
    assert second.returncode == 2
    assert second.stderr.splitlines() == [
        f"error: {tmp_path / 'run'} is in use by process {first.pid}; wait for it to finish or choose another folder"
    ]
    stdout, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    assert without_timing(stdout) == uninterrupted  # the first run's results are its own
    assert json.loads((tmp_path / "run" / "run.json").read_text())["seed"] == 7


def test_a_killed_run_leaves_no_worker_behind(tmp_path: Path) -> None:
    proc = subprocess.Popen([SIMULATE, *ARGS, "--out", str(tmp_path / "run"), "--jobs", "2"])
    deadline = time.monotonic() + 120
    while not list((tmp_path / "run" / "chunks").glob("chunk-*.ckpt")) and time.monotonic() < deadline:
        time.sleep(0.01)
    children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 5
    alive = children
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in alive if Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)]
        time.sleep(0.05)
    assert children and not alive


def _state(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"

"""The tuning study (:mod:`experiments.tune`): its Optuna storage, pruning, proposals and the games it used.

See :mod:`experiments.tune` for how a trial is proposed, pruned and stored.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from boardlab.engines import cachedir
from boardlab.experiments.tune_question import Knob, TuneError

STUDY_NAME = "tune"
ETA = 3
"""Pruning's reduction factor: a third of the trials that reach a rung go on."""
MAX_REPEATS = 20
"""Proposals of settings already played that a trial tolerates before the search is taken to have converged."""


class Question(Protocol):
    """What the study reads of a tuning question (:class:`experiments.tune.TuneSpec`)."""

    knobs: tuple[Knob, ...]
    seed: int
    trials: int
    eta: int

    def config(self) -> dict[str, Any]:
        """What identifies the question (a study in storage must have been made for the same one)."""
        ...


def optuna_module() -> Any:
    """Optuna, imported on first use, its info logging and experimental-feature warnings off."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


def rungs(total: int, eta: int = ETA) -> list[int]:
    """Chunk counts at which a trial reports and may be stopped: 1, η, η², … below ``total``, then ``total``."""
    out, step = [], 1
    while step < total:
        out.append(step)
        step *= eta
    return [*out, total]


def make_pruner(eta: int = ETA) -> Any:
    """Successive halving on the trials' reported objectives, failed trials left out (see the module docstring)."""
    optuna = optuna_module()

    class PairedHalving(optuna.pruners.BasePruner):
        """Stop a trial at a rung unless its objective is among the best 1/η of the trials that reached it."""

        def prune(self, study: Any, trial: Any) -> bool:
            step = trial.last_step
            if step is None:
                return False
            mine = trial.intermediate_values[step]
            others = [
                t.intermediate_values[step]
                for t in study.get_trials(deepcopy=False)
                if t.number != trial.number
                and t.state.name != "FAIL"
                and "repeat_of" not in t.user_attrs
                and step in t.intermediate_values
            ]
            if len(others) + 1 < eta:  # too few to compare: go on
                return False
            keep = max(1, (len(others) + 1) // eta)
            return mine > sorted([*others, mine])[keep - 1]

    return PairedHalving()


# --- storage ------------------------------------------------------------------------------------------------


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True  # another machine's: it may be running
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def storage_url(storage: str | None, folder: Path) -> str:
    """The study's storage URL: ``storage``, checked (it parses, its driver is installed), or ``folder/study.db``.

    A SQLite database that is a folder is refused. Nothing is created.
    """
    if storage is None:
        url = f"sqlite:///{(folder / 'study.db').resolve()}"
    else:
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            parsed = make_url(storage)
        except ArgumentError:
            raise TuneError(
                f"--storage {storage!r} is not a database URL (e.g. sqlite:////path/study.db, postgresql://user@host/db)"
            ) from None
        try:
            parsed.get_dialect().import_dbapi()
        except ImportError as err:
            raise TuneError(
                f"--storage {parsed.get_backend_name()}: its driver is not installed ({err}); install it, e.g. psycopg2"
            ) from None
        except Exception as err:  # sqlalchemy's NoSuchModuleError and the like: an unknown database kind
            raise TuneError(f"--storage {storage!r}: {str(err).splitlines()[0]}") from None
        url = storage
    if (path := _sqlite_file(url)) is not None and path.exists() and not path.is_file():
        raise TuneError(f"the tuning study {path} is not a file; remove it or choose another --out or --storage")
    return url


def _sqlite_file(url: str) -> Path | None:
    """The database file of a SQLite URL (None for other databases and for memory)."""
    prefix = "sqlite:///"
    return Path(url[len(prefix) :]) if url.startswith(prefix) and len(url) > len(prefix) else None


@contextlib.contextmanager
def _schema_lock(url: str) -> Iterator[None]:
    """For a SQLite study: hold ``DB.lock`` beside the database, so only one process creates its tables at once.

    The lock is the cache's (:func:`engines.cachedir.locked`): a second process waits, and says so on stderr.
    """
    path = _sqlite_file(url)
    if path is None:
        yield
        return
    with cachedir.locked(path, "waiting for another process creating the tuning study's tables"):
        yield


def open_study(spec: Question, storage: str, fresh: bool, own: bool = False) -> Any:
    """Create or load the study; refuse one made for another question; fail trials whose process is gone.

    ``own``: the storage is the run folder's ``study.db``, which ``fresh`` deletes (even when it is damaged).
    A storage that cannot be used is refused in one line.
    """
    optuna = optuna_module()
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with _schema_lock(storage):
            if fresh and own and (path := _sqlite_file(storage)) is not None:
                path.unlink(missing_ok=True)
            elif fresh:
                with contextlib.suppress(KeyError):  # nothing stored yet
                    optuna.delete_study(study_name=STUDY_NAME, storage=storage)
            study = optuna.create_study(
                study_name=STUDY_NAME,
                storage=storage,
                direction="minimize",
                load_if_exists=True,
                pruner=make_pruner(spec.eta),
            )
    except (SQLAlchemyError, ImportError) as err:
        first = str(getattr(err, "orig", None) or err).splitlines()[0]
        hint = "; --fresh starts a new one" if own else ""
        raise TuneError(f"cannot use the tuning study {_sqlite_file(storage) or storage}: {first}{hint}") from None
    config = json.dumps(spec.config(), sort_keys=True)
    stored = study.user_attrs.get("config")
    if stored is None:
        study.set_user_attr("config", config)
    elif stored != config:
        raise TuneError("the study in storage was made for another tuning question; use --fresh or another --out")
    for trial in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
        if not _alive(trial.user_attrs.get("owner", "")):  # killed: played again as the next trial
            study._storage.set_trial_state_values(trial._trial_id, optuna.trial.TrialState.FAIL)
    return study


def counted_trials(study: Any) -> list[Any]:
    """The trials that count: not failed (killed), nor a repeated proposal told an earlier setting's result."""
    return [t for t in study.get_trials(deepcopy=False) if t.state.name != "FAIL" and "repeat_of" not in t.user_attrs]


def games_used(trials: Sequence[Any], chunk_size: int) -> int:
    """Games charged so far: each setting's chunks once (a repeated setting replays saved chunks)."""
    reached: dict[str, int] = {}
    for t in trials:
        key = t.user_attrs.get("setting")
        if key is not None:
            reached[key] = max(reached.get(key, 0), t.user_attrs.get("chunks", 0))
    return sum(reached.values()) * chunk_size


def propose(
    optuna: Any, study: Any, spec: Question, index: int, fixed: Mapping[str, str] | None
) -> tuple[Any, dict[str, str]] | None:
    """The ``index``-th counted trial and its setting: ``fixed`` if given, else the sampler's first new proposal.

    A proposal of a setting already played is told that setting's result (no games) and the sampler asked again,
    up to :data:`MAX_REPEATS` times; then None (the search has converged).
    """
    repeats = sum(1 for t in study.get_trials(deepcopy=False) if t.user_attrs.get("for_index") == index)
    for attempt in range(repeats, repeats + MAX_REPEATS + 1):
        key_of_seed = (spec.seed, index) if attempt == 0 else (spec.seed, index, attempt)
        seed = int(np.random.SeedSequence(key_of_seed).generate_state(1)[0])  # this trial's, whatever ran before
        study.sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True, n_startup_trials=min(10, spec.trials))
        if fixed is not None:
            study.enqueue_trial({k.name: k.internal(fixed[k.name]) for k in spec.knobs})
        trial = study.ask()
        trial.set_user_attr("owner", _owner())
        setting = {k.name: k.suggest(trial) for k in spec.knobs}
        key = json.dumps(setting, sort_keys=True)
        trial.set_user_attr("setting", key)
        earlier = [t for t in counted_trials(study) if t.number != trial.number and t.user_attrs.get("setting") == key]
        if fixed is not None or not earlier:
            return trial, setting
        trial.set_user_attr("repeat_of", earlier[0].number)
        trial.set_user_attr("for_index", index)
        if earlier[0].state.name == "COMPLETE":
            study.tell(trial, earlier[0].value)
        else:
            for step, value in earlier[0].intermediate_values.items():
                trial.report(value, step)
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
    return None

"""What every `simulate` command shares: its options, input parsing, errors as one line, progress and output.

Heavy libraries are imported inside the functions so that ``simulate --help`` answers at once.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import re
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from boardlab.engines import core
from boardlab.engines.record import default_policy
from boardlab.engines.steps import Step, silenced
from boardlab.experiments import interrupts, validate


class UserError(ValueError):
    """Bad input: printed as one line, exit code 2 (a ValueError, so every command's handler of bad input takes it)."""


RESUME_HINT = "interrupted: finished chunks are saved; run the same command again to resume"
NOTHING_SAVED = "interrupted before any chunk of games was finished: nothing is saved"

# options several commands share
VariantsFile = Annotated[
    Path | None, typer.Option("--variants-file", help="A TOML file of named variants (see `simulate tune`).")
]
Jobs = Annotated[int | None, typer.Option("--jobs", "-j", help="Processes (default: all cores).")]
Fresh = Annotated[bool, typer.Option("--fresh", help="Ignore saved chunks and start over.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout instead of tables.")]
Backend = Annotated[str, typer.Option(help="loky (this machine) or dask (a Dask cluster).")]
Scheduler = Annotated[
    str | None,
    typer.Option(help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (default: a local cluster)."),
]


HELP = {
    "players": "Seats per game (default: the game's minimum, at least 2).",
    "n": "Games per seating.",
    "seed": "Root seed shared by every seating.",
    "settings": "knob=value (repeatable).",
    "variant": "A named variant.",
    "out": "Folder for the run's files.",
    "quiet": "No progress lines; the result is still printed.",
}
"""The shared options' help where a command does not word its own (:func:`shared_options`)."""


@dataclass(frozen=True)
class Common:
    """The options the commands share, as one value (:func:`shared_options`).

    Those a command does not take stay at their defaults.
    """

    players: int | None = None
    n: str = ""
    seed: int = 0
    settings: list[str] | None = None
    variant: str | None = None
    jobs: int | None = None
    out: Path | None = None
    quiet: bool = False
    fresh: bool = False
    variants_file: Path | None = None
    backend: str = "loky"
    scheduler: str | None = None
    as_json: bool = False

    @property
    def knobs(self) -> tuple[tuple[str, str], ...]:
        """The ``--set`` pairs, checked (bad ones: :class:`UserError`)."""
        return parse_settings(self.settings or [])

    @property
    def shown(self) -> bool:
        """Whether progress is shown: neither ``--quiet`` nor ``--json``."""
        return not (self.quiet or self.as_json)


def _typer_options(helps: dict[str, str], n_default: str) -> dict[str, tuple[Any, Any]]:
    """Every shared option: name -> (its Typer annotation, its default), worded with ``helps``."""
    words = HELP | helps
    return {
        "players": (Annotated[int | None, typer.Option(help=words["players"])], None),
        "n": (Annotated[str, typer.Option("-n", "--games", help=words["n"])], n_default),
        "seed": (Annotated[int, typer.Option(help=words["seed"])], 0),
        "settings": (Annotated[list[str] | None, typer.Option("--set", help=words["settings"])], None),
        "variant": (Annotated[str | None, typer.Option(help=words["variant"])], None),
        "jobs": (Jobs, None),
        "out": (Annotated[Path | None, typer.Option(parser=folder_option, help=words["out"])], None),
        "quiet": (Annotated[bool, typer.Option("--quiet", "-q", help=words["quiet"])], False),
        "fresh": (Fresh, False),
        "variants_file": (VariantsFile, None),
        "backend": (Backend, "loky"),
        "scheduler": (Scheduler, None),
        "as_json": (AsJson, False),
    }


PLAYING = ("players", "n", "seed", "settings", "variant", "jobs", "out", "quiet", "fresh", "variants_file",
           "backend", "scheduler", "as_json")  # fmt: skip
"""The option set of every command that plays games into a folder (game runs, tournament, ladder, restrict, tune)."""
FOLDER = ("jobs", "out", "quiet", "fresh", "backend", "scheduler", "as_json")
"""The option set of the commands that play what a file or chapter declares into a folder (report, experiment)."""
TRAINING = ("players", "settings", "variant", "seed", "jobs", "backend", "scheduler", "quiet", "as_json")
"""The option set of the commands that train a player (train, exploit)."""


def shared_options(names: tuple[str, ...] = PLAYING, n_default: str = "20000", **helps: str) -> Callable[..., Any]:
    """Give a command the shared options ``names`` after its own, handed to it as one ``common: Common``.

    ``helps`` words an option for this command (default :data:`HELP`), ``n_default`` is ``-n``'s default. Before the
    command runs: the ``--variants-file`` is loaded, ``--seed`` checked (one line, exit 2), and with ``--quiet`` no
    long step prints a progress line until it ends.
    """
    options = {name: spec for name, spec in _typer_options(helps, n_default).items() if name in names}

    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        hints = typing.get_type_hints(command, include_extras=True)
        own = [
            p.replace(annotation=hints[p.name], kind=inspect.Parameter.KEYWORD_ONLY)
            for p in inspect.signature(command).parameters.values()
            if p.name != "common"
        ]
        added = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)
            for name, (annotation, default) in options.items()
        ]

        @functools.wraps(command)
        def run(**given: Any) -> Any:
            common = Common(**{name: given.pop(name) for name in options})
            use_variants_file(common.variants_file)
            with user_errors("interrupted"):
                check_seed(common.seed)
            with silenced(common.quiet):
                return command(**given, common=common)

        run.__signature__ = inspect.Signature([*own, *added], return_annotation=None)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in (*own, *added)}
        return run

    return wrap


@contextlib.contextmanager
def user_errors(on_interrupt: str = RESUME_HINT) -> Iterator[None]:
    """Turn the library's complaints about input into one line on stderr and exit code 2.

    Ctrl-C prints ``on_interrupt`` and exits with 130 (by default how to resume: every command that plays games
    saves its finished chunks).
    """
    from boardlab.experiments.run import RunError
    from boardlab.experiments.run.store import chunks_kept

    kept_before = chunks_kept()  # a process may run several commands (the Python API, tests)
    try:
        yield
    except (UserError, ValueError, RunError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    except OSError as err:
        typer.echo(f"error: {err.strerror or err}: {err.filename or ''}".rstrip(": "), err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        interrupts.acknowledge()
        typer.echo(interrupt_message(on_interrupt, kept_before), err=True)
        raise typer.Exit(130) from None


def interrupt_message(on_interrupt: str, kept_before: int = 0) -> str:
    """``on_interrupt``, unless it promises saved chunks and this command kept none to resume from."""
    from boardlab.experiments.run.store import chunks_kept

    if on_interrupt == RESUME_HINT and chunks_kept() <= kept_before:
        return NOTHING_SAVED
    return on_interrupt


def check_seed(seed: int) -> None:
    """A root seed is a whole number of at least zero (numpy's seed sequences take no negative entropy)."""
    if seed < 0:
        raise UserError(f"--seed {seed} must be zero or positive")


def check_pool(backend: str, jobs: int | None, scheduler: str | None) -> int:
    """The ``--backend``, ``--jobs`` and ``--scheduler`` options checked together; returns the number of jobs."""
    from boardlab.experiments.run import check_jobs
    from boardlab.experiments.run.executors import check_backend

    check_backend(backend, scheduler)
    if jobs is not None and jobs < 1:
        raise UserError(f"--jobs {jobs} must be at least 1")
    return check_jobs(jobs, scheduler if backend == "dask" else None)


def parse_count(text: str, option: str = "-n") -> int:
    """A positive whole number written as ``1e6``, ``1_000_000`` or ``1000000``."""
    from boardlab.experiments.run import MAX_GAMES

    cleaned = text.strip().replace("_", "")
    value: float | int | None = None
    if re.fullmatch(r"\d{1,30}", cleaned):
        value = int(cleaned)
    elif re.fullmatch(r"\d+(\.\d+)?[eE]\+?\d{1,3}", cleaned):
        number = float(cleaned)
        value = int(number) if number.is_integer() else None
    if value is None or value < 1:
        raise UserError(f"{option} {text!r} is not a positive whole number (write e.g. 1e6, 1_000_000 or 1000000)")
    if value > MAX_GAMES:
        raise UserError(f"{option} {text} is more than the maximum of {MAX_GAMES:.0e} games")
    return value


def folder_option(text: str) -> Path:
    """An ``--out`` value (a folder, or the report's PDF): a path that is not empty (it would mean this folder)."""
    if not text.strip():
        raise typer.BadParameter("must not be empty (an empty path would mean the current folder)")
    return Path(text)


def parse_settings(items: list[str]) -> tuple[tuple[str, str], ...]:
    """``knob=value`` pairs from repeated ``--set`` options."""
    pairs = []
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UserError(f"--set {item!r} is not of the form knob=value")
        pairs.append((name.strip().replace("-", "_"), value.strip()))
    return tuple(pairs)


def seats_from(module: Any, policy: str | None, seats: str | None, players: int | None) -> tuple[str, ...]:
    """The seat policies from ``--policy`` / ``--seats`` / ``--players`` (checked against the game).

    With neither, every seat plays the game's default policy (:func:`engines.record.default_policy`).
    """
    if policy is not None and seats is not None:
        raise UserError("give either --policy or --seats, not both")
    if players is not None:
        core.check_players(module.INFO, players)
    if seats is not None:
        chosen = tuple(validate.items(seats, "--seats"))
        if players is not None and players != len(chosen):
            raise UserError(f"--seats names {len(chosen)} policies but --players is {players}")
    else:
        count = players if players is not None else max(module.INFO.min_players, min(2, module.INFO.max_players))
        chosen = (policy or default_policy(module)[0],) * count
    core.check_players(module.INFO, len(chosen))
    core.resolve_policies(module.POLICIES, chosen)
    return chosen


class ProgressBar:
    """A rich progress bar on stderr: games done, games per second, time left."""

    def __init__(self, total: int, enabled: bool) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.progress = Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            console=(console := Console(stderr=True)),
            transient=True,
            disable=not (enabled and console.is_terminal),  # elsewhere it only adds a blank line
        )
        self.task = self.progress.add_task("games", total=total, rate="")
        # where no bar is drawn (stderr is a file or a pipe), lines say the games started, go on, and ended
        # (announced after a second, so that a bad input found as the games begin stays a one-line error)
        playing = f"playing {total:,} games"
        self.step = Step(playing, unit="games", announce_after=1.0) if enabled and not console.is_terminal else None
        if self.step is not None:
            self.step.update(0, total)

    def __enter__(self) -> ProgressBar:
        self.progress.__enter__()
        if self.step is not None:
            self.step.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.step is not None:
            self.step.__exit__(*exc)
        self.progress.__exit__(*exc)

    def set_total(self, total: int) -> None:
        """A precision-targeted run has grown to ``total`` games."""
        self.progress.update(self.task, total=total)
        if self.step is not None:
            self.step.update(self.step.done or 0, total)

    def advance(self, games: int) -> None:
        """Count ``games`` more games as done."""
        self.progress.advance(self.task, games)
        if self.step is not None:
            self.step.advance(games)
        task = self.progress.tasks[0]
        if task.speed:
            self.progress.update(self.task, rate=f"{task.speed:,.0f} games/s")


def use_variants_file(path: Path | None) -> None:
    """Make the named variants of a variants file known to this run (bad file: one line, exit 2)."""
    if path is None:
        return
    from boardlab.experiments import variants

    with user_errors("interrupted"):
        variants.load(path)


def progress_total(total: int, quiet: bool) -> ProgressBar:
    """A progress bar over ``total`` games, shown unless ``quiet``."""
    return ProgressBar(total, enabled=not quiet)


def parse_precision(text: str | None) -> float | None:
    """A ``--precision`` value: a number strictly between 0 and 0.5, or None."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        raise UserError(f"--precision {text!r} is not a number") from None
    if not 0 < value < 0.5:
        raise UserError(f"--precision {text} is out of range; allowed between 0 and 0.5 (e.g. 0.002)")
    return value


def print_frame(frame: Any, title: str) -> None:
    """A DataFrame as a rich table on stdout."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for column in frame.columns:
        table.add_column(str(column))
    for row in frame.itertuples(index=False):
        table.add_row(*(f"{v:.4g}" if isinstance(v, float) else str(v) for v in row))
    Console(width=max(120, Console().width)).print(table)


def emit_json(record: dict[str, Any]) -> None:
    """Print ``record`` as one JSON object on stdout (numpy values and frames made plain)."""
    from boardlab.analysis.tables import json_ready

    typer.echo(json.dumps(json_ready(record)))


def frame_records(frame: Any) -> list[dict[str, Any]]:
    """A DataFrame as a list of row objects, for ``--json``."""
    return frame.to_dict(orient="records")

"""The options and bodies of ``simulate play`` and ``simulate review`` (registered by :mod:`experiments.cli`).

Heavy libraries are imported inside the commands. Bad input (an unknown game, bad seats, no person at the table,
a missing, corrupt or foreign saved game) is one line on stderr and exit code 2.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from boardlab.engines import available_games, get_game
from boardlab.experiments import validate
from boardlab.experiments.clikit import check_seed

Settings = Annotated[list[str] | None, typer.Option("--set", help="knob=value (repeatable).")]
Variant = Annotated[str | None, typer.Option(help="A named variant (see `simulate list GAME`).")]
Seed = Annotated[int, typer.Option(help="The game's seed: the same seed and moves give the same game.")]
HintPolicy = Annotated[
    str | None, typer.Option(help="The strong player of hints and reviews (default: the game's; see the README).")
]
HintPlayouts = Annotated[
    int | None, typer.Option(help="Playouts per legal move for hints and reviews (default: the game's, see README).")
]


@contextlib.contextmanager
def one_line_errors() -> Iterator[None]:
    """Bad input becomes ``error: ...`` on stderr and exit code 2; Ctrl-C exits with 130."""
    try:
        yield
    except ValueError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    except OSError as err:
        typer.echo(f"error: {err.strerror or err}: {err.filename or ''}".rstrip(": "), err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        raise typer.Exit(130) from None


def _settings(items: list[str] | None) -> tuple[tuple[str, str], ...]:
    pairs = []
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--set {item!r} is not of the form knob=value")
        pairs.append((name.strip().replace("-", "_"), value.strip()))
    return tuple(pairs)


def _check_hints(setup: Any, policy: str | None, playouts: int | None) -> tuple[str, int]:
    """The strong player and playouts per move of hints and reviews, checked (the game's by default)."""
    from boardlab.experiments.playtest.setup import check_playouts

    chosen = setup.ready(policy or setup.hint_policy())  # refuses the table, or builds its tables now
    return chosen, check_playouts(setup.hint_playouts() if playouts is None else playouts, "--hint-playouts")


def play_command(
    game: Annotated[str | None, typer.Argument(help="The game (not needed with --resume).")] = None,
    seats: Annotated[str | None, typer.Option(help="Per seat `human` or a policy, e.g. human,expert:64.")] = None,
    settings: Settings = None,
    variant: Variant = None,
    seed: Seed = 0,
    fast: Annotated[bool, typer.Option("--fast", help="No pause after each policy move.")] = False,
    show_hints: Annotated[
        bool, typer.Option("--hints", help="Show each move's chance to win at every decision.")
    ] = False,
    hint_policy: HintPolicy = None,
    hint_playouts: HintPlayouts = None,
    resume: Annotated[Path | None, typer.Option(help="Continue a saved game.")] = None,
    save: Annotated[Path | None, typer.Option(help="Where the game is saved (default: runs/play/GAME-seedS.json).")] = (
        None
    ),
) -> None:
    """Play a game in the terminal against boardlab's players (`human` seats are asked at every decision)."""
    with one_line_errors():
        from rich.console import Console

        from boardlab.experiments.playtest import record as records
        from boardlab.experiments.playtest.setup import HUMAN, Setup, check_playouts
        from boardlab.experiments.playtest.terminal import Session

        if resume is not None:
            if game is not None or seats is not None or settings or variant is not None:
                raise ValueError("--resume continues a saved game as it was set up; give no game, seats or knobs")
            saved = records.load(resume)
            if saved.finished:
                raise ValueError(f"{resume}: the game is over; review it with: simulate review {resume}")
            path = save or resume
        else:
            if game is None:
                raise ValueError(
                    f"name a game ({', '.join(available_games())}), e.g. simulate play GAME --seats human,expert:64"
                )
            get_game(game)  # an unknown game is named before anything else is asked for
            if seats is None:
                raise ValueError("give --seats, e.g. --seats human,expert:64")
            chosen = tuple(validate.items(seats, "--seats"))
            if HUMAN not in chosen:
                raise ValueError(f"--seats {seats} has no human seat; name at least one seat 'human'")
            check_seed(seed)
            saved = records.SavedGame(Setup(game, chosen, seed, _settings(settings), variant))
            path = save or Path("runs") / "play" / f"{game}-seed{seed}.json"
            if path.exists():
                raise ValueError(f"{path} exists: continue it with --resume {path}, or choose another --save")
        _check_output(path, "--save")
        if show_hints or hint_policy is not None:
            policy, playouts = _check_hints(saved.setup, hint_policy, hint_playouts)
        else:  # the game's own strong player fits the table; its tables are built only if hints are asked for
            policy = saved.setup.hint_policy()
            playouts = check_playouts(
                saved.setup.hint_playouts() if hint_playouts is None else hint_playouts, "--hint-playouts"
            )
        session = Session(saved, path, Console(highlight=False), fast, show_hints, policy, playouts)
        session.run()


def _check_chart(chart: Path | None) -> None:
    """A ``--chart`` the review can write, checked before the replay: a ``.png`` whose folder exists or can be made."""
    if chart is None:
        return
    if chart.suffix.lower() != ".png":
        raise ValueError(f"--chart {chart} must name a PNG file (ending in .png)")
    _check_output(chart, "--chart")


def _check_output(path: Path, option: str) -> None:
    """Make the folder of the file ``option`` names now, so that a name nothing can be written to is refused first."""
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder; name a file")
    if path.exists() and not path.is_file():
        raise ValueError(f"{option} {path} is not a regular file (a device, pipe or socket); name a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"{option} {path}: its folder cannot be made ({error.strerror or error})") from None


def _seats(reviewed: set[int], players: int) -> str:
    """The reviewed seats in words: ``seat 1``, ``seats 0, 2`` or ``every seat``."""
    if len(reviewed) == players > 1:
        return "every seat"
    return f"seat{'s' * (len(reviewed) > 1)} {', '.join(map(str, sorted(reviewed)))}"


def review_command(
    target: Annotated[str, typer.Argument(help="A saved game (FILE.json), or a game id with --seats, --seed, --game.")],
    seats: Annotated[str | None, typer.Option(help="A run's seats (reviewing game --game of that run).")] = None,
    settings: Settings = None,
    variant: Variant = None,
    seed: Annotated[int, typer.Option(help="A run's root seed.")] = 0,
    game_number: Annotated[int | None, typer.Option("--game", help="The game's number in the run, from 0.")] = None,
    chunk_size: Annotated[int | None, typer.Option(help="The run's chunk size (default: the game's).")] = None,
    seat: Annotated[int | None, typer.Option(help="The seat reviewed (default: the people's, or seat 0).")] = None,
    hint_policy: HintPolicy = None,
    hint_playouts: HintPlayouts = None,
    chart: Annotated[Path | None, typer.Option(help="The PNG of the chance to win (default: beside the file).")] = None,
) -> None:
    """Replay a game and rank a seat's decisions by the chance to win each gave up against the strong player."""
    with one_line_errors():
        from rich.console import Console
        from rich.markup import escape

        from boardlab.experiments.playtest import review as reviews
        from boardlab.experiments.playtest import sources

        _check_chart(chart)
        if target.endswith(".json") or Path(target).exists():
            if seats is not None or game_number is not None or settings or variant is not None:
                raise ValueError("a saved game carries its own seats and knobs; give only the file")
            setup, seen, default_chart = sources.from_record(Path(target))
            reviewed = set(setup.humans or range(setup.players)) if seat is None else {seat}  # no person: every seat
        else:
            if target not in available_games():
                raise ValueError(
                    f"{target}: no such saved game, nor a game's name (give FILE.json, or GAME with --seats, --seed "
                    "and --game)"
                )
            if seats is None or game_number is None:
                raise ValueError("review a run's game with --seats, --seed and --game (or give a saved game's file)")
            chosen = tuple(validate.items(seats, "--seats"))
            setup, seen = sources.from_run(target, chosen, seed, _settings(settings), variant, chunk_size, game_number)
            reviewed = {0 if seat is None else seat}
            default_chart = Path("runs") / "play" / f"{target}-seed{seed}-game{game_number}-review.png"
        if any(not 0 <= s < setup.players for s in reviewed):
            raise ValueError(f"--seat {seat} is out of range; allowed 0..{setup.players - 1}")
        policy, playouts = _check_hints(setup, hint_policy, hint_playouts)
        verdicts = reviews.judge(setup, seen, reviewed, policy, playouts)
        console = Console(highlight=False, width=max(100, Console().width))
        title = (
            f"Review of {setup.module.INFO.name} (seed {setup.seed}), {_seats(reviewed, setup.players)}, "
            f"against {policy} ({playouts} playouts per move)"
        )
        reviews.print_review(console, verdicts, title)
        picture = chart or default_chart
        heading = f"{setup.module.INFO.name}, seat {min(reviewed)}: chance to win"
        if reviews.save_chart(picture, verdicts, min(reviewed), heading, policy):
            console.print(f"chart: {escape(str(picture))}")
        sys.stdout.flush()

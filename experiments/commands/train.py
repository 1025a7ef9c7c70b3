"""`simulate train GAME`: fit (or find cached) a game's learned model for one setting."""

from __future__ import annotations

from typing import Annotated

import typer

from boardlab.engines.steps import silenced
from boardlab.experiments.clikit import (
    AsJson,
    Backend,
    Jobs,
    ProgressBar,
    Quiet,
    Scheduler,
    emit_json,
    parse_count,
    parse_settings,
    user_errors,
)
from boardlab.experiments.train import MAX_GAMES_FACTOR, train_model, training

INTERRUPTED = "interrupted: a training keeps nothing until it ends; run the same command again to train from the start"


def train_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    players: Annotated[int | None, typer.Option(help="Seats (default: the game's minimum).")] = None,
    settings: Annotated[list[str] | None, typer.Option("--set", help="knob=value (repeatable).")] = None,
    variant: Annotated[str | None, typer.Option(help="A named variant.")] = None,
    games: Annotated[
        str | None,
        typer.Option(
            "--games",
            help=f"Self-play games (default: the game's, which trains what `learned` plays; at most {MAX_GAMES_FACTOR} "
            "times it).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Root seed of the self-play chunks.")] = 0,
    jobs: Jobs = None,
    backend: Backend = "loky",
    scheduler: Scheduler = None,
    retrain: Annotated[bool, typer.Option("--retrain", help="Train even if the model is cached.")] = False,
    quiet: Quiet = False,
    as_json: AsJson = False,
) -> None:
    """Train a game's learned model for one setting, or find it cached (`learned` seats use it)."""
    with user_errors(INTERRUPTED), silenced(quiet):
        count = None if games is None else parse_count(games, "--games")
        knobs = parse_settings(settings or [])
        job = training(game, players, knobs, variant, count, seed)
        with ProgressBar(job.progress_games, enabled=not quiet and not as_json) as bar:
            result = train_model(job, jobs, bar.advance, retrain, backend, scheduler)
    if as_json:
        emit_json(result.as_dict())
    else:
        typer.echo(f"{result.how}: {result.path} ({result.seconds:.1f} s)")

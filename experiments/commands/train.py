"""`simulate train GAME`: fit (or find cached) a game's learned model for one setting."""

from __future__ import annotations

from typing import Annotated

import typer

from boardlab.experiments.clikit import (
    TRAINING,
    Common,
    ProgressBar,
    emit_json,
    parse_count,
    shared_options,
    user_errors,
)
from boardlab.experiments.train import MAX_GAMES_FACTOR, train_model, training

INTERRUPTED = "interrupted: a training keeps nothing until it ends; run the same command again to train from the start"


@shared_options(TRAINING, players="Seats (default: the game's minimum).", seed="Root seed of the self-play chunks.")
def train_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    games: Annotated[
        str | None,
        typer.Option(
            "--games",
            help=f"Self-play games (default: the game's, which trains what `learned` plays; at most {MAX_GAMES_FACTOR} "
            "times it).",
        ),
    ] = None,
    retrain: Annotated[bool, typer.Option("--retrain", help="Train even if the model is cached.")] = False,
    *,
    common: Common,
) -> None:
    """Train a game's learned model for one setting, or find it cached (`learned` seats use it)."""
    o = common
    with user_errors(INTERRUPTED):
        count = None if games is None else parse_count(games, "--games")
        job = training(game, o.players, o.knobs, o.variant, count, o.seed)
        with ProgressBar(job.progress_games, enabled=o.shown) as bar:
            result = train_model(job, o.jobs, bar.advance, retrain, o.backend, o.scheduler)
    if o.as_json:
        emit_json(result.as_dict())
    else:
        typer.echo(f"{result.how}: {result.path} ({result.seconds:.1f} s)")

"""`simulate train GAME`: fit (or find cached) a game's learned model for one setting."""

from __future__ import annotations

from typing import Annotated

import typer

from boardlab.engines.learned.search import VALIDATION_GAMES
from boardlab.experiments.clikit import (
    TRAINING,
    Common,
    ProgressBar,
    emit_json,
    parse_count,
    shared_options,
    user_errors,
)
from boardlab.experiments.train import MAX_GAMES_FACTOR, search_settings, train_model, training

MAX_VALIDATION = 100_000  #: validation games a seat at most (ours: minutes on Swine)

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
    search: Annotated[
        bool,
        typer.Option(
            "--search",
            help="Try a few settings around the game's own (smaller and larger networks, closing passes on or off), "
            "measure each against the game's exact player (or its first heuristic) and say which is best.",
        ),
    ] = False,
    validation_games: Annotated[
        str | None,
        typer.Option(
            "--validation-games", help=f"With --search: games a seat per setting (default {VALIDATION_GAMES})."
        ),
    ] = None,
    *,
    common: Common,
) -> None:
    """Train a game's learned model for one setting, or find it cached (`learned` seats use it)."""
    o = common
    with user_errors(INTERRUPTED):
        count = None if games is None else parse_count(games, "--games")
        if validation_games is not None and not search:
            raise ValueError("--validation-games goes with --search")
        checked = VALIDATION_GAMES if validation_games is None else parse_count(validation_games, "--validation-games")
        if not 2 <= checked <= MAX_VALIDATION:
            raise ValueError(f"--validation-games must be 2 to {MAX_VALIDATION:,}, not {checked:,}")
        job = training(game, o.players, o.knobs, o.variant, count, o.seed)
        if search:
            say = None if o.as_json else typer.echo
            found = search_settings(job, o.jobs, checked, retrain, o.backend, o.scheduler, say)
            if o.as_json:
                emit_json(found.as_dict())
            else:
                typer.echo(f"measure: {found.measure}")
                typer.echo(f"best: {found.why}")
                typer.echo(f"settings: {found.chosen.candidate.settings}")
            return
        with ProgressBar(job.progress_games, enabled=o.shown) as bar:
            result = train_model(job, o.jobs, bar.advance, retrain, o.backend, o.scheduler)
    if o.as_json:
        emit_json(result.as_dict())
    else:
        typer.echo(f"{result.how}: {result.path} ({result.seconds:.1f} s)")

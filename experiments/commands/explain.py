"""`simulate explain GAME`: the decisions where a strong player's move and a heuristic's differ most."""

from __future__ import annotations

from typing import Annotated

import typer

from boardlab.experiments.clikit import (
    Common,
    UserError,
    check_pool,
    emit_json,
    shared_options,
    user_errors,
)

GAMES = 5  #: games played by default (ours: about 12 CPU-seconds of 2-player Pantolino)
TOP = 5  #: positions shown by default


@shared_options(
    ("seed", "players", "settings", "variant", "as_json", "quiet", "jobs", "backend", "scheduler"),
    seed="Root seed: game G is played from SeedSequence(seed, spawn_key=(G,)).",
    variant="A named variant (see `simulate list GAME`).",
    quiet="One line per position; no progress.",
)
def explain_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    game_number: Annotated[
        int | None, typer.Option("--game", help="Explain this game only (its number, from 0).")
    ] = None,
    games: Annotated[
        int | None, typer.Option(help=f"Play games 0..N-1 and show the top positions of all (default {GAMES}).")
    ] = None,
    strong: Annotated[
        str | None,
        typer.Option(help="The strong player, in every seat (default: learned where the game has one, else expert)."),
    ] = None,
    heuristic: Annotated[
        str | None, typer.Option(help="The heuristic compared (default: the game's strongest, its rollout policy).")
    ] = None,
    top: Annotated[int, typer.Option(help="Positions shown, the largest gaps first.")] = TOP,
    playouts: Annotated[int, typer.Option(help="Playouts per legal move (paired: the same streams).")] = 200,
    *,
    common: Common,
) -> None:
    """The positions where the strong move and the heuristic's differ most in the chance to win, and why."""
    o, seed, quiet = common, common.seed, common.quiet
    with user_errors(on_interrupt="interrupted"):
        from boardlab.experiments import explain as ex
        from boardlab.experiments.run import open_executor
        from boardlab.experiments.run.spec import Knobs

        if game_number is not None and games is not None:
            raise UserError("give either --game (one game) or --games (the first N), not both")
        if game_number is not None and game_number < 0:
            raise UserError(f"--game {game_number} must be zero or positive")
        count = GAMES if games is None else games
        if not 1 <= count <= ex.MAX_GAMES:
            raise UserError(f"--games {count} is out of range; allowed 1..{ex.MAX_GAMES}")
        if top < 1:
            raise UserError(f"--top {top} must be at least 1")
        workers = check_pool(o.backend, o.jobs, o.scheduler)
        numbers = (game_number,) if game_number is not None else tuple(range(count))
        knobs = Knobs(o.knobs, o.variant)
        asked = ex.request(game, o.players, strong, heuristic, seed, numbers, playouts, knobs)
        if o.shown:
            typer.echo(f"playing {len(numbers)} game(s) of {game} with {asked.strong} in every seat …", err=True)
        with open_executor(o.backend, min(workers, len(numbers)), o.scheduler) as executor:
            result = ex.explain(asked, executor)
    if o.as_json:
        emit_json(result.as_json(top))
        return
    r = result.request
    shown = min(top, len(result.positions))
    listed = "the largest gap" if shown == 1 else f"the {shown} largest gaps"
    which = f"game {numbers[0]}" if len(numbers) == 1 else f"games 0-{count - 1}"
    typer.echo(
        f"{r.setup.module.INFO.name}, {r.setup.players} players, seed {seed}, {which}: {result.decisions} decisions "
        f"with a choice, {len(result.positions)} where {r.heuristic}'s move differs from {r.strong}'s, "
        f"{result.heuristic_better} of them where {r.heuristic}'s is the better ({r.playouts} playouts a move); "
        f"{listed}:"
    )
    for rank, position in enumerate(result.positions[:top], 1):
        typer.echo(f"{rank}. {ex.headline(position, r.strong, r.heuristic)}")
        if not quiet:
            for line in ex.describe(position, r.strong, r.heuristic):
                typer.echo(f"   {line}")

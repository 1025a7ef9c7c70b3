"""`simulate list [GAME]`: the games, or one game's policies, knobs, variants and metrics."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from boardlab.engines import get_game, registered_games, unusable
from boardlab.engines.record import record_of
from boardlab.experiments.clikit import AsJson, VariantsFile, emit_json, use_variants_file, user_errors


def list_command(
    game: Annotated[str | None, typer.Argument(help="A game to describe in full.")] = None,
    variants_file: VariantsFile = None,
    as_json: AsJson = False,
) -> None:
    """List the games, or one game's policies, knobs, variants and metrics."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    use_variants_file(variants_file)
    with user_errors("interrupted"):
        if as_json:
            emit_json(describe(game))
            return
        if game is None:
            table = Table(title="games")
            for column in ("game", "name", "players", "policies", "variants"):
                table.add_column(column)
            for gid in listable():
                m = get_game(gid).module
                table.add_row(
                    gid,
                    m.INFO.name,
                    f"{m.INFO.min_players}–{m.INFO.max_players}",
                    ", ".join(m.POLICIES),
                    ", ".join(m.VARIANTS) or "—",
                )
            console.print(table)
            return
        m = get_game(game).module
        policies = Table(title=f"{m.INFO.name} policies")
        policies.add_column("policy")
        policies.add_column("what it does")
        policies.add_column("argument (policy:ARG)")
        for p in m.POLICIES.values():
            policies.add_row(p.name, p.description, p.argument or "none")
        knobs = _knobs_table(m)
        variants = Table(title=f"{m.INFO.name} variants (--variant NAME)")
        variants.add_column("variant")
        variants.add_column("sets")
        from boardlab.experiments.variants import loaded

        for name, overrides in (m.VARIANTS | loaded(game)).items():
            variants.add_row(name, ", ".join(f"{k}={v}" for k, v in overrides.items()))
        console.print(policies, knobs, variants)
        if (restricted := _restrictions_table(m)) is not None:
            console.print(restricted)
        console.print(
            f"players: {m.INFO.min_players}–{m.INFO.max_players}; turn cap {m.INFO.turn_cap}; "
            f"chunks of {m.INFO.chunk_games:,} games",
            highlight=False,
        )
        targets = target_names(game)
        console.print(
            f"metrics a tuning target can name (simulate tune --target): {', '.join(targets)}", highlight=False
        )
        if others := [name for name in m.METRICS if name not in targets]:
            console.print(
                f"other measures in a run's tables (per seat or counts): {', '.join(others)}", highlight=False
            )


def listable() -> list[str]:
    """Every registered game that can be used; each one that cannot is named on stderr in one line, saying why."""
    usable = []
    for gid in registered_games():
        if problem := unusable(gid):
            typer.echo(f"unavailable: {problem}", err=True)
        else:
            usable.append(gid)
    return usable


def _knobs_table(module: Any) -> Any:
    """A game's knobs for ``simulate list GAME``: default, allowed values, meaning and where the default comes from."""
    from rich.table import Table

    knobs = Table(title=f"{module.INFO.name} knobs (--set knob=value)")
    for column in ("knob", "default", "allowed", "meaning", "source of the default"):
        knobs.add_column(column)
    for k in module.Params.knobs():
        knobs.add_row(k.name, str(k.default), k.allowed, k.doc, k.source or "not declared")
    return knobs


def restrictable(module: Any) -> list[str]:
    """The policies that take restrictions (``policy!restriction``)."""
    return [p.name for p in module.POLICIES.values() if p.restrict is not None]


def _restrictions_table(module: Any) -> Any:
    """A game's restrictions for ``simulate list GAME`` (None when it declares none)."""
    from rich.table import Table

    declared = record_of(module).restrictions
    takers = restrictable(module)
    if not declared or not takers:
        return None
    example = f"{takers[0]}!{next(iter(declared))}"
    table = Table(
        title=f"{module.INFO.name} restrictions: POLICY!NAME (e.g. {example}; several: POLICY!A!B) for "
        f"{', '.join(takers)}; `simulate restrict {module.INFO.id}` measures each"
    )
    for column in ("restriction", "a player who …", "exists when"):
        table.add_column(column)
    for r in declared.values():
        table.add_row(r.name, r.does, r.needs or "always")
    return table


def target_names(game: str) -> list[str]:
    """The metric names ``simulate tune GAME --target`` accepts (at the game's usual number of seats)."""
    from boardlab.experiments import tune

    m = get_game(game).module
    seats = max(m.INFO.min_players, min(2, m.INFO.max_players))
    return tune.defined_metrics(game, ("",) * seats, (), None)


def describe(game: str | None) -> dict[str, Any]:
    """``simulate list --json``: every game in brief, or one game's policies, knobs, variants and metrics."""
    from boardlab.experiments.variants import loaded

    if game is None:
        games = []
        for gid in listable():
            m = get_game(gid).module
            games.append({"game": gid, "name": m.INFO.name, "players": [m.INFO.min_players, m.INFO.max_players],
                          "policies": list(m.POLICIES), "variants": list(m.VARIANTS)})  # fmt: skip
        return {"games": games}
    m = get_game(game).module
    return {
        "game": game,
        "name": m.INFO.name,
        "players": [m.INFO.min_players, m.INFO.max_players],
        "turn_cap": m.INFO.turn_cap,
        "chunk_games": m.INFO.chunk_games,
        "policies": [
            {"policy": p.name, "description": p.description, "argument": p.argument} for p in m.POLICIES.values()
        ],
        "knobs": [
            {"knob": k.name, "default": k.default, "allowed": k.allowed, "meaning": k.doc, "source": k.source}
            for k in m.Params.knobs()
        ],
        "variants": {name: dict(overrides) for name, overrides in (m.VARIANTS | loaded(game)).items()},
        "metrics": list(m.METRICS),
        "targets": target_names(game),
        "restrictions": [
            {"restriction": r.name, "does": r.does, "needs": r.needs} for r in record_of(m).restrictions.values()
        ],
        "restrictable": restrictable(m),
    }

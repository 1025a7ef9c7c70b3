"""`simulate tune GAME`: search knob settings whose game metrics come closest to targets (Optuna; resumable)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from boardlab.engines import get_game
from boardlab.experiments.clikit import (
    Common,
    check_pool,
    emit_json,
    parse_count,
    seats_from,
    shared_options,
    user_errors,
)
from boardlab.experiments.commands.game import print_game_metrics


@shared_options(
    players="Number of seats (with --policy).",
    settings="knob=value kept fixed (repeatable).",
    variant="A named variant to start from.",
    n="Games of a trial played in full.",
    seed="Root seed: every trial plays chunk i from the same seed.",
    out="Run folder (default: runs/GAME-tune).",
    quiet="No line per trial as it ends; the result is still printed.",
)
def tune_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    vary: Annotated[list[str], typer.Option("--vary", help="knob=lo..hi or knob=a,b,c to search (repeatable).")],
    target: Annotated[
        list[str],
        typer.Option(
            "--target",
            help="metric=value or metric=lo..hi, optionally ~tolerance (how far off still counts as reached; "
            "default 0.01 for a share, 2% of the target for a count) and @weight (repeatable).",
        ),
    ],
    policy: Annotated[
        str | None, typer.Option("--policy", "-p", help="Policy for every seat (default: the game's default player).")
    ] = None,
    seats: Annotated[str | None, typer.Option(help="Comma-separated policy per seat.")] = None,
    chunk_size: Annotated[
        int | None,
        typer.Option(help="Games per chunk: the step at which trials are compared (default 2500, at most -n)."),
    ] = None,
    trials: Annotated[int, typer.Option(help="Trials in all (a resumed run counts those done).")] = 40,
    max_games: Annotated[str, typer.Option(help="Games in all, each setting's chunks counted once.")] = "1e9",
    name: Annotated[
        str, typer.Option(help="Variant name the best setting is written under (letters, digits, - and _).")
    ] = "tuned",
    storage: Annotated[
        str | None, typer.Option(help="Optuna storage URL to share one study (default: study.db in --out).")
    ] = None,
    *,
    common: Common,
) -> None:
    """Search knob settings whose game metrics come closest to targets (Optuna; resumable; see README).

    Trial 0 always plays the setting you start from (the rulebook's, or your --variant and --set), the baseline
    the best is compared with. When the varied knobs have no more settings than --trials, each is played exactly
    once; otherwise the sampler proposes settings and never plays one twice. The result says for each target
    whether the best setting reached it (its 95% interval within the tolerance). The best setting is always
    written to variants.toml as variant --name; when a target was missed, the file and the output say so first
    ("CLOSEST SETTING ONLY"), so check that line before using the variant.
    """
    o = common
    with user_errors():
        from boardlab.experiments import tune as tn
        from boardlab.experiments import variants
        from boardlab.experiments.run import open_executor

        module = get_game(game).module
        variants.check_key(variants.check_name(game, name))
        chosen = seats_from(module, policy, seats, o.players)
        fixed = o.knobs
        games = parse_count(o.n)
        knobs = tuple(tn.parse_vary(game, text) for text in vary)
        playable = tn.check_trials(game, knobs, fixed, o.variant)
        defined = tn.defined_metrics(game, chosen, (*fixed, *playable), o.variant)
        targets = tuple(tn.parse_target(game, text, defined) for text in target)
        spec = tn.TuneSpec(
            game,
            chosen,
            knobs,
            targets,
            fixed,
            o.variant,
            o.seed,
            games,
            min(tn.DEFAULT_CHUNK, games) if chunk_size is None else chunk_size,
            trials,
            parse_count(max_games, "--max-games"),
        )
        folder = o.out or Path("runs") / f"{game}-tune"
        tn.storage_url(storage, folder)
        check_pool(o.backend, o.jobs, o.scheduler)

        def say(row: dict[str, Any]) -> None:
            if o.shown:
                shown = ", ".join(f"{k}={v}" for k, v in row["setting"].items())
                value = row["objective"]
                typer.echo(
                    f"trial {row['number']}: {shown}: {row['state']} after {row['chunks']} chunk(s)"
                    + (f", objective {value.value:.4g}" if value is not None else "")
                    + (f" (its learned model trained first, {row['trained']:.0f} s)" if row["trained"] else ""),
                    err=True,
                )

        with open_executor(o.backend, o.jobs, o.scheduler) as executor:
            result = tn.tune(spec, folder, executor, storage, o.fresh, say, name)
        variant_file = folder / variants.FILE_NAME
    if o.as_json:
        emit_json({**tn.summary(result), "variants_file": str(variant_file)})
    else:
        print_tune_result(result, name, variant_file)


def print_tune_result(result: Any, name: str, variant_file: Path) -> None:
    """Whether each target was reached, the best setting beside the baseline, importances, and where files went."""
    from rich.console import Console

    from boardlab.analysis import game_metrics
    from boardlab.experiments import tune as tn

    console = Console(width=max(110, Console().width))
    best, base = result.best, result.baseline

    def said(row: dict[str, Any]) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in row["setting"].items())
        low, high = row["objective"]["ci"]
        distance = f"{row['objective']['value']:.4g} ({low:.4g}–{high:.4g})"
        return f"{shown} (trial {row['trial']}, {row['games']:,} games; distance from the targets {distance})"

    for v in best["targets"]:
        word = "reached" if v["reached"] else "MISSED"
        near = f"reached if its 95% interval comes within {tn.tolerance_worded(v)} of the target"
        console.print(f"target {v['target']}: {word}: {tn.worded(v)} ({near})", highlight=False)
    if missed := result.missed():
        console.print(f"{missed[0].upper()}{missed[1:]}; the closest setting: {said(best)}", highlight=False)
    else:
        console.print(f"best setting: {said(best)}", highlight=False)
    if base is None:
        console.print("the setting you started from was not played in full (budget)", highlight=False)
    elif base["setting"] == best["setting"]:
        console.print(
            "it is the setting you started from (the baseline): no varied setting came closer", highlight=False
        )
    else:
        console.print(f"the setting you started from: {said(base)}", highlight=False)
    values = {k: game_metrics.Value(v["value"], *v["ci"]) for k, v in best["metrics"].items()}
    print_game_metrics(console, values)
    for knob, share in result.importances.items():
        console.print(f"importance of {knob}: {share:.2f}", highlight=False)
    label = "closest setting (targets missed, noted in the file)" if missed else "winner"
    how = "every setting once" if result.spec.plan is not None else "settings proposed by the sampler, none twice"
    console.print(
        f"{len(result.trials)} trials ({how}), {result.games_used:,} games; written: "
        f"{', '.join(str(p) for p in result.files)}; {label} as variant '{name}' in {variant_file}",
        highlight=False,
    )

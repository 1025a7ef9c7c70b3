"""`simulate GAME`: play one game's seats and print (or ``--json``) the summary; one command per registered game."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from boardlab.engines import core, get_game
from boardlab.engines.record import default_policy
from boardlab.experiments.clikit import (
    Common,
    ProgressBar,
    UserError,
    check_pool,
    emit_json,
    parse_count,
    parse_precision,
    parse_settings,
    seats_from,
    shared_options,
    user_errors,
)
from boardlab.experiments.commands import seating


def print_summary(result: Any) -> None:
    """The seat table and the game's metrics on stdout."""
    from rich.console import Console
    from rich.table import Table

    from boardlab.analysis import stats
    from boardlab.analysis.tables import format_interval

    spec, summary = result.spec, result.summary
    module = spec.module
    console = Console(width=max(110, Console().width))
    title = (
        f"{module.INFO.name}: {summary.n_games:,} games, seed {spec.seed}"
        f"{', variant ' + spec.variant if spec.variant else ''} ({result.elapsed_s:.1f} s)"
    )
    table = Table(title=title)
    for column in (
        "seat",
        "policy",
        "win rate (95% interval)",
        "shared win",
        f"mean {module.INFO.score_label} (95% interval)",
    ):
        table.add_column(column, justify="left" if column == "policy" else "right")
    for row in result.seat_rows():
        table.add_row(
            str(row["seat"]),
            row["policy"],
            format_interval(row["win_rate"], row["win_lo"], row["win_hi"], True),
            f"{100 * row['shared_win_rate']:.2f}%",
            format_interval(row["mean_score"], row["score_lo"], row["score_hi"]),
        )
    console.print(table)
    if module.INFO.cooperative:  # every seat shares the table's result
        low, high = stats.wilson(summary.shared_wins[0], summary.n_games)
        share = summary.shared_wins[0] / summary.n_games
        console.print(
            f"the table wins {format_interval(share, float(low), float(high), True)} of games", highlight=False
        )
    metrics, length = result.metrics(), result.game_metrics()
    lines = [
        "mean game length: "
        + ", ".join(
            f"{format_interval(v.value, v.low, v.high)} {unit}"
            for unit, v in (("rounds", length["duration"]), ("turns", length.get("turns")))
            if v is not None
        )
    ]
    for name, metric in module.METRICS.items():
        value = metrics[name]
        if metric.kind == "counts":
            names = metric.labels or tuple(str(k) for k in range(len(value)))
            shares = ", ".join(f"{name}: {100 * v:.2f}%" for name, v in zip(names, value, strict=False))
            lines.append(f"{metric.label}: {shares}")
        elif metric.kind == "seat":
            lines.append(f"{metric.label} per game, by seat: " + ", ".join(f"{v:.3f}" for v in value))
        elif metric.label.startswith("games "):  # one 0/1 value per game: a share of the games
            lines.append(f"{metric.label}: {format_interval(value, *metrics[name + '_ci'], percent=True)}")
        else:
            lines.append(f"{metric.label} per game: {format_interval(value, *metrics[name + '_ci'])}")
    for line in lines:
        console.print(line, highlight=False)
    print_game_metrics(console, result.game_metrics())


def print_game_metrics(console: Any, metrics: dict[str, Any]) -> None:
    """The game metrics (same names for every game) as a table: value and 95% interval."""
    from rich.table import Table

    from boardlab.analysis import game_metrics

    table = Table(title="game metrics (absent: not defined for this game)")
    for column in ("metric", "value (95% interval)", "meaning"):
        table.add_column(column)
    for name, definition in game_metrics.DEFINITIONS.items():
        if isinstance(value := metrics.get(name), game_metrics.Value):
            table.add_row(name, game_metrics.format_value(name, value), definition.label)
    if isinstance(seats := metrics.get("seat_advantage"), list):
        shown = ", ".join(game_metrics.format_value("seat_advantage", v) for v in seats)
        table.add_row("seat_advantage", shown, "each seat's share of wins minus the fair share")
    console.print(table)


@dataclass(frozen=True)
class GamePlay:
    """What a per-game command plays: the game, who sits where, how many games, the seed, knobs and chunks.

    ``rotate``: play every rotation of the seats (the same seed in each) and report each policy's share averaged
    over the seats it played, so a seat's edge and a policy's are told apart.
    """

    game: str
    policy: str | None
    seats: str | None
    n: str
    players: int | None
    seed: int
    settings: tuple[str, ...] = ()
    variant: str | None = None
    chunk_size: int | None = None
    precision: str | None = None
    rotate: bool = False


@dataclass(frozen=True)
class RunOptions:
    """How a run is carried out and shown: its workers, its folder, what it saves and what it prints."""

    jobs: int | None = None
    out: Path | None = None
    save_games: bool = False
    as_json: bool = False
    quiet: bool = False
    fresh: bool = False
    overwrite: bool = False
    backend: str = "loky"
    scheduler: str | None = None


def run_game(play: GamePlay, options: RunOptions) -> None:
    """Play ``play.n`` games of ``play.game`` and report them (the body of every per-game command)."""
    from boardlab.experiments.run import RunSpec, folder_lock, open_executor, rule, run_in_folder, shortfall
    from boardlab.experiments.run.chunk import check_playable
    from boardlab.experiments.run.loky import stop_worker_pool

    with user_errors():
        module = get_game(play.game).module
        target = parse_precision(play.precision)
        chosen = seats_from(module, play.policy, play.seats, play.players)
        chunk = core.default_chunk(module.INFO, module.POLICIES, chosen) if play.chunk_size is None else play.chunk_size
        if play.n.strip().lower() == "auto":
            if target is None:
                raise UserError("-n auto needs --precision (e.g. --precision 0.002)")
            n_games = 4 * chunk
        else:
            n_games = parse_count(play.n)
        workers = check_pool(options.backend, options.jobs, options.scheduler)
        if chunk < 1:
            raise UserError(f"--chunk-size {chunk} must be at least 1")
        if play.rotate and len(set(chosen)) < 2:
            raise UserError("--rotate needs at least two different policies in --seats")
        seatings = [chosen[r:] + chosen[:r] for r in range(len(chosen))] if play.rotate else [chosen]
        specs = [
            RunSpec(play.game, s, n_games, play.seed, parse_settings(list(play.settings)), play.variant, chunk)
            for s in seatings
        ]
        for spec in specs:
            check_playable(spec)  # the game's checks of its knobs against the seats, before the folder is made
        suffix = "-rotate" if play.rotate else ""
        run_dir = options.out if options.out is not None else Path("runs") / f"{play.game}-{specs[0].key()}{suffix}"
        if run_dir.exists() and not run_dir.is_dir():
            raise UserError(f"cannot write to {run_dir}: not a folder")
        run_dir.mkdir(parents=True, exist_ok=True)
        if not _writable(run_dir):
            raise UserError(f"cannot write to {run_dir}")
        folders = [run_dir / f"seating-{r}" for r in range(len(specs))] if play.rotate else [run_dir]
        results, unmet = [], None
        with folder_lock(run_dir), open_executor(options.backend, workers, options.scheduler) as executor:
            pool = start_workers(workers) if options.backend == "loky" and workers > 1 else None
            for spec, folder in zip(specs, folders, strict=True):
                with ProgressBar(n_games, enabled=not (options.quiet or options.as_json)) as bar:
                    result = run_in_folder(
                        spec,
                        folder,
                        executor,
                        save_games=options.save_games,
                        fresh=options.fresh,
                        overwrite=options.overwrite,
                        stop=rule(target),
                        bar=bar,
                    )
                if result.chunks_recomputed:
                    typer.echo(
                        f"warning: {len(result.chunks_recomputed)} corrupt or truncated checkpoint(s) were "
                        f"recomputed (chunks {', '.join(map(str, result.chunks_recomputed))})",
                        err=True,
                    )
                from boardlab.experiments.output import write_run_folder

                write_run_folder(result, folder, options.save_games, ["simulate", *sys.argv[1:]], target, pool)
                results.append(result)
                unmet = unmet or shortfall(result.summary, target, chunk)
        stop_worker_pool()  # idle now; stopping the workers here spares the exit a graceful wait for them
        if unmet is not None:
            typer.echo(f"warning: {unmet}", err=True)
        said = seating.players_line(module, chosen, play.policy is None and play.seats is None)
        note = seating.mixed_note(play.game, chosen) if not play.rotate else None
        if options.as_json:
            reached = None if target is None else unmet is None
            extra = {"precision": target, "precision_reached": reached, "run_dir": str(run_dir), "players": said}
            if note:
                extra["note"] = note
            if play.rotate:
                seatings = [r.as_json(target) for r in results]
                emit_json({"seatings": seatings, "policies": seating.averaged(results), **extra})
            else:
                emit_json({**results[0].as_json(target), **extra})
        else:  # --quiet hides the progress only: the result is what was asked for
            typer.echo(said)
            if play.rotate:
                seating.print_rotated(results)
            else:
                print_summary(results[0])
            if note:
                typer.echo(note)
            typer.echo(f"run folder: {run_dir}")


def _writable(folder: Path) -> bool:
    probe = folder / ".write-probe"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return False
    return True


class GameCommand(typer.core.TyperCommand):
    """A ``simulate GAME`` command whose ``--help`` names the game's default player (the game loaded only then)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """The help, its text ending with who plays without ``--policy`` or ``--seats`` and why."""
        game = self.name or ""
        default, why = default_policy(get_game(game).module)
        self.help = (
            f"Play {game} games and summarise them (see `simulate list {game}`).\n\n"
            f"Players: without --policy or --seats every seat plays {default}, this game's default: {why}."
        )
        super().format_help(ctx, formatter)


def make_game_command(game: str) -> Any:
    """The ``simulate GAME`` command of one registered game (the same options for every game)."""

    @shared_options(
        n_default="1e5",
        players="Number of seats (with --policy).",
        n="Games: 1e6, 1_000_000, 1000000, or auto.",
        seed="Root seed; the same seed gives the same games.",
        variant="A named variant (see `simulate list GAME`).",
        out="Run folder (default: runs/GAME-<hash>).",
    )
    def command(
        policy: Annotated[
            str | None, typer.Option("--policy", "-p", help="Policy for every seat (default: the game's, see below).")
        ] = None,
        seats: Annotated[str | None, typer.Option(help="Comma-separated policy per seat, e.g. greedy,random.")] = None,
        precision: Annotated[
            str | None, typer.Option(help="Add games until every win rate's 95% half-width is at most this.")
        ] = None,
        save_games: Annotated[bool, typer.Option("--save-games", help="Also write games.parquet.")] = False,
        overwrite: Annotated[bool, typer.Option(help="Replace checkpoints of a different run.")] = False,
        chunk_size: Annotated[
            int | None,
            typer.Option(help="Games per chunk (part of the seeding); default: the game's, see `simulate list GAME`."),
        ] = None,
        rotate: Annotated[
            bool,
            typer.Option(
                "--rotate",
                help="Play every rotation of --seats (same seed each) and give each policy's seat-averaged share.",
            ),
        ] = False,
        *,
        common: Common,
    ) -> None:
        o = common
        settings = tuple(o.settings or ())
        play = GamePlay(game, policy, seats, o.n, o.players, o.seed, settings, o.variant, chunk_size, precision, rotate)
        run_game(
            play, RunOptions(o.jobs, o.out, save_games, o.as_json, o.quiet, o.fresh, overwrite, o.backend, o.scheduler)
        )

    command.__doc__ = f"Play {game} games and summarise them (see `simulate list {game}`)."
    return command


def start_workers(jobs: int) -> Any:
    """Start the run's ``jobs - 1`` loky workers (only once its options are checked) and return the pool.

    The workers boot and load the output libraries (see :func:`experiments.output.load_writer_libraries`) on
    the other cores while this process starts playing; the run then finds the same pool.
    """
    from boardlab.experiments.output import load_writer_libraries
    from boardlab.experiments.run.loky import worker_pool

    pool = worker_pool(jobs)
    pool.submit(load_writer_libraries)
    return pool

"""`simulate`: the command line. Thin: it parses, calls library functions, and prints.

``simulate GAME [options]`` plays a game (one sub-command per registered game, generated from the registry);
``simulate list [GAME]`` describes games, policies, knobs and variants; ``simulate report GAME`` writes a PDF.
Heavy libraries are imported inside the commands so that ``simulate --help`` answers at once. Bad input gets
one line on stderr and exit code 2.
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

try:
    import typer

    from engines import available_games, core, get_game
except KeyboardInterrupt:  # Ctrl-C while `simulate` is still loading: no traceback
    sys.stderr.write("interrupted\n")
    raise SystemExit(130) from None

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Play millions of seeded games of tabletop games and report what wins.",
)

COMMANDS = ("list", "report", "tournament", "sweep", "experiment", "ladder", "tune", "train")


class UserError(Exception):
    """Bad input: printed as one line, exit code 2."""


RESUME_HINT = "interrupted: finished chunks are saved; run the same command again to resume"

# options several commands share
VariantsFile = Annotated[
    Path | None, typer.Option("--variants-file", help="A TOML file of named variants (see `simulate tune`).")
]
Jobs = Annotated[int | None, typer.Option("--jobs", "-j", help="Processes (default: all cores).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
Fresh = Annotated[bool, typer.Option("--fresh", help="Ignore saved chunks and start over.")]


@contextlib.contextmanager
def user_errors(on_interrupt: str = RESUME_HINT) -> Iterator[None]:
    """Turn the library's complaints about input into one line on stderr and exit code 2.

    Ctrl-C prints ``on_interrupt`` and exits with 130 (by default how to resume: every command that plays games
    saves its finished chunks).
    """
    from experiments.runner import RunError

    try:
        yield
    except (UserError, ValueError, RunError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    except OSError as err:
        typer.echo(f"error: {err.strerror or err}: {err.filename or ''}".rstrip(": "), err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        typer.echo(on_interrupt, err=True)
        raise typer.Exit(130) from None


def parse_count(text: str, option: str = "-n") -> int:
    """A positive whole number written as ``1e6``, ``1_000_000`` or ``1000000``."""
    from experiments.runner import MAX_GAMES

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
    """An ``--out`` value: a path that is not empty (an empty one would mean the current folder)."""
    if not text.strip():
        raise typer.BadParameter("must name a folder, not be empty")
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
    """The seat policies from ``--policy`` / ``--seats`` / ``--players`` (checked against the game)."""
    if policy is not None and seats is not None:
        raise UserError("give either --policy or --seats, not both")
    if players is not None:
        core.check_players(module.INFO, players)
    if seats is not None:
        chosen = tuple(s.strip() for s in seats.split(",") if s.strip())
        if players is not None and players != len(chosen):
            raise UserError(f"--seats names {len(chosen)} policies but --players is {players}")
    else:
        count = players if players is not None else max(module.INFO.min_players, min(2, module.INFO.max_players))
        chosen = (policy or next(iter(module.POLICIES)),) * count
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

    def __enter__(self) -> ProgressBar:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(*exc)

    def set_total(self, total: int) -> None:
        """A precision-targeted run has grown to ``total`` games."""
        self.progress.update(self.task, total=total)

    def advance(self, games: int) -> None:
        """Count ``games`` more games as done."""
        self.progress.advance(self.task, games)
        task = self.progress.tasks[0]
        if task.speed:
            self.progress.update(self.task, rate=f"{task.speed:,.0f} games/s")


def print_summary(result: Any) -> None:
    """The seat table and the game's metrics on stdout."""
    from rich.console import Console
    from rich.table import Table

    from analysis import stats
    from analysis.tables import format_interval

    spec, summary = result.spec, result.summary
    module = spec.module
    console = Console(width=max(110, Console().width))
    title = (
        f"{module.INFO.name}: {summary.n_games:,} games, seed {spec.seed}"
        f"{', variant ' + spec.variant if spec.variant else ''} ({result.elapsed_s:.1f} s)"
    )
    table = Table(title=title)
    for column in ("seat", "policy", "win rate [95% CI]", "shared win", f"mean {module.INFO.score_label} [95% CI]"):
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
    metrics = result.metrics()
    lines = [f"mean game length: {format_interval(metrics['mean_turns'], *metrics['mean_turns_ci'])} turns"]
    for name, metric in module.METRICS.items():
        value = metrics[name]
        if metric.kind == "counts":
            names = metric.labels or tuple(str(k) for k in range(len(value)))
            shares = ", ".join(f"{name}: {100 * v:.2f}%" for name, v in zip(names, value, strict=False))
            lines.append(f"{metric.label}: {shares}")
        elif metric.kind == "seat":
            lines.append(f"{metric.label} per game, by seat: " + ", ".join(f"{v:.3f}" for v in value))
        else:
            lines.append(f"{metric.label} per game: {format_interval(value, *metrics[name + '_ci'])}")
    for line in lines:
        console.print(line, highlight=False)
    print_game_metrics(console, result.game_metrics())


def print_game_metrics(console: Any, metrics: dict[str, Any]) -> None:
    """The game metrics (same names for every game) as a table: value and 95% interval."""
    from rich.table import Table

    from analysis import game_metrics

    table = Table(title="game metrics (absent: not defined for this game)")
    for column in ("metric", "value [95% CI]", "meaning"):
        table.add_column(column)
    for name, definition in game_metrics.DEFINITIONS.items():
        if isinstance(value := metrics.get(name), game_metrics.Value):
            table.add_row(name, game_metrics.format_value(name, value), definition.label)
    if isinstance(seats := metrics.get("seat_advantage"), list):
        shown = ", ".join(game_metrics.format_value("seat_advantage", v) for v in seats)
        table.add_row("seat_advantage", shown, "each seat's share of wins minus the fair share")
    console.print(table)


def run_game(
    game: str,
    policy: str | None,
    seats: str | None,
    n: str,
    players: int | None,
    seed: int,
    settings: list[str],
    variant: str | None,
    jobs: int | None,
    out: Path | None,
    save_games: bool,
    as_json: bool,
    quiet: bool,
    fresh: bool,
    overwrite: bool,
    chunk_size: int | None,
    precision: str | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
) -> None:
    """Play ``n`` games of ``game`` and report them (the body of every per-game command)."""
    from experiments.runner import RunSpec, check_jobs, check_playable, folder_lock, run, stop_worker_pool

    with user_errors():
        module = get_game(game).module
        target = _precision(precision)
        chosen = seats_from(module, policy, seats, players)
        chunk = core.default_chunk(module.INFO, module.POLICIES, chosen) if chunk_size is None else chunk_size
        if n.strip().lower() == "auto":
            if target is None:
                raise UserError("-n auto needs --precision (e.g. --precision 0.002)")
            n_games = 4 * chunk
        else:
            n_games = parse_count(n)
        if backend not in ("loky", "dask"):
            raise UserError(f"--backend {backend} is not allowed; choose loky or dask")
        if scheduler is not None and backend != "dask":
            raise UserError("--scheduler goes with --backend dask")
        workers = check_jobs(jobs, scheduler)
        if chunk < 1:
            raise UserError(f"--chunk-size {chunk} must be at least 1")
        if seed < 0:
            raise UserError(f"--seed {seed} must be zero or positive")
        spec = RunSpec(
            game,
            chosen,
            n_games,
            seed,
            parse_settings(settings),
            variant,
            chunk,
        )
        check_playable(spec)  # the game's checks of its knobs against the seats, before the folder is made
        run_dir = out if out is not None else Path("runs") / f"{game}-{spec.key()}"
        if run_dir.exists() and not run_dir.is_dir():
            raise UserError(f"cannot write to {run_dir}: not a folder")
        run_dir.mkdir(parents=True, exist_ok=True)
        if not _writable(run_dir):
            raise UserError(f"cannot write to {run_dir}")
        with folder_lock(run_dir):
            pool = start_workers(workers) if backend == "loky" and workers > 1 else None
            with ProgressBar(n_games, enabled=not (quiet or as_json)) as bar:
                result = run(
                    spec,
                    jobs=workers,
                    run_dir=run_dir,
                    save_games=save_games,
                    progress=bar.advance,
                    fresh=fresh,
                    overwrite=overwrite,
                    precision=target,
                    on_target=bar.set_total,
                    backend=backend,
                    scheduler=scheduler,
                )
            if result.chunks_recomputed:
                typer.echo(
                    f"warning: {len(result.chunks_recomputed)} corrupt or truncated checkpoint(s) were recomputed "
                    f"(chunks {', '.join(map(str, result.chunks_recomputed))})",
                    err=True,
                )
            from experiments.output import write_run_folder

            write_run_folder(result, run_dir, save_games, ["simulate", *sys.argv[1:]], target, pool)
        stop_worker_pool()  # idle now; stopping the workers here spares the exit a graceful wait for them
        if as_json:
            from analysis.tables import json_ready

            typer.echo(json.dumps(json_ready({**result.as_json(), "run_dir": str(run_dir)})))
        elif not quiet:
            print_summary(result)
            typer.echo(f"run folder: {run_dir}")


def use_variants_file(path: Path | None) -> None:
    """Make the named variants of a variants file known to this run (bad file: one line, exit 2)."""
    if path is None:
        return
    from experiments import variants

    with user_errors("interrupted"):
        variants.load(path)


def _writable(folder: Path) -> bool:
    probe = folder / ".write-probe"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return False
    return True


def make_game_command(game: str) -> Any:
    """The ``simulate GAME`` command of one registered game (the same options for every game)."""

    def command(
        policy: Annotated[str | None, typer.Option("--policy", "-p", help="Policy for every seat.")] = None,
        seats: Annotated[str | None, typer.Option(help="Comma-separated policy per seat, e.g. greedy,random.")] = None,
        n: Annotated[str, typer.Option("-n", "--games", help="Games: 1e6, 1_000_000, 1000000, or auto.")] = "1e5",
        precision: Annotated[
            str | None, typer.Option(help="Add games until every win rate's 95% half-width is at most this.")
        ] = None,
        players: Annotated[int | None, typer.Option(help="Number of seats (with --policy).")] = None,
        seed: Annotated[int, typer.Option(help="Root seed; the same seed gives the same games.")] = 0,
        settings: Annotated[list[str] | None, typer.Option("--set", help="knob=value (repeatable).")] = None,
        variant: Annotated[str | None, typer.Option(help="A named variant (see `simulate list GAME`).")] = None,
        jobs: Jobs = None,
        out: Annotated[
            Path | None, typer.Option(parser=folder_option, help="Run folder (default: runs/GAME-<hash>).")
        ] = None,
        save_games: Annotated[bool, typer.Option("--save-games", help="Also write games.parquet.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no tables.")] = False,
        fresh: Fresh = False,
        overwrite: Annotated[bool, typer.Option(help="Replace checkpoints of a different run.")] = False,
        chunk_size: Annotated[
            int | None,
            typer.Option(help="Games per chunk (part of the seeding); default: the game's, see `simulate list GAME`."),
        ] = None,
        backend: Annotated[str, typer.Option(help="loky (this machine) or dask (a Dask cluster).")] = "loky",
        scheduler: Annotated[
            str | None,
            typer.Option(help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (default: a local cluster)."),
        ] = None,
        variants_file: VariantsFile = None,
    ) -> None:
        use_variants_file(variants_file)
        run_game(
            game,
            policy,
            seats,
            n,
            players,
            seed,
            settings or [],
            variant,
            jobs,
            out,
            save_games,
            as_json,
            quiet,
            fresh,
            overwrite,
            chunk_size,
            precision,
            backend,
            scheduler,
        )

    command.__doc__ = f"Play {game} games and summarise them (see `simulate list {game}`)."
    return command


for _game in available_games():
    app.command(name=_game)(make_game_command(_game))


@app.command("list")
def list_command(
    game: Annotated[str | None, typer.Argument(help="A game to describe in full.")] = None,
    variants_file: VariantsFile = None,
) -> None:
    """List the games, or one game's policies, knobs, variants and metrics."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    use_variants_file(variants_file)
    with user_errors("interrupted"):
        if game is None:
            table = Table(title="games")
            for column in ("game", "name", "players", "policies", "variants"):
                table.add_column(column)
            for gid in available_games():
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
        from experiments.variants import loaded

        for name, overrides in (m.VARIANTS | loaded(game)).items():
            variants.add_row(name, ", ".join(f"{k}={v}" for k, v in overrides.items()))
        console.print(policies, knobs, variants)
        console.print(
            f"players: {m.INFO.min_players}–{m.INFO.max_players}; turn cap {m.INFO.turn_cap}; "
            f"chunks of {m.INFO.chunk_games:,} games; "
            f"metrics: {', '.join(m.METRICS)}",
            highlight=False,
        )


def _knobs_table(module: Any) -> Any:
    """A game's knobs for ``simulate list GAME``: default, allowed values, meaning and where the default comes from."""
    from rich.table import Table

    knobs = Table(title=f"{module.INFO.name} knobs (--set knob=value)")
    for column in ("knob", "default", "allowed", "meaning", "source of the default"):
        knobs.add_column(column)
    for k in module.Params.knobs():
        knobs.add_row(k.name, str(k.default), k.allowed, k.doc, k.source or "not declared")
    return knobs


def _progress_total(total: int, quiet: bool) -> ProgressBar:
    return ProgressBar(total, enabled=not quiet)


def _precision(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        raise UserError(f"--precision {text!r} is not a number") from None
    if not 0 < value < 0.5:
        raise UserError(f"--precision {text} is out of range; allowed between 0 and 0.5 (e.g. 0.002)")
    return value


@app.command("report")
def report_command(
    target: Annotated[
        str, typer.Argument(help="A game with a report chapter, 'all' (every chapter in one book), or a study file.")
    ],
    n: Annotated[str, typer.Option("-n", "--games", help="Games per arm.")] = "20000",
    precision: Annotated[str | None, typer.Option(help="Play each arm until win rates are this tight.")] = None,
    seed: Annotated[int, typer.Option(help="Root seed shared by every arm.")] = 2026,
    jobs: Jobs = None,
    out: Annotated[
        Path | None,
        typer.Option(parser=folder_option, help="PDF path (default: reports/<name>.pdf; the HTML twin beside it)."),
    ] = None,
    quiet: Quiet = False,
    fresh: Fresh = False,
) -> None:
    """Write a multi-page PDF report answering a game's design questions (or one study's), and its HTML twin.

    ``all`` writes every chapter into one PDF and HTML behind a page comparing the games. Finished chunks are
    kept next to the PDF (``<name>.chunks/``), so a stopped report resumes.
    """
    with user_errors():
        n_games = parse_count(n)
        target_precision = _precision(precision)
        if jobs is not None and jobs < 1:
            raise UserError(f"--jobs {jobs} must be at least 1")
        from analysis.report import html_path
        from experiments.reporting import build_report, report_path
        from experiments.runner import saving_chunks

        pdf = out or report_path(target)
        with saving_chunks(pdf.with_name(f"{pdf.stem}.chunks"), fresh):
            path, headlines = build_report(
                target, n_games, target_precision, seed, jobs, pdf, lambda total: _progress_total(total, quiet)
            )
        for line in headlines:
            typer.echo(f"- {line}")
        typer.echo(f"report: {path}")
        typer.echo(f"html: {html_path(path)}")


@app.command("tournament")
def tournament_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    policies: Annotated[str, typer.Option(help="Comma-separated policies, at least two.")],
    players: Annotated[
        int | None, typer.Option(help="Seats per game (default: the game's minimum, at least 2).")
    ] = None,
    n: Annotated[str, typer.Option("-n", "--games", help="Games per seating.")] = "20000",
    seed: Annotated[int, typer.Option(help="Root seed shared by every seating.")] = 0,
    settings: Annotated[list[str] | None, typer.Option("--set", help="knob=value (repeatable).")] = None,
    variant: Annotated[str | None, typer.Option(help="A named variant.")] = None,
    jobs: Jobs = None,
    out: Annotated[
        Path | None, typer.Option(parser=folder_option, help="Folder for the matrix CSV and heatmap PNG.")
    ] = None,
    quiet: Quiet = False,
    fresh: Fresh = False,
    variants_file: VariantsFile = None,
) -> None:
    """Every policy against every other, seats rotated: a win-rate matrix with 95% intervals and a heatmap."""
    use_variants_file(variants_file)
    with user_errors():
        from experiments.compare import tournament
        from experiments.runner import saving_chunks

        names = [p.strip() for p in policies.split(",") if p.strip()]
        folder = out or Path("runs") / f"{game}-tournament"
        with saving_chunks(folder / "chunks", fresh):
            result = tournament(
                game,
                names,
                players,
                parse_count(n),
                seed,
                parse_settings(settings or []),
                variant,
                jobs,
                lambda total: _progress_total(total, quiet),
            )
            paths = result.save(folder)
        _print_frame(result.display(), f"{game}: win rate of row policy against column policy (95% CI)")
        typer.echo(f"written: {', '.join(str(p) for p in paths)}")


@app.command("sweep")
def sweep_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    settings: Annotated[list[str], typer.Option("--set", help="knob=v1,v2,v3 to sweep; further knob=value fixed.")],
    policy: Annotated[str | None, typer.Option("--policy", "-p", help="Policy for every seat.")] = None,
    seats: Annotated[str | None, typer.Option(help="Comma-separated policy per seat.")] = None,
    players: Annotated[int | None, typer.Option(help="Number of seats (with --policy).")] = None,
    n: Annotated[str, typer.Option("-n", "--games", help="Games per value.")] = "20000",
    seed: Annotated[int, typer.Option(help="Root seed shared by every value.")] = 0,
    jobs: Jobs = None,
    out: Annotated[
        Path | None, typer.Option(parser=folder_option, help="Folder for the table CSV and line plot PNG.")
    ] = None,
    quiet: Quiet = False,
    fresh: Fresh = False,
) -> None:
    """Run one knob over several values: per value, seat win rates and mean scores with 95% intervals."""
    with user_errors():
        from experiments.compare import split_sweep, sweep
        from experiments.runner import saving_chunks

        module = get_game(game).module
        chosen = seats_from(module, policy, seats, players)
        knob_settings = parse_settings(settings)
        folder = out or Path("runs") / f"{game}-sweep-{split_sweep(game, knob_settings)[0]}"
        with saving_chunks(folder / "chunks", fresh):
            result = sweep(
                game, chosen, knob_settings, parse_count(n), seed, jobs, lambda total: _progress_total(total, quiet)
            )
            paths = result.save(folder)
        _print_frame(result.display(), f"{game}: sweep of {result.knob}")
        typer.echo(f"written: {', '.join(str(p) for p in paths)}")


@app.command("experiment")
def experiment_command(
    file: Annotated[str, typer.Argument(help="A study file (TOML), or the name of a shipped study.")],
    precision: Annotated[str | None, typer.Option(help="Override the study's precision target.")] = None,
    jobs: Jobs = None,
    out: Annotated[Path | None, typer.Option(parser=folder_option, help="Folder for the study's tables.")] = None,
    quiet: Quiet = False,
    fresh: Fresh = False,
) -> None:
    """Run a declarative study: its arms side by side, compared with the first arm on common random numbers."""
    with user_errors():
        from experiments.runner import saving_chunks
        from experiments.spec import load_study, resolve_study
        from experiments.study import run_study

        study = load_study(resolve_study(file))
        total = sum(a.spec.n_games for a in study.arms)
        folder = out or Path("runs") / f"study-{study.name}"
        with _progress_total(total, quiet) as bar, saving_chunks(folder / "chunks", fresh):
            result = run_study(study, jobs, _precision(precision), bar.advance)
        folder.mkdir(parents=True, exist_ok=True)
        table = result.table(study.metrics)
        comparisons = result.comparisons()
        from analysis.files import atomic_write

        atomic_write(folder / "arms.csv", table.to_csv(index=False).encode())
        atomic_write(folder / "comparisons.csv", comparisons.to_csv(index=False).encode())
        shown = table[
            [
                "arm",
                "seat",
                "policy",
                "games",
                "win_rate",
                "win_lo",
                "win_hi",
                "shared_win_rate",
                "mean_score",
                "mean_turns",
                *(c for c in table.columns if c.split(":")[0] in study.metrics and not c.endswith(("_lo", "_hi"))),
            ]
        ]
        _print_frame(shown, study.title)
        if len(comparisons):
            _print_frame(comparisons, f"against '{study.arms[0].label}' (paired by chunk)")
        typer.echo(f"written: {folder / 'arms.csv'}, {folder / 'comparisons.csv'}")


@app.command("ladder")
def ladder_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    players: Annotated[
        int | None, typer.Option(help="Seats per game (default: the game's minimum, at least 2).")
    ] = None,
    n: Annotated[str, typer.Option("-n", "--games", help="Games per seating (default 2000).")] = "2000",
    budgets: Annotated[
        str | None, typer.Option(help="The expert's search budgets, e.g. 4,16,64 (default: the game's).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Root seed shared by every seating.")] = 0,
    jobs: Jobs = None,
    out: Annotated[
        Path | None, typer.Option(help="Folder for the tables and the PNG (default: runs/GAME-ladder).")
    ] = None,
    quiet: Quiet = False,
    fresh: Fresh = False,
) -> None:
    """Rate every policy of a game against every other: ratings with 95% intervals, skill chain, luck share."""
    with user_errors():
        from experiments import ladder as lad
        from experiments.runner import saving_chunks

        module, count = lad.check_game(game, players)
        n_games = parse_count(n)
        chosen = lad.default_budgets(game) if budgets is None else lad.parse_budgets(budgets)
        if jobs is not None and jobs < 1:
            raise UserError(f"--jobs {jobs} must be at least 1")
        if seed < 0:
            raise UserError(f"--seed {seed} must be zero or positive")
        policies, notes = lad.ladder_policies(module, count, chosen)
        folder = out or Path("runs") / f"{game}-ladder"
        with saving_chunks(folder / "chunks", fresh):
            result = lad.ladder(
                game, count, n_games, chosen, seed, jobs, lambda total: _progress_total(total, quiet), policies
            )
        result.notes = notes
        paths = result.save(folder)
        shown = result.ratings.sort_values("rating", ascending=False)[
            ["policy", "rating", "rating_lo", "rating_hi", "score", "games"]
        ]
        _print_frame(shown, f"{game}, {count} players: Bradley–Terry ratings in Elo points vs random (95% CI)")
        pairs = result.pairs[
            ["policy", "opponent", "games", "win_rate", "win_lo", "win_hi", "weaker", "weaker_win_rate"]
        ]
        _print_frame(pairs, f"{game}: win rate of policy against opponent; how often the weaker one wins")
        for line in result.lines():
            typer.echo(line)
        typer.echo(f"written: {', '.join(str(p) for p in paths)}")


@app.command("tune")
def tune_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    vary: Annotated[list[str], typer.Option("--vary", help="knob=lo..hi or knob=a,b,c to search (repeatable).")],
    target: Annotated[
        list[str], typer.Option("--target", help="metric=value or metric=lo..hi, optionally @weight (repeatable).")
    ],
    policy: Annotated[str | None, typer.Option("--policy", "-p", help="Policy for every seat.")] = None,
    seats: Annotated[str | None, typer.Option(help="Comma-separated policy per seat.")] = None,
    players: Annotated[int | None, typer.Option(help="Number of seats (with --policy).")] = None,
    settings: Annotated[list[str] | None, typer.Option("--set", help="knob=value kept fixed (repeatable).")] = None,
    variant: Annotated[str | None, typer.Option(help="A named variant to start from.")] = None,
    variants_file: VariantsFile = None,
    n: Annotated[str, typer.Option("-n", "--games", help="Games of a trial played in full.")] = "20000",
    chunk_size: Annotated[int, typer.Option(help="Games per chunk: the step at which trials are compared.")] = 2500,
    trials: Annotated[int, typer.Option(help="Trials in all (a resumed run counts those done).")] = 40,
    max_games: Annotated[str, typer.Option(help="Games in all, each setting's chunks counted once.")] = "1e9",
    seed: Annotated[int, typer.Option(help="Root seed: every trial plays chunk i from the same seed.")] = 0,
    name: Annotated[str, typer.Option(help="Variant name the best setting is written under.")] = "tuned",
    storage: Annotated[
        str | None, typer.Option(help="Optuna storage URL to share one study (default: study.db in --out).")
    ] = None,
    jobs: Jobs = None,
    out: Annotated[
        Path | None, typer.Option(parser=folder_option, help="Run folder (default: runs/GAME-tune).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress and no tables.")] = False,
    fresh: Fresh = False,
) -> None:
    """Search knob settings whose game metrics come closest to targets (Optuna; resumable; see README)."""
    use_variants_file(variants_file)
    with user_errors():
        from experiments import tune as tn

        module = get_game(game).module
        chosen = seats_from(module, policy, seats, players)
        fixed = parse_settings(settings or [])
        if seed < 0:
            raise UserError(f"--seed {seed} must be zero or positive")
        knobs = tuple(tn.parse_vary(game, text) for text in vary)
        defined = tn.defined_metrics(game, chosen, fixed, variant)
        targets = tuple(tn.parse_target(game, text, defined) for text in target)
        spec = tn.TuneSpec(
            game,
            chosen,
            knobs,
            targets,
            fixed,
            variant,
            seed,
            parse_count(n),
            chunk_size,
            trials,
            parse_count(max_games, "--max-games"),
        )
        folder = out or Path("runs") / f"{game}-tune"

        def say(row: dict[str, Any]) -> None:
            if not (quiet or as_json):
                shown = ", ".join(f"{k}={v}" for k, v in row["setting"].items())
                value = row["objective"]
                typer.echo(
                    f"trial {row['number']}: {shown}: {row['state']} after {row['chunks']} chunk(s)"
                    + (f", objective {value.value:.4g}" if value is not None else ""),
                    err=True,
                )

        result = tn.tune(spec, folder, jobs, storage, fresh, say)
        variant_file = folder / "variants.toml"
        from analysis.files import atomic_write

        atomic_write(variant_file, result.variant_text(name).encode())
    if as_json:
        from analysis.tables import json_ready

        typer.echo(json.dumps(json_ready({**tn.summary(result), "variants_file": str(variant_file)})))
    elif not quiet:
        print_tune_result(result, name, variant_file)


def print_tune_result(result: Any, name: str, variant_file: Path) -> None:
    """The best setting with every metric and its interval, the knobs' importances, and where files went."""
    from rich.console import Console

    from analysis import game_metrics

    console = Console(width=max(110, Console().width))
    best = result.best
    shown = ", ".join(f"{k}={v}" for k, v in best["setting"].items())
    objective = best["objective"]
    console.print(
        f"best setting (trial {best['trial']}, {best['games']:,} games): {shown}; objective "
        f"{objective['value']:.4g} [{objective['ci'][0]:.4g}, {objective['ci'][1]:.4g}]",
        highlight=False,
    )
    values = {k: game_metrics.Value(v["value"], *v["ci"]) for k, v in best["metrics"].items()}
    print_game_metrics(console, values)
    for knob, share in result.importances.items():
        console.print(f"importance of {knob}: {share:.2f}", highlight=False)
    console.print(
        f"{len(result.trials)} trials, {result.games_used:,} games; written: "
        f"{', '.join(str(p) for p in result.files)}; winner as variant '{name}' in {variant_file}",
        highlight=False,
    )


def _print_frame(frame: Any, title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for column in frame.columns:
        table.add_column(str(column))
    for row in frame.itertuples(index=False):
        table.add_row(*(f"{v:.4g}" if isinstance(v, float) else str(v) for v in row))
    Console(width=max(120, Console().width)).print(table)


@app.command("train")
def train_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    players: Annotated[int | None, typer.Option(help="Seats (default: the game's minimum).")] = None,
    settings: Annotated[list[str] | None, typer.Option("--set", help="knob=value (repeatable).")] = None,
    variant: Annotated[str | None, typer.Option(help="A named variant.")] = None,
    games: Annotated[
        str, typer.Option("--games", help="Self-play games (the default trains what `learned` plays).")
    ] = "60000",
    seed: Annotated[int, typer.Option(help="Root seed of the self-play chunks.")] = 0,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Processes.")] = 1,
    retrain: Annotated[bool, typer.Option("--retrain", help="Train even if the model is cached.")] = False,
    quiet: Quiet = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Train a game's learned model for one setting, or find it cached (`learned` seats use it)."""
    with user_errors():
        from experiments.train import train_model

        count = parse_count(games, "--games")
        with ProgressBar(count, enabled=not quiet and not as_json) as bar:
            knobs = parse_settings(settings or [])
            result = train_model(game, players, knobs, variant, count, seed, jobs, bar.advance, retrain)
        typer.echo(json.dumps(result.as_dict()) if as_json else f"{result.how}: {result.path} ({result.seconds:.1f} s)")


def main() -> None:
    """Entry point of the ``simulate`` script."""
    argv = sys.argv[1:]
    if argv and not argv[0].startswith("-") and argv[0] not in (*COMMANDS, *available_games()):
        typer.echo(
            f"error: unknown game or command '{argv[0]}'{core.did_you_mean(argv[0], [*available_games(), *COMMANDS])}",
            err=True,
        )
        raise SystemExit(2)
    try:
        code = run_app()
    except KeyboardInterrupt:  # outside the commands' own handling (the first moments)
        typer.echo("interrupted", err=True)
        code = 130
    finally:  # after bad options too: the exit should not wait for workers still loading libraries
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # leaving anyway: a second Ctrl-C must not print a traceback
        if "experiments.runner" in sys.modules:  # otherwise no pool was started
            sys.modules["experiments.runner"].stop_worker_pool()
    raise SystemExit(code)


def run_app() -> int:
    """Run the Typer app and return its exit code.

    A usage error (an unknown option, a value of the wrong type) becomes one line on stderr and exit code 2,
    like every other bad input, instead of click's boxed usage message.
    """
    usage_error = typer.BadParameter.__bases__[0]  # click's UsageError, wherever this typer keeps click
    try:
        code = app(standalone_mode=False)
    except usage_error as err:
        if type(err).__name__ == "NoArgsIsHelpError":  # a command given nothing: its help, as click shows it
            err.show()
            return err.exit_code
        hint = f" (see `{err.ctx.command_path} --help`)" if err.ctx is not None else ""
        typer.echo(f"error: {err.format_message()}{hint}", err=True)
        return 2
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("interrupted", err=True)
        return 130
    return code if isinstance(code, int) else 0


def start_workers(jobs: int) -> Any:
    """Start the run's ``jobs - 1`` loky workers (only once its options are checked) and return the pool.

    The workers boot and load the output libraries (see :func:`experiments.output.load_writer_libraries`) on
    the other cores while this process starts playing; the run then finds the same pool.
    """
    from experiments.output import load_writer_libraries
    from experiments.runner import worker_pool

    pool = worker_pool(jobs)
    pool.submit(load_writer_libraries)
    return pool

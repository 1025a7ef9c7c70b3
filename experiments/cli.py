"""`simulate`: the command line. Thin: it parses, calls library functions, and prints.

``simulate GAME [options]`` plays a game (one sub-command per registered game, generated from the registry);
the other commands are in :data:`COMMANDS`, one module each under :mod:`experiments.commands`. Heavy libraries
are imported inside the commands so that ``simulate --help`` answers at once. Bad input gets one line on stderr
and exit code 2.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from typing import Any

try:
    import typer

    from boardlab.engines import core, ignored_entry_points, registered_games
    from boardlab.experiments import interrupts
    from boardlab.experiments.commands import (
        compare,
        explain,
        exploit,
        game,
        ladder,
        listing,
        restrict,
        studies,
        train,
        tune,
    )
    from boardlab.experiments.playtest import commands as playtest
except KeyboardInterrupt:  # Ctrl-C while `simulate` is still loading: no traceback
    sys.stderr.write("interrupted\n")
    raise SystemExit(130) from None

app = typer.Typer(
    add_completion=True,  # `simulate --install-completion` (README: Shell completion)
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Play millions of seeded games of tabletop games and report what wins.",
)

COMMANDS: dict[str, Callable[..., Any]] = {
    "list": listing.list_command,
    "report": studies.report_command,
    "tournament": compare.tournament_command,
    "sweep": compare.sweep_command,
    "experiment": studies.experiment_command,
    "ladder": ladder.ladder_command,
    "restrict": restrict.restrict_command,
    "tune": tune.tune_command,
    "train": train.train_command,
    "exploit": exploit.exploit_command,
    "play": playtest.play_command,
    "review": playtest.review_command,
    "explain": explain.explain_command,
}
"""Every command but the per-game ones: name -> its function (a new command is one line here)."""


@app.callback()
def _each_command() -> None:
    """Say once per command which installed entry points were left out of the registry, and why."""
    for line in ignored_entry_points():
        typer.echo(line, err=True)


for _game in registered_games():
    app.command(name=_game, cls=game.GameCommand)(game.make_game_command(_game))
for _name, _command in COMMANDS.items():
    app.command(_name)(_command)


def main() -> None:
    """Entry point of the ``simulate`` script."""
    interrupts.install()  # SIGTERM (``timeout``, job schedulers) stops like Ctrl-C: cleanly, saying how to resume
    argv = sys.argv[1:]
    if argv and not argv[0].startswith("-") and argv[0] not in (*COMMANDS, *registered_games()):
        typer.echo(
            f"error: unknown game or command '{argv[0]}'{core.did_you_mean(argv[0], [*registered_games(), *COMMANDS])}",
            err=True,
        )
        raise SystemExit(2)
    try:
        code = run_app()
    except KeyboardInterrupt:  # outside the commands' own handling (the first moments)
        typer.echo("interrupted", err=True)
        code = 130
    finally:  # after bad options too: the exit should not wait for workers still loading libraries
        for stop in (signal.SIGINT, signal.SIGTERM):  # leaving anyway: a second signal must not print a traceback
            signal.signal(stop, signal.SIG_IGN)
        if "boardlab.experiments.run.loky" in sys.modules:  # otherwise no pool was started
            sys.modules["boardlab.experiments.run.loky"].stop_worker_pool()
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

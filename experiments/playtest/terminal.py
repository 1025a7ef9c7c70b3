"""The interactive session of ``simulate play``: a person's decisions read from the terminal, drawn with rich.

At a person's decision the screen shows what that seat sees (the game's ``words.view``) and its legal moves
numbered in the game's words; the answer is a move's number, ``?`` (rules), ``h`` (hints), ``u`` (take back to
the seat's previous decision, by replaying the game from its seed) or ``q`` (save and stop). Anything else gets
one line saying what is expected and the same question again. With several people at the table, a "pass the
device" screen stands between two different seats' decisions, so each sees only their own view.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from boardlab.experiments.playtest import hints, table
from boardlab.experiments.playtest.record import SavedGame

AI_PAUSE_S = 0.8  #: how long each policy move stays on screen before the next one (``--fast``: none)
KEYS = "a number, ? rules, h hints, u take back, q save and stop"


class TakeBack(Exception):
    """Replay the game up to decision ``index`` (exclusive) and ask again from there."""

    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.index = index


class Stop(Exception):
    """The person asked to save and stop."""


class Session:
    """One game at the terminal, saved to ``path`` after every decision of a person and at the end."""

    def __init__(
        self,
        record: SavedGame,
        path: Path,
        console: Console,
        fast: bool = False,
        show_hints: bool = False,
        hint_policy: str | None = None,
        hint_playouts: int | None = None,
    ) -> None:
        """Play ``record`` (possibly part-played) and keep it saved at ``path``."""
        self.record, self.path, self.console = record, path, console
        self.fast, self.show_hints = fast, show_hints
        self.hint_policy = hint_policy or record.setup.hint_policy()
        self.hint_playouts = hint_playouts or record.setup.hint_playouts()
        self.log = table.Log()
        self.facing: int | None = None  # the seat whose view is on screen

    @property
    def words(self) -> Any:
        """The game's words module."""
        return self.record.setup.words

    def run(self) -> table.Played | None:
        """Play until the game ends (returns it) or the person stops (returns ``None``); saved either way.

        The record is written before the first question (a file that cannot be written is refused then), after
        each of a person's answers, and on Ctrl-C or SIGTERM with every decision made so far.
        """
        setup = self.record.setup
        self.record.save(self.path)
        names = ", ".join(f"seat {i}: {s}" for i, s in enumerate(setup.seats))
        self.console.print(f"[bold]{setup.module.INFO.name}[/] (seed {setup.seed}; {names}). Type ? for the rules.")
        while True:
            self.log = table.Log()
            try:
                played = table.play(setup, self.record.decisions, self.live, self.log)
            except KeyboardInterrupt:
                self.keep_all()
                raise
            except TakeBack as back:
                self.record.decisions = self.log.decisions[: back.index]
                self.facing = None
                self.console.print("[yellow]Taken back.[/]")
                continue
            except Stop:
                self.keep_all()
                return None
            self.record.decisions, self.record.scores = played.decisions, played.scores
            self.record.save(self.path)
            self.show_end(played)
            return played

    def keep_all(self) -> None:
        """Save every decision made so far (a stop mid-replay keeps the record's own) and say how to go on."""
        if len(self.log.decisions) > len(self.record.decisions):
            self.record.decisions = list(self.log.decisions)
        self.record.save(self.path)
        path = escape(str(self.path))
        self.console.print(f"Saved to {path}; continue with: simulate play --resume {path}")

    def live(self, point: Any, seat: int, propose: Callable[[], np.ndarray], index: int) -> int:
        """Decision ``index``: a person's answer, or the seat policy's move, shown."""
        setup = self.record.setup
        moves = self.words.moves(point)
        if seat not in setup.humans:
            move = int(propose()[0])
            said = dict(moves)[move]
            self.console.print(f"  seat {seat} ({setup.seats[seat]}): {escape(said)}")
            if not self.fast:
                time.sleep(AI_PAUSE_S)
            return move
        self.face(seat)
        if len(moves) == 1:
            self.console.print(f"  seat {seat} (you): {escape(moves[0][1])} (the only move)")
            return moves[0][0]
        self.draw(point, moves)
        if self.show_hints and hints.searchable(point):
            self.print_hints(point, moves)
        return self.ask(point, seat, moves, index)

    def face(self, seat: int) -> None:
        """With several people at the table, hide the screen and hand it over before another seat's turn."""
        if len(self.record.setup.humans) > 1 and self.facing != seat:
            self.console.clear()
            self.console.print(Panel(f"Pass the device to seat {seat}, then press Enter.", title="hot seat"))
            self.read("")
            self.console.clear()
        self.facing = seat

    def draw(self, point: Any, moves: list[tuple[int, str]]) -> None:
        """What the seat sees, and its legal moves numbered from 1."""
        self.console.print(Panel(escape("\n".join(self.words.view(point))), expand=False))
        for number, (_, said) in enumerate(moves, 1):
            self.console.print(f"  [bold]{number}[/] {escape(said)}")

    def ask(self, point: Any, seat: int, moves: list[tuple[int, str]], index: int) -> int:
        """Read a move's number (or a key) until it is one."""
        question = f"Seat {seat}, your move [1-{len(moves)}]: "
        while True:
            answer = self.read(question).strip().lower()
            if answer.isdigit() and 1 <= int(answer) <= len(moves):
                move, said = moves[int(answer) - 1]
                self.save_progress(index, seat, move)
                self.console.print(f"  seat {seat} (you): {escape(said)}")
                return move
            if answer == "?":
                self.console.print(Panel(escape(self.words.RULES), title="rules (our summary)", expand=False))
                self.console.print(f"Keys: {KEYS}.")
            elif answer == "h" and not hints.searchable(point):
                self.console.print("No hints here: this choice has no look-ahead (see the rules, ?).")
            elif answer == "h":
                self.print_hints(point, moves)
            elif answer == "u":
                back = self.log.previous_choice(seat, index)
                if back is None:
                    self.console.print("Nothing to take back yet.")
                    continue
                raise TakeBack(back)
            elif answer == "q":
                raise Stop
            else:
                self.console.print(f"Not a move: type {KEYS} (moves 1-{len(moves)}).")

    def read(self, question: str) -> str:
        """One line from the person; the end of input saves and stops."""
        try:
            return self.console.input(question)
        except EOFError:
            raise Stop from None

    def save_progress(self, index: int, seat: int, move: int) -> None:
        """Save the record with the answer just given, decision ``index``, before the game goes on."""
        self.record.decisions = [*self.log.decisions[:index], (seat, move)]
        self.record.save(self.path)

    def print_hints(self, point: Any, moves: list[tuple[int, str]]) -> None:
        """Every legal move's chance to win for the seat, best first."""
        started = time.perf_counter()
        seats = self.record.setup.seating
        exact = hints.exact(point, seats) if self.hint_policy == self.record.setup.hint_policy() else None
        if exact is not None:
            estimate = hints.Estimate(np.flatnonzero(point.legal()[0]), np.zeros((0, 0)), exact)
        else:
            estimate = hints.evaluate(point, self.hint_policy, self.hint_playouts)
        grid = Table(title=f"chance to win ({self._source(estimate)}; {time.perf_counter() - started:.1f} s)")
        grid.add_column("#", justify="right")
        grid.add_column("move")
        grid.add_column("win", justify="right")
        grid.add_column("95% interval", justify="right")
        ranked = sorted(enumerate(moves, 1), key=lambda m: -estimate.chance(m[1][0])[0])
        for number, (move, said) in ranked:
            chance, half = estimate.chance(move)
            interval = "exact" if estimate.exact is not None else f"{chance - half:.1%} – {chance + half:.1%}"
            grid.add_row(str(number), escape(said), f"{chance:.1%}", interval)
        self.console.print(grid)

    def _source(self, estimate: hints.Estimate) -> str:
        if estimate.exact is not None:
            return "exact, both seats playing the 2-player solution"
        return f"{self.hint_playouts} playouts per move, {self.hint_policy} in every seat"

    def show_end(self, played: table.Played) -> None:
        """The final scores and the winners."""
        setup = self.record.setup
        label = setup.module.INFO.score_label
        lines = [
            f"seat {i} ({name}): {played.scores[i]:g} {label}{'  ← wins' * played.winners[i]}"
            for i, name in enumerate(setup.seats)
        ]
        if setup.module.INFO.cooperative:
            lines.append("The table wins together." if any(played.winners) else "The table loses together.")
        self.console.print(Panel(escape("\n".join(lines)), title="game over", expand=False))
        path = escape(str(self.path))
        self.console.print(f"Saved to {path}; review it with: simulate review {path}")

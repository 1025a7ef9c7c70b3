"""The review of a game: every decision of a seat, ranked by the chance to win it gave up.

Each decision with a choice is valued by :func:`~experiments.playtest.hints.evaluate`: the move made against the
strong player's move there, paired stream by stream, with a 95% interval; where the game gives exact values
(2-player base-game Pantolino, whose strong player is then ``win-optimal``) they value both moves instead, and
with another strong player the exact loss is printed beside the playouts'. A decision that beat the strong
player's move shows a negative loss. Each line shows the dice in view, where the game has dice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from boardlab.experiments.playtest import hints
from boardlab.experiments.playtest.setup import HUMAN, Setup
from boardlab.experiments.playtest.table import Observed


@dataclass(frozen=True)
class Verdict:
    """One reviewed decision: the move made and the strong player's, their chances, and what was given up."""

    turn: int
    seat: int
    who: str  #: "you" for a person's seat, else "seat N"
    made: str
    strong: str
    chance_made: float
    half_made: float
    chance_strong: float
    loss: float  #: paired estimate of the strong move's chance less the made move's
    loss_half: float
    exact_loss: float | None
    dice: str | None = None  #: the dice in view at the decision, where the game has them


def judge(setup: Setup, seen: Sequence[Observed], seats: set[int], policy: str, playouts: int) -> list[Verdict]:
    """The verdict on every decision with a choice of the given ``seats``, in the order they were made.

    Where the game gives exact values for the strong player's play (2-player base-game Pantolino, ``win-optimal``),
    they rank the decisions and no playout is played; elsewhere paired playouts do.
    """
    words, out = setup.words, []
    thrown = getattr(words, "thrown", None)  # the dice of a decision, where the game has dice in view
    for decision in seen:
        point = decision.point
        if decision.seat not in seats or point.legal()[0].sum() < 2 or not hints.searchable(point):
            continue
        said = dict(words.moves(point))
        strong = int(point.suggest(policy)[0])
        exact = hints.exact(point, setup.seating) if policy == setup.hint_policy() else None
        if exact is not None:
            chance_made, chance_strong = float(exact[decision.move]), float(exact[strong])
            half_made, loss, loss_half = 0.0, chance_strong - chance_made, 0.0
            exact_loss: float | None = loss
        else:
            estimate = hints.evaluate(point, policy, playouts, setup.seating)
            chance_made, half_made = estimate.estimated(decision.move)
            chance_strong, _ = estimate.estimated(strong)
            loss, loss_half = estimate.gain(strong, decision.move) if strong != decision.move else (0.0, 0.0)
            exact_loss = (
                None if estimate.exact is None else float(estimate.exact[strong] - estimate.exact[decision.move])
            )
        out.append(
            Verdict(
                words.turn(point),
                decision.seat,
                "you" if setup.seats[decision.seat] == HUMAN else f"seat {decision.seat}",
                said[decision.move],
                said[strong],
                chance_made,
                half_made,
                chance_strong,
                loss,
                loss_half,
                exact_loss,
                None if thrown is None else thrown(point),
            )
        )
    return out


def print_review(console: Console, verdicts: Sequence[Verdict], title: str, top: int = 10) -> None:
    """The decisions that differ from the strong player's, those that gave up most first; then a summary."""
    console.print(f"[bold]{title}[/]")
    ranked = sorted((v for v in verdicts if v.made != v.strong), key=lambda v: -v.loss)
    for rank, v in enumerate(ranked[:top], 1):
        if v.loss_half == 0 and v.exact_loss is not None:
            given_up = f"gave up {v.loss:.1%}, exact"
        else:
            given_up = f"gave up {v.loss:.1%}, 95% interval {v.loss - v.loss_half:.1%} to {v.loss + v.loss_half:.1%}"
            given_up += "" if v.exact_loss is None else f"; exact {v.exact_loss:.1%}"
        dice = "" if v.dice is None else f" (dice {v.dice})"
        line = (
            f"turn {v.turn}{dice}: {v.who} chose '{v.made}'; '{v.strong}' would have won {v.chance_strong:.0%} "
            f"instead of {v.chance_made:.0%} ({given_up})"
        )
        console.print(f"{rank:>3}. {escape(line)}")
    same = sum(v.made == v.strong for v in verdicts)
    mean = sum(v.loss for v in verdicts) / max(len(verdicts), 1)
    console.print(
        f"summary: {len(verdicts)} decisions with a choice; {same} matched the strong player's move; "
        f"chance to win given up: {mean:.1%} per decision on average, "
        f"{max((v.loss for v in verdicts), default=0):.1%} at most"
    )


def save_chart(path: Path, verdicts: Sequence[Verdict], seat: int, title: str, strong_label: str) -> bool:
    """Write the PNG of ``seat``'s chance to win over the game; ``False`` when it made no decision with a choice."""
    from boardlab.analysis.playtest_figure import chance_over_game

    own = [v for v in verdicts if v.seat == seat]
    if not own:
        return False
    fig = chance_over_game(
        list(range(1, len(own) + 1)),
        [v.chance_made for v in own],
        [max(0.0, v.chance_made - v.half_made) for v in own],
        [min(1.0, v.chance_made + v.half_made) for v in own],
        [v.chance_strong for v in own],
        title,
        strong_label,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return True

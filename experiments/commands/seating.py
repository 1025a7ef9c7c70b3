"""Who plays a game run, in words: the players line, the mixed-seats note, and ``--rotate``'s seat-averaged shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from boardlab.engines.record import default_policy


def players_line(module: Any, seats: Sequence[str], implicit: bool) -> str:
    """``players: …`` naming the seats' policies and the game's default (and why, when it was used)."""
    default, why = default_policy(module)
    shown = f"{seats[0]} in every seat" if len(set(seats)) == 1 else ", ".join(seats)
    if implicit:
        return f"players: {shown}, this game's default — {why}; choose others with --policy/--seats"
    return f"players: {shown} (this game's default: {default}; choose with --policy/--seats)"


def mixed_note(game: str, seats: Sequence[str]) -> str | None:
    """One line when different policies sit in fixed seats: a seat's edge and a policy's are mixed."""
    if len(set(seats)) < 2:
        return None
    policies = ",".join(dict.fromkeys(seats))
    return (
        "note: each policy played only its own seat, so a seat's edge and a policy's strength are mixed here; "
        f"to compare the policies, add --rotate or run `simulate tournament {game} --policies {policies}`"
    )


def averaged(results: Sequence[Any]) -> list[dict[str, Any]]:
    """Each policy's win share over every seat it played in every seating, with a 95% interval."""
    from boardlab.analysis import stats

    cells: dict[str, list[tuple[float, int]]] = {}
    for result in results:
        for row in result.seat_rows():
            cells.setdefault(row["policy"], []).append((row["win_rate"], row["games"]))
    out = []
    for policy, seen in cells.items():
        share = sum(rate for rate, _ in seen) / len(seen)
        games = sum(n for _, n in seen)
        low, high = stats.wilson(round(share * games), games)
        out.append({"policy": policy, "win_rate": share, "win_rate_ci": [float(low), float(high)], "games": games})
    return out


def print_rotated(results: Sequence[Any]) -> None:
    """Each seating's win rates on one line, then each policy's seat-averaged share."""
    from rich.console import Console
    from rich.table import Table

    from boardlab.analysis.tables import format_interval

    console = Console(width=max(110, Console().width))
    for k, result in enumerate(results):
        rates = ", ".join(f"seat {r['seat']} {r['policy']} {100 * r['win_rate']:.2f}%" for r in result.seat_rows())
        console.print(f"seating {k + 1} ({result.summary.n_games:,} games): {rates}", highlight=False)
    table = Table(title=f"each policy over every seat ({len(results)} seatings, the same seed in each)")
    for column in ("policy", "win rate, averaged over seats (95% interval)", "fair share"):
        table.add_column(column)
    fair = 1 / results[0].summary.players
    for row in averaged(results):
        table.add_row(row["policy"], format_interval(row["win_rate"], *row["win_rate_ci"], True), f"{100 * fair:.1f}%")
    console.print(table)

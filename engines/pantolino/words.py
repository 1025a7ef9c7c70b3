"""Pantolino in words: what the deciding seat sees, and each legal move, for a person playing in a terminal.

Nothing is hidden in Pantolino, so the view is the whole table: the supply, every centipede, the dice and the
rolls left. Plain strings only (the terminal layer decides how they look).
"""

from __future__ import annotations

import numpy as np

from engines.pantolino.decisions import KEEP, Point
from engines.pantolino.rules import SUPPLY, Params, token_colour, token_value

COLOURS = ("yellow", "red", "green", "blue", "black", "white", "orange", "purple")

RULES = """\
Pantolino, in our words.
Each turn you throw all the dice, then up to two more times you may set any dice aside and throw the rest again
(dice set aside before may be thrown again; keep every die to throw none). Count each colour as the dice
showing it plus the jokers, which count for every colour. Take one token from the supply whose colour count is at
least its number of boots, or nothing if none fits. When the supply is empty, most boots wins; equal boots go to
the most boots in a single colour.
Escaping boots (a variant): you may instead take a fitting token from an opponent's centipede (only the one they
added last, unless the variant says any)."""


def colour_name(colour: int) -> str:
    """The name of boot colour ``colour``."""
    return COLOURS[colour] if colour < len(COLOURS) else f"colour {colour + 1}"


def dice_words(counts: np.ndarray, colours: int) -> list[str]:
    """One word per die of a multiset's category counts (colours, then jokers)."""
    words = []
    for category, count in enumerate(counts.tolist()):
        name = "joker" if category == colours else colour_name(category)
        words += [name] * int(count)
    return words


def token_name(params: Params, token: int) -> str:
    """``"yellow 3"``."""
    return f"{colour_name(int(token_colour(params)[token]))} {int(token_value(params)[token])}"


def view(point: Point, row: int = 0) -> list[str]:
    """What the mover of ``row`` sees: scores, centipedes, supply, the dice and the rolls left."""
    params, tables = point.params, point.params.tables
    owner = point.state.owner[row]
    boots = point.turn().boots[row]
    mover = int(point.seat[row])
    lines = [f"Turn {int(point.state.turn[row]) + 1}: seat {mover} to play."]
    colour, value = token_colour(params), token_value(params)
    supply = []
    for c in range(params.colours):
        left = sorted(int(value[t]) for t in range(params.n_tokens) if owner[t] == SUPPLY and colour[t] == c)
        if left:
            supply.append(f"{colour_name(c)} {' '.join(map(str, left))}")
    lines.append("Supply: " + ("; ".join(supply) if supply else "empty"))
    for seat in range(point.players):
        held = [token_name(params, t) for t in np.argsort(point.state.taken_at[row]) if owner[t] == seat]
        you = " (you)" if seat == mover else ""
        lines.append(f"Seat {seat}{you}: {int(boots[seat])} boots  [{', '.join(held) or 'no tokens'}]")
    code = point.dice[row] if point.stage == KEEP else tables.codes[tables.full[point.dice[row]]]
    lines.append("Dice: " + ", ".join(dice_words(tables.counts_by_code[code], params.colours)))
    if point.stage == KEEP:
        left = point.rolls_left
        lines.append(f"{left} throw{'s' * (left > 1)} left this turn.")
    return lines


def moves(point: Point, row: int = 0) -> list[tuple[int, str]]:
    """Every legal candidate of ``row`` and its words, in candidate order."""
    params, tables = point.params, point.params.tables
    legal = np.flatnonzero(point.legal()[row])
    if point.stage == KEEP:
        options = point.keep_options()[row]
        out = []
        for j in legal.tolist():
            kept = tables.counts_by_code[tables.codes[options[j]]]
            rolled = params.dice - int(kept.sum())
            if rolled == 0:
                last = point.rolls_left == 1
                out.append((j, "stop: keep all the dice" if last else "keep all the dice (throw none now)"))
                continue
            kept_words = ", ".join(dice_words(kept, params.colours))
            again = "reroll 1 die" if rolled == 1 else f"reroll {rolled} dice"
            out.append((j, f"keep {kept_words} and {again}" if kept_words else f"reroll all {rolled} dice"))
        return out
    owner = point.state.owner[row]
    out = []
    for t in legal.tolist():
        if t == params.n_tokens:
            out.append((t, "take nothing (no token fits)"))
        elif owner[t] >= 0:
            out.append((t, f"take the {token_name(params, t)} from seat {int(owner[t])}"))
        else:
            out.append((t, f"take the {token_name(params, t)}"))
    return out


def turn(point: Point, row: int = 0) -> int:
    """The number of the turn of ``row``'s decision, counted from 1."""
    return int(point.state.turn[row]) + 1

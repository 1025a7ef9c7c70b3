"""Pantolino in words: what the deciding seat sees, and each legal move, for a person playing in a terminal.

Nothing is hidden in Pantolino, so the view is the whole table: the supply, every centipede, the dice and the
rolls left. Plain strings only (the terminal layer decides how they look).
"""

from __future__ import annotations

import numpy as np

from boardlab.engines.pantolino.decisions import KEEP, Point
from boardlab.engines.pantolino.rules import SUPPLY, Params, tie_possible, token_colour, token_value

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
    params = point.params
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
    lines.append("Dice: " + thrown(point, row))
    if point.stage == KEEP:
        left = point.rolls_left
        lines.append(f"{left} throw{'s' * (left > 1)} left this turn.")
    return lines


def thrown(point: Point, row: int = 0) -> str:
    """The dice in front of the mover of ``row``: ``"red, red, joker, blue"``."""
    tables = point.params.tables
    code = point.dice[row] if point.stage == KEEP else tables.codes[tables.full[point.dice[row]]]
    return ", ".join(dice_words(tables.counts_by_code[code], point.params.colours))


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


AIMS = {
    "turn-optimal": "maximises this turn's token alone",
    "greedy": "looks one throw ahead for this turn's token",
    "keep-jokers": "keeps its most common colour and every joker",
    "reroll-jokers": "keeps its most common colour and rerolls every joker",
    "random": "keeps and takes at random",
}
"""What each heuristic's keep aims at, completing "turn-optimal …" (the shared token rule is worded apart)."""


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def _situation(point: Point, row: int) -> str:
    """``"Seat 1 trails by 4 boots with 3 tokens (9 boots) left and needs 7 of them to finish ahead"``."""
    params, mover = point.params, int(point.seat[row])
    boots = point.turn().boots[row]
    lead = int(boots[mover]) - max(int(b) for s, b in enumerate(boots) if s != mover)
    value = token_value(params)
    left = [int(value[t]) for t in range(params.n_tokens) if point.state.owner[row, t] == SUPPLY]
    total = sum(left)
    standing = (
        f"leads by {_plural(lead, 'boot')}"
        if lead > 0
        else f"trails by {_plural(-lead, 'boot')}"
        if lead < 0
        else "is level"
    )
    need = (total - lead) // 2 + 1  # more than the rival's share of what is left (2 players: exact; more: the leader)
    wants = (
        "is sure to finish ahead on boots"
        if need <= 0
        else "can no longer finish ahead on boots"
        if need > total
        else f"needs {need} of them to finish ahead"
    )
    return f"Seat {mover} {standing} with {_plural(len(left), 'token')} ({total} boots) left in the supply and {wants}"


def _keep_phrase(point: Point, kept: np.ndarray, row: int) -> str:
    """``"keeps red, joker (going for the red 4)"``, ``"rerolls all 4 dice"`` or ``"stops"``."""
    params = point.params
    if int(kept.sum()) == params.dice:
        return "stops" if point.rolls_left == 1 else "keeps all the dice"
    if not kept.any():
        return f"rerolls all {params.dice} dice"
    phrase = f"keeps {', '.join(dice_words(kept, params.colours))}"
    colours = kept[: params.colours]
    if colours.max() == 0 or (colours == colours.max()).sum() > 1:
        return phrase
    colour = int(colours.argmax())
    in_supply = (point.state.owner[row] == SUPPLY) & (token_colour(params) == colour)
    left = token_value(params)[in_supply]
    return f"{phrase} (going for the {colour_name(colour)} {int(left.max())})" if len(left) else phrase


def _best_colour(point: Point, row: int, token: int) -> int:
    """The mover's most boots in one colour after taking ``token`` (what breaks a tie on boots)."""
    params, mover = point.params, int(point.seat[row])
    held = (point.state.owner[row] == mover) | (np.arange(params.n_tokens) == token)
    per_colour = np.bincount(token_colour(params)[held], token_value(params)[held], minlength=params.colours)
    return int(per_colour.max())


def explain(point: Point, strong: int, heuristic: int, name: str, row: int = 0) -> str:
    """One sentence on what the strong move knows that heuristic ``name``'s does not, in Pantolino's terms."""
    situation = _situation(point, row)
    if point.stage == KEEP:
        aim = AIMS.get(name, "follows its own rule")
        tables, options = point.params.tables, point.keep_options()[row]
        kept = [_keep_phrase(point, tables.counts_by_code[tables.codes[options[m]]], row) for m in (strong, heuristic)]
        difference = f"{kept[0]} where {name} {kept[1]}"
        return f"{situation}: the strong move {difference}; {name} {aim}, whatever the score and the tokens left."
    said = dict(moves(point, row))
    takes = [said[m].replace("take ", "takes ", 1) for m in (strong, heuristic)]
    value = token_value(point.params)
    boots = [int(value[m]) if m < point.params.n_tokens else 0 for m in (strong, heuristic)]
    if boots[0] == boots[1]:
        colour = [_best_colour(point, row, m) for m in (strong, heuristic)]
        why = (
            f"both are {boots[0]} boots, but it makes {colour[0]} boots in one colour against {colour[1]}, "
            "and equal boots go to the most in one colour"
            if colour[0] != colour[1] and tie_possible(point.params, point.players)
            else f"both are {boots[0]} boots; what differs is the tokens left for the rival"
        )
    else:
        why = (
            f"it takes {boots[0]} boots rather than {boots[1]}, weighing which tokens stay for the rest of the game, "
            f"where {name} takes the largest lead this turn"
        )
    return f"{situation}: the strong move {takes[0]} where {name} {takes[1]}; {why}."

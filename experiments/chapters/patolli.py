"""The Patolli report: who wins, how games end, and what the contested readings of the rulebook change.

Pages: first player, policies, marker placement, bankruptcy, game length, the contested readings, starting
tokens, the skill ladder, balance by skill, balance, which choices matter and whether a strategy dominates
(restricted play: :mod:`experiments.chapters.choices`). Every arm is played from the same seed (common random
numbers across arms). Unless a page says otherwise both seats play ``balanced`` (no heuristic beats it detectably), the
markers are placed by the players (the heuristics' rule) and the first player is chosen by the rulebook's die
roll-off; the per-game flag ``first_won`` gives the first player's win rate in every arm. Strong play is the
learned player (it beats the expert: engines/patolli/README.md): the headline pages, the readings, the starting
purses and the balance page play it against itself on as many games and state its figure beside the
heuristic's, saying where it differs. Every page quoting it checks it by cross-play
(:mod:`experiments.chapters.crossplay`): the same figure with two experts beside it (the first-player page also
learned against the expert in both seatings; the other readings on fewer games); a title states a seat edge only
where both strong players show it. The front page quotes learned's strength from the report's own games.
"""

from __future__ import annotations

import functools
import itertools
import textwrap
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sp

from boardlab.analysis import plots, stats
from boardlab.analysis.book import Page
from boardlab.analysis.panels import Panel, around, figure
from boardlab.analysis.tables import cell, estimate, mean
from boardlab.analysis.wording import p_value, pct
from boardlab.engines.patolli import INFO, POLICIES, Params
from boardlab.engines.patolli.rules import ALL_FINISHED, BANKRUPT, CAPPED
from boardlab.experiments import ladder as lad
from boardlab.experiments.chapters import crossplay, skill
from boardlab.experiments.chapters.common import Front, Plan, Question, knobs_line, proportion, seat_share
from boardlab.experiments.chapters.flow import Done
from boardlab.experiments.run import RunResult

POLICY_ORDER = ["balanced", "home-stretch", "cautious", "aggressive", "runner", "random"]
REFERENCE = "balanced"
STRONG = "learned"  # strong play: the learned player in both seats, on as many games (its models here ship)
STRONG_RULES = ("base rules", "free overshoot", "grey safe")  # the readings also played learned against learned
SELF_PLAY = [STRONG, *POLICY_ORDER]
# marker layouts: label -> knob settings (seat 0 starts on square 12, seat 1 on 38; 13 and 14 follow seat 0's
# start, 39 and 40 follow seat 1's); the test layout is the same for both seats up to the half-turn of the board
LAYOUTS: dict[str, tuple[tuple[str, str], ...]] = {
    "players' rule": (),
    "random per game": (("marker_placement", "random"),),
    "test layout": (("safe_squares", "3,29"), ("bad_luck_squares", "16,42")),
    "safe by seat 0": (("safe_squares", "13,14"),),
    "bad luck by seat 0": (("bad_luck_squares", "13,14"),),
    "safe by 0, bad luck by 1": (("safe_squares", "13,14"), ("bad_luck_squares", "39,40")),
    "bad luck by 0, safe by 1": (("bad_luck_squares", "13,14"), ("safe_squares", "39,40")),
}
LAYOUT_TEXT = {  # the other layouts, as a title names them
    "random per game": "markers drawn at random",
    "test layout": "the test layout",
    "safe by seat 0": "safe squares just after seat 0's start",
    "bad luck by seat 0": "bad luck squares just after seat 0's start",
    "safe by 0, bad luck by 1": "safe squares after seat 0's start, bad luck after seat 1's",
    "bad luck by 0, safe by 1": "bad luck after seat 0's start, safe squares after seat 1's",
}
RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "base rules": (),
    "free overshoot": (("overshoot_pays", "false"),),
    "grey safe": (("grey_safe", "true"),),
    "grey extra always": (("grey_extra", "always"),),
    "restricted markers": (("marker_squares", "restricted"),),
    "exit overshoot": (("exit_overshoot", "true"),),
    "pay when empty": (("pay_when_empty", "true"),),
}
RULE_TEXT = {
    "free overshoot": "a roll too high to finish is skipped free (the rulebook's too-high sentence read alone)",
    "grey safe": "a button on a grey corner cannot be captured ('safe from penalties' read as safe from capture)",
    "grey extra always": "the grey corner's extra move is always taken (the rulebook: 'may')",
    "restricted markers": "markers kept off grey corners and start squares (this engine up to version 2)",
    "exit overshoot": "a button may leave the track with a roll larger than needed",
    "pay when empty": "a lost roll costs a token even with no button on the track",
}
TOKENS = (5, 10, 15, 20, 30, 40)
CAUSES = {"paid_skip": "lost roll", "paid_capture": "captured", "paid_bad_luck": "bad luck"}
LENGTH_BIN = 10
NBSP = "\u00a0"  # turns per bin of the length distribution
SLANTED = {"labelsize": 7, "rotation": 30}  # the readings' crowded policy names
BOTH = "both seats play"  # the column, axis and legend naming the policy of a self-play arm


def _h2h(a: str, b: str) -> str:
    return f"h2h {a} {b}"


def _layout(name: str) -> str:
    return _h2h(REFERENCE, REFERENCE) if name == "players' rule" else f"markers {name}"


def _rule(name: str, policy: str) -> str:
    return _h2h(policy, policy) if name == "base rules" else f"rules {name} {policy}"


def _tokens(count: int) -> str:
    return _h2h(REFERENCE, REFERENCE) if count == Params().tokens else f"tokens {count}"


def _two(policy: str) -> str:
    """``"two learned players"``: both seats' policy, in words."""
    return f"two {policy} players"


def _strong_play(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Each policy against itself under the base rules, and the strong arm again under the second strong player."""
    for policy in SELF_PLAY:
        plan.add(_h2h(policy, policy), [policy] * 2, n, seed, chunk)
    crossplay.add_arms(plan, [STRONG] * 2, n, seed, chunk)


def _with_second(results: dict[str, RunResult], settings: tuple[tuple[str, str], ...] = ()) -> list[tuple[str, Any]]:
    """``(policy, summary)`` of each policy against itself, then the second strong player's where it was played."""
    played = [(p, results[_h2h(p, p)].summary) for p in SELF_PLAY]
    cross = crossplay.result_of(results, "patolli", [STRONG] * 2, settings)
    return played + ([(str(crossplay.second("patolli")), cross.summary)] if cross is not None else [])


def _strong(played: list[tuple[str, Any]], measure: Any) -> list[crossplay.Figure]:
    """``measure(summary) -> (value, low, high)`` between two strong players of each kind (learned first)."""
    kinds = [STRONG, *(p for p, _ in played if p not in SELF_PLAY)]
    return [crossplay.Figure(f"between {_two(p)}", *measure(s), s.n_games) for p in kinds for q, s in played if q == p]


def _tournament(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Every ordered pair of heuristics."""
    for a, b in itertools.product(POLICY_ORDER, repeat=2):
        plan.add(_h2h(a, b), [a, b], n, seed, chunk)


def _layouts(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Every marker layout, ``REFERENCE`` against itself."""
    for name, knobs in LAYOUTS.items():
        plan.add(_layout(name), [REFERENCE] * 2, n, seed, chunk, settings=knobs)


def _readings(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Every contested reading, each policy against itself."""
    for name, knobs in RULES.items():
        for policy in POLICY_ORDER:
            plan.add(_rule(name, policy), [policy] * 2, n, seed, chunk, settings=knobs)
    for name in STRONG_RULES:
        plan.add(_rule(name, STRONG), [STRONG] * 2, n, seed, chunk, settings=RULES[name])
        fewer = 1 if name == "base rules" else crossplay.FEWER  # the base rules' cross arm is the headline's
        crossplay.add_arms(plan, [STRONG] * 2, n, seed, chunk, settings=RULES[name], check=crossplay.Check(fewer=fewer))


def _purses(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Every starting purse, ``REFERENCE`` against itself."""
    for count in TOKENS:
        knobs = () if count == Params().tokens else (("tokens", str(count)),)
        plan.add(_tokens(count), [REFERENCE] * 2, n, seed, chunk, settings=knobs)


def questions(n: int, seed: int, chunk: int) -> list[Question]:
    """The chapter's own questions, in page order."""
    return [
        Question("first player", _first_player_arms, first_player_page),
        Question("policies", _tournament, policies_page),
        Question("markers", _layouts, markers_page),
        Question("bankruptcy", _strong_play, bankruptcy_page),
        Question("length", _strong_play, length_page),
        Question("readings", _readings, variants_page),
        Question("tokens", _purses, tokens_page),
    ]


HEADING = "Patolli: who wins, and how games end"


def front(done: Done) -> Front:
    """The chapter's own front-page lines (learned's strength from the report's own games)."""
    return Front(
        game=(
            f"Patolli (engine version {INFO.version}); 2 players race 6 buttons round a 52-square cross-shaped "
            "track with one die; captures, bad-luck squares and lost rolls cost tokens; finishing every button "
            "or emptying the opponent's purse (10 tokens) wins."
        ),
        knobs=knobs_line(Params()),
        policies="; ".join(f"{p.name}: {p.description.rstrip('.')}" for p in POLICIES.values()) + ".",
        arms=(
            f"{len(POLICY_ORDER) ** 2} tournament arms (every ordered pair of heuristics, both seatings, and each "
            f"against itself); {len(LAYOUTS) - 1} other marker layouts ({REFERENCE} against {REFERENCE}); "
            f"{len(RULES) - 1} contested readings and rule variants for each heuristic against itself, "
            f"{len(STRONG_RULES) - 1} of them for {STRONG} too; {len(TOKENS) - 1} other starting purses; the skill "
            f"ladder; the balance page; restricted play ({STRONG} under each restriction, and each heuristic, alone "
            f"against {STRONG})."
        ),
        games=done.games_line(f"{done.planned.n_games:,} per arm"),
        reading=(
            f"Every rate is given with its 95% interval (Wilson for proportions, normal for means). Unless a page "
            f"says otherwise both players follow {REFERENCE} (no heuristic beats it detectably), the markers are "
            "placed by the players (each heuristic: safe markers just before its own home, bad luck just before the "
            "opponent's) and the first player is chosen by a die roll-off: each probability assumes the policies "
            f"named beside it. Strong play: '{STRONG}', the value network of engines/patolli, the strongest player "
            f"here ({_strength(done.played.results)}), beside balanced on the pages of the default rules and on the "
            "readings its models ship for; a title says where strong play changes the answer."
        ),
    )


def _strength(results: dict[str, RunResult]) -> str:
    """How strong ``learned`` measured in this report's own games: against the expert and against balanced."""
    parts = []
    other = crossplay.second("patolli")
    mixed = [results.get(crossplay.label(seating)) for seating in crossplay.mixed(other)] if other else []
    if mixed and all(r is not None for r in mixed):
        wins, games = stats.head_to_head(*(r.summary for r in mixed))  # learned in seat 0, then in seat 1
        parts.append(f"it wins {pct(*proportion(wins, games))} of {games:,} games against {other}, both seatings")
    arms = [arm for arm in skill.ladder_arms("patolli", 1, 0, 1)[2] if {arm[0], arm[1]} == {STRONG, REFERENCE}]
    if arms and all(arm[-1].label in results for arm in arms):
        for row in lad.pairs_table(arms, results).itertuples():
            won = row.points if row.policy == STRONG else row.games - row.points
            parts.append(f"{pct(*proportion(round(won), int(row.games)))} of {int(row.games):,} against {REFERENCE}")
    return "; ".join(parts) + " in this report's games" if parts else "its strength is measured on the skill page"


def _fit(title: str, width: int = 84) -> str:
    """The title with the spaces inside each line of a ``width``-wide wrap made non-breaking.

    The report wraps titles at 95 characters, which is wider than the page for bold text full of digits; gluing
    each line of a narrower wrap keeps every line on the page (titles avoid hyphens, where the report's wrap
    may still break). Headlines keep the plain title.
    """
    lines = textwrap.wrap(title, width, break_on_hyphens=False)
    return " ".join(line.replace(" ", NBSP) for line in lines)


def _first(s: Any) -> tuple[float, float, float]:
    """The first player's win rate (games won alone by the seat that moved first)."""
    return proportion(int(s.sums["first_won"]), s.n_games)


def _reason(s: Any, which: int) -> tuple[float, float, float]:
    return proportion(int(s.sums["win_reason"][which]), s.n_games)


def _bars(hue: str, rates: dict[str, tuple[float, float, float]], **keys: str) -> list[dict[str, Any]]:
    """A figure's rows for ``keys``: one per rate of ``rates``, named in column ``hue``, as the column ``rate``."""
    return [{**keys, hue: name, **estimate("rate", r)} for name, r in rates.items()]


def _shares(bars: list[dict[str, Any]], x: str, xlabel: str, ylim: tuple[float, float], **ticks: Any) -> Any:
    """The ``draw`` of one panel of win rates by ``x`` against a fair 50%, its y axis holding ``ylim``."""
    frame = pd.DataFrame(bars)
    ylim = around(frame, "rate", *ylim)
    return figure(Panel(frame, x, "rate", "who", "win rate (fraction)", xlabel, 0.5, ylim=ylim, ticks=ticks))


def _p_half(rate: float, n: int) -> float:
    """Two-sided p-value that a rate measured on ``n`` games is 50%."""
    return float(2 * sp.norm.sf(abs(rate - 0.5) / np.sqrt(0.25 / n)))


# --- 1. first-player advantage --------------------------------------------------------------------------------


def _first_player_arms(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """:func:`_strong_play`'s arms, and the second strong player against learned in both seatings (cross-play)."""
    _strong_play(plan, n, seed, chunk)
    crossplay.add_arms(plan, [STRONG] * 2, n, seed, chunk, check=crossplay.Check(with_mixed=True))


def _mixed(results: dict[str, RunResult]) -> list[str]:
    """The learned player against the second strong player in each seating: its share of the wins, with interval."""
    other = crossplay.second("patolli")
    shown = []
    for seating in crossplay.mixed(other) if other else ():
        if (label := crossplay.label(seating)) in results:
            s = results[label].summary
            won = pct(*proportion(int(s.wins[seating.index(STRONG)]), s.n_games))
            shown.append(f"{seating[0]} (seat 0) against {seating[1]} (seat 1): {STRONG} wins {won} of {s.n_games:,}")
    return shown


def first_player_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """The first player's and seat 0's win rate, each policy against itself; strong play checked by cross-play."""
    bars, rows = [], []
    played = _with_second(results)
    for p, s in played:
        first, seat0 = _first(s), seat_share(s)
        bars += _bars("who", {"first player": first, "seat 0": seat0}, policy=p)
        rows.append(
            {
                BOTH: p,
                "games": f"{s.n_games:,}",
                "first player wins": pct(*first),
                "p (first = 50%)": p_value(_p_half(first[0], s.n_games)),
                "seat 0 wins": pct(*seat0),
                "p (seat 0 = 50%)": p_value(_p_half(seat0[0], s.n_games)),
            }
        )
    rate, low, high = _first(results[_h2h(REFERENCE, REFERENCE)].summary)
    title = f"The first player wins {pct(rate, low, high)} of games between two {REFERENCE} players"
    if low <= 0.5 <= high:
        title += ": the first player has no detectable advantage (a fair share is 50%)"
    else:
        edge = 100 * (rate - 0.5)
        title += f", {abs(edge):.1f} points {'above' if edge > 0 else 'below'} a fair 50%"
    strong = {who: _strong(played, measure) for who, measure in (("the first player", _first), ("seat 0", seat_share))}
    claims = [crossplay.claim(f"{who}'s share", figures, crossplay.even_share(who)) for who, figures in strong.items()]
    title += "; under strong play " + "; ".join(claims)
    notes = [
        "Each policy against itself, markers placed by the players, the first player chosen by a die roll-off. "
        "'first player': games won by the seat that moved first; 'seat 0': games won by the seat starting on "
        "square 12 (a check on the board's symmetry, and on the marker order: ours, safe markers from seat 0, "
        "bad-luck markers from seat 1, so seat 0 places the last). Dashed line: a fair share. p: two-sided z-test "
        f"against 50%. With {REFERENCE}'s markers in both seats two {STRONG} players split the games evenly "
        "(engines/patolli/README.md): their seat-0 edge is in the markers the model places.",
        crossplay.note(strong["seat 0"], crossplay.even_share("seat 0")),
    ]
    if mixed := _mixed(results):
        notes.append(
            f"Mixed seatings ({STRONG} against {crossplay.second('patolli')}): {'; '.join(mixed)}. A seat edge of "
            f"the game would show in both seatings; an edge only {STRONG} against itself shows is how its model "
            "answers its own marker play."
        )
    return Page(_fit(title), _shares(bars, "policy", BOTH, (0.4, 0.6)), pd.DataFrame(rows), notes), title


# --- 2. policy tournament -----------------------------------------------------------------------------------------


def _pair(results: dict[str, RunResult], a: str, b: str) -> tuple[int, int]:
    """Games ``a`` won alone against ``b`` over both seatings, and games played."""
    return stats.head_to_head(results[_h2h(a, b)].summary, results[_h2h(b, a)].summary)


def policies_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """Every pair of policies, both seatings: the win-rate matrix and each policy's record."""
    matrix = pd.DataFrame(np.nan, index=POLICY_ORDER, columns=POLICY_ORDER)
    totals = {p: {"wins": 0, "n": 0, "score": 0.0, "captures": 0.0, "paid": 0.0, "lost": 0.0} for p in POLICY_ORDER}
    pairs = [(a, b) for a, b in itertools.product(POLICY_ORDER, repeat=2) if a != b]
    for a, b in pairs:
        wins, n = _pair(results, a, b)
        matrix.loc[a, b] = wins / n
        t = totals[a]
        t["wins"] += wins
        t["n"] += n
        for s, seat in ((results[_h2h(a, b)].summary, 0), (results[_h2h(b, a)].summary, 1)):
            t["score"] += float(s.score_sum[seat])
            t["captures"] += float(s.sums["captures"][seat])
            t["paid"] += float(sum(s.sums[c][seat] for c in CAUSES))
            t["lost"] += float(s.sums["paid_skip"][seat])
    ranked = sorted(POLICY_ORDER, key=lambda p: totals[p]["wins"] / totals[p]["n"], reverse=True)
    best, second = ranked[0], ranked[1]
    close, n_pair = _pair(results, best, second)
    title = (
        f"{best} is the strongest policy: it wins {pct(*proportion(totals[best]['wins'], totals[best]['n']))} of its "
        f"games head to head and {pct(*proportion(close, n_pair))} against the runner-up, {second}"
    )
    rows = []
    for p in ranked:
        t = totals[p]
        worst = min((b for b in POLICY_ORDER if b != p), key=lambda b: matrix.loc[p, b])
        rows.append(
            {
                "policy": p,
                "win rate vs the other four": pct(*proportion(t["wins"], t["n"])),
                "weakest against": f"{worst} ({100 * matrix.loc[p, worst]:.1f}%)",
                "buttons finished/game": f"{t['score'] / t['n']:.2f}",
                "captures/game": f"{t['captures'] / t['n']:.2f}",
                "tokens paid/game": f"{t['paid'] / t['n']:.2f}",
                "of which lost rolls": f"{t['lost'] / t['n']:.2f}",
            }
        )
    half = max(float(stats.wilson_half_width(*_pair(results, a, b))) for a, b in pairs)
    notes = [
        f"Win rate of the row policy against the column policy over both seatings ({n_pair:,} games per pair, "
        f"first player by roll-off, markers at random); every cell is within ±{100 * half:.1f} points (95%). "
        "Table: each policy's record over its 8 arms against the other four, per game of its own seat. runner, "
        "aggressive and cautious enter a button whenever a 1 allows it (since engine version 2; before, they "
        "entered only when nothing else could move, kept few buttons on the track and lost to random)."
    ]
    draw = functools.partial(plots.heatmap, matrix, "win rate of row policy")  # draw(fig): the heatmap on fig
    return Page(_fit(title), draw, pd.DataFrame(rows), notes), title


# --- 3. marker placement ------------------------------------------------------------------------------------------


def _squares(knobs: tuple[tuple[str, str], ...], name: str) -> str:
    """The fixed squares of marker kind ``name`` in a layout, or who places them."""
    placed = "random" if ("marker_placement", "random") in knobs else "players"
    return next((v.replace(",", ", ") for k, v in knobs if k == name), placed)


def markers_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """Seat 0's and the first player's win rate under random, symmetric and one-sided marker layouts."""
    rows, bars, seat0 = [], [], {}
    for name, knobs in LAYOUTS.items():
        s = results[_layout(name)].summary
        seat0[name], first = seat_share(s), _first(s)
        bars += _bars("who", {"seat 0": seat0[name], "first player": first}, layout=name.replace(", ", ",\n"))
        rows.append(
            {
                "layout": name,
                "safe": _squares(knobs, "safe_squares"),
                "bad luck": _squares(knobs, "bad_luck_squares"),
                "seat 0 wins": pct(*seat0[name]),
                "first player wins": pct(*first),
                "bankrupt": f"{100 * _reason(s, BANKRUPT)[0]:.1f}%",
                "turns/game": f"{s.mean_turns()[0]:.1f}",
            }
        )
    base, drawn, test = (seat0[name][0] for name in ("players' rule", "random per game", "test layout"))
    moved = max(LAYOUT_TEXT, key=lambda name: abs(seat0[name][0] - base))
    title = (
        f"Markers near one start tilt the game: seat 0 wins {pct(*seat0[moved])} with "
        f"{LAYOUT_TEXT[moved]}; the players' rule gives {100 * base:.1f}%, random markers "
        f"{100 * drawn:.1f}%, the test layout {100 * test:.1f}%"
    )
    notes = [
        f"Both seats play {REFERENCE}; the first player is chosen by a die roll-off. Seat 0 starts on square 12 "
        "and seat 1 on 38 (of 0–51), so 13–14 are the first squares after seat 0's start and 39–40 after seat "
        "1's. 'players' rule': each seat places one safe and one bad-luck marker (safe on the free square just "
        "before its own home, 11 or 37; bad luck just before the opponent's, 10 or 36); 'random': that kind of "
        "marker drawn per game. The test layout (safe 3, 29; bad luck 16, 42) looks the same from both starts."
    ]
    draw = _shares(bars, "layout", "marker layout", (0.35, 0.65), labelsize=8)
    return Page(_fit(title), draw, pd.DataFrame(rows), notes), title


# --- 4. bankruptcy or race ------------------------------------------------------------------------------------


def bankruptcy_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """How games end (bankruptcy, finished race, turn cap) and what the tokens were paid for."""
    shares, paid, rows = [], [], []
    played = _with_second(results)
    for p, s in played:
        bankrupt, race, capped = (_reason(s, w) for w in (BANKRUPT, ALL_FINISHED, CAPPED))
        shares += _bars("end", {"bankruptcy": bankrupt, "race finished": race}, policy=p)
        row = {
            BOTH: p,
            "bankruptcy": pct(*bankrupt),
            "race finished": pct(*race),
            "turn cap": f"{100 * capped[0]:.2f}%",
        }
        for metric, cause in CAUSES.items():
            m, lo, hi = (float(v.sum()) for v in s.metric_mean(metric))
            paid.append({"policy": p, "cause": cause, **estimate("tokens", (m, lo, hi))})
            row[f"tokens/game: {cause}"] = f"{m:.2f}"
        rows.append(row)
    ref = results[_h2h(REFERENCE, REFERENCE)].summary
    others = [_reason(s, BANKRUPT)[0] for p, s in played if p in POLICY_ORDER and p != REFERENCE]
    figures = _strong(played, lambda s: _reason(s, BANKRUPT))
    title = (
        f"{pct(*_reason(ref, BANKRUPT))} of games between {REFERENCE} players end by bankruptcy "
        f"and {100 * _reason(ref, ALL_FINISHED)[0]:.1f}% by a finished race; {crossplay.beside(figures)}; with "
        f"the other heuristics {100 * min(others):.0f}–{100 * max(others):.0f}% end by bankruptcy"
    )
    draw = figure(
        Panel(pd.DataFrame(shares), "policy", "rate", "end", "share of games (fraction)", BOTH),
        Panel(pd.DataFrame(paid), "policy", "tokens", "cause", "tokens paid per game (both players)", BOTH),
    )

    notes = [
        "Each policy against itself, markers at random, first player by roll-off. A game ends by bankruptcy when "
        "a player's purse (10 tokens) is empty, by a finished race when a player brings all 6 buttons home, and "
        "at the turn cap (1,000 turns) otherwise. Tokens are paid for a lost roll with a button on the track, for "
        "each own button captured, and for landing on a bad-luck square.",
        crossplay.note(figures),
    ]
    return Page(_fit(title), draw, pd.DataFrame(rows), notes), title


# --- 5. game length ----------------------------------------------------------------------------------------------


def length_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """The distribution of game length in turns, each policy against itself."""
    played = _with_second(results)
    hists = {p: s.turns_hist for p, s in played}
    quantiles = {"10%": 0.1, "median": 0.5, "90%": 0.9, "99%": 0.99}
    rows = [
        {
            BOTH: p,
            "mean turns": mean(1)(*s.mean_turns()),
            **{name: stats.histogram_quantile(s.turns_hist, q) for name, q in quantiles.items()},
            "longest": int(np.flatnonzero(s.turns_hist)[-1]),
            "capped": f"{100 * _reason(s, CAPPED)[0]:.2f}%",
        }
        for p, s in played
    ]
    turns = results[_h2h(REFERENCE, REFERENCE)].summary.mean_turns()
    half, most = (stats.histogram_quantile(hists[REFERENCE], q) for q in (0.5, 0.9))
    figures = _strong(played, lambda s: s.mean_turns())
    title = (
        f"Between two {REFERENCE} players a game lasts {turns[0]:.1f} turns on average ({turns[1]:.1f}–"
        f"{turns[2]:.1f}); half are over by turn {half}, 90% by turn {most}; {crossplay.beside(figures, mean(1))}"
    )
    top = max(stats.histogram_quantile(h, 0.995) for h in hists.values())

    def draw(fig: Any) -> None:
        left, right = fig.subplots(1, 2)
        for i, p in enumerate(hists):
            h = hists[p][: top + 1]
            width = -(-len(h) // LENGTH_BIN) * LENGTH_BIN
            binned = np.pad(h, (0, width - len(h))).reshape(-1, LENGTH_BIN).sum(axis=1) / hists[p].sum()
            edges = np.arange(len(binned)) * LENGTH_BIN
            style = {"color": plots.GREYS[i], "linestyle": plots.LINESTYLES[i], "label": p}
            left.step(edges + LENGTH_BIN / 2, binned / LENGTH_BIN, where="mid", **style)
            cumulative = np.cumsum(hists[p]) / hists[p].sum()
            right.plot(np.arange(len(cumulative))[: top + 1], cumulative[: top + 1], **style)
        left.set_xlabel(f"game length (turns, bins of {LENGTH_BIN})")
        left.set_ylabel("share of games per turn")
        right.set_xlabel("game length (turns)")
        right.set_ylabel("share of games over by then (fraction)")
        right.axhline(0.5, color="#000000", linewidth=0.6, linestyle=":")
        for ax in (left, right):
            ax.set_xlim(0, top)
        right.legend(frameon=False, fontsize=8, title=BOTH, title_fontsize=8, loc="lower right")

    notes = [
        "Each policy against itself, markers placed by the players, first player by roll-off. A turn is one "
        "player's go (a 5 or a grey corner gives more rolls in the same turn). Quantiles in turns; the figure "
        "stops at the 99.5% quantile of the longest-running policy.",
        crossplay.note(figures),
    ]
    return Page(_fit(title), draw, pd.DataFrame(rows), notes), title


# --- 6. rule variants ----------------------------------------------------------------------------------------------


def _reading_changes(own: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Per reading (``own``: one policy's rows by rule): each change from the base rules and its two-sided p-value.

    Turns by a z-test on the means; bankruptcy and the first player's share by pooled two-proportion tests.
    """
    base = own.loc["base rules"]
    out = {}
    for name in own.index:
        r = own.loc[name]
        se = ((x["turns_hi"] - x["turns_lo"]) / (2 * stats.Z95) for x in (r, base))  # each mean's standard error
        z = (r["turns"] - base["turns"]) / max(np.hypot(*se), 1e-12)
        out[name] = {"turns": r["turns"] - base["turns"], "p_turns": float(2 * sp.norm.sf(abs(z)))}
        for key in ("bankrupt", "first"):
            out[name][key] = r[key] - base[key]
            k, n, base_k, base_n = (int(x) for x in (r[f"{key}_k"], r["n"], base[f"{key}_k"], base["n"]))
            out[name][f"p_{key}"] = stats.two_proportion_p_value(k, n, base_k, base_n)
    return out


def _moved_first(changes: dict[str, dict[str, float]], among: tuple[str, ...]) -> list[str]:
    """The readings of ``among`` that move the first player's share detectably (p < 0.05)."""
    return [name for name in among if name != "base rules" and changes[name]["p_first"] < 0.05]


def _second_clause(second: dict[str, Any]) -> str:
    """The title's clause for the second strong player: its bankruptcy share with free overshoot and without."""
    if not {"free overshoot", "base rules"} <= second.keys():
        return " (not checked under a second strong player)"
    free, base = (_reason(second[name], BANKRUPT)[0] for name in ("free overshoot", "base rules"))
    return f" ({_two(str(crossplay.second('patolli')))}: {100 * free:.0f}% instead of {100 * base:.0f}%)"


def _second_note(strong: pd.DataFrame, second: dict[str, Any]) -> str:
    """Cross-play of the readings: each strong reading's bankruptcy share under both strong players."""
    if not second:
        return f"Measured under {STRONG} only: no second strong player is affordable in this report."
    other, shown = crossplay.second("patolli"), []
    for name, s in second.items():
        e = strong.loc[name]
        figures = [
            crossplay.Figure(STRONG, e["bankrupt"], e["bankrupt_lo"], e["bankrupt_hi"]),
            crossplay.Figure(str(other), *_reason(s, BANKRUPT), s.n_games),
        ]
        verdict = "they agree" if crossplay.holds(figures) else "it depends on who plays"
        shown.append(f"{name} {100 * e['bankrupt']:.0f}% and {100 * figures[1].value:.0f}% ({verdict})")
    return (
        f"Cross-play: {other} plays the readings {STRONG} plays, in both seats on fewer games; games ended by "
        f"bankruptcy, {STRONG} then {other}: " + "; ".join(shown) + " (95% intervals compared)."
    )


def variants_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """The contested readings and two rule variants: game length, bankruptcy share and first-player win rate."""
    frame_rows = []
    for name in RULES:
        for p in [*POLICY_ORDER, STRONG] if name in STRONG_RULES else POLICY_ORDER:
            s = results[_rule(name, p)].summary
            frame_rows.append(
                {
                    "rule": name,
                    "policy": p,
                    **estimate("turns", s.mean_turns()),
                    **estimate("bankrupt", _reason(s, BANKRUPT)),
                    **estimate("first", _first(s)),
                    "n": s.n_games,
                    "bankrupt_k": int(s.sums["win_reason"][BANKRUPT]),
                    "first_k": int(s.sums["first_won"]),
                }
            )
    frame = pd.DataFrame(frame_rows)
    ref, strong = (frame[frame["policy"] == p].set_index("rule") for p in (REFERENCE, STRONG))
    cross = {name: crossplay.result_of(results, "patolli", [STRONG] * 2, RULES[name]) for name in STRONG_RULES}
    second = {name: result.summary for name, result in cross.items() if result is not None}  # the readings it played
    changes, strong_changes = _reading_changes(ref), _reading_changes(strong)
    rows = []
    for name in RULES:
        r, c = ref.loc[name], changes[name]
        based = name == "base rules"
        e = strong.loc[name] if name in STRONG_RULES else None
        rows.append(
            {
                "rule": name,
                "turns/game": cell(r, "turns", mean(1)),
                "Δ turns (p)": "—" if based else f"{c['turns']:+.1f} ({p_value(c['p_turns'])})",
                "bankruptcy": cell(r, "bankrupt"),
                "Δ bankruptcy (p)": "—" if based else f"{100 * c['bankrupt']:+.1f} pts ({p_value(c['p_bankrupt'])})",
                "first player wins": cell(r, "first"),
                "Δ first (p)": "—" if based else f"{100 * c['first']:+.1f} pts ({p_value(c['p_first'])})",
                f"{STRONG} vs {STRONG}": "—"
                if e is None
                else f"{e['turns']:.0f} turns, {100 * e['bankrupt']:.0f}% bankrupt, first {100 * e['first']:.0f}%",
            }
        )
    free, grey, base = ref.loc["free overshoot"], ref.loc["grey safe"], ref.loc["base rules"]
    title = (
        f"How a reading ends the game: with free overshoot skips {REFERENCE} games last "
        f"{free['turns'] - base['turns']:+.0f} turns and end by bankruptcy {100 * free['bankrupt']:.0f}% of the "
        f"time instead of {100 * base['bankrupt']:.0f}%; between {_two(STRONG)} "
        f"{100 * strong.loc['free overshoot', 'bankrupt']:.0f}% instead of "
        f"{100 * strong.loc['base rules', 'bankrupt']:.0f}%{_second_clause(second)}; "
        f"capture-proof grey corners move bankruptcy to {100 * grey['bankrupt']:.0f}%"
    )
    moved, strong_moved = _moved_first(changes, tuple(RULES)), _moved_first(strong_changes, STRONG_RULES)
    moved_shared = [name for name in moved if name in STRONG_RULES]

    def listed(names: list[str]) -> str:
        return "only with " + ", ".join(names) if names else "with no reading"

    title += f"; the first player's share moves detectably {listed(moved)}"
    if strong_moved != moved_shared:
        title += f", between {_two(STRONG)} {listed(strong_moved)} (of {', '.join(STRONG_RULES[1:])})"

    draw = figure(
        *(
            Panel(frame, "policy", y, "rule", label, BOTH, ref, ylim=ylim, ticks=SLANTED, legend=False)
            for y, label, ref, ylim in (
                ("turns", "mean game length (turns)", None, None),
                ("bankrupt", "ended by bankruptcy (fraction)", None, None),
                ("first", "first player's win rate (fraction)", 0.5, around(frame, "first", 0.4, 0.6)),
            )
        ),
        legend=len(RULES),
    )

    notes = [
        "Figure: each heuristic against itself under each rule set (markers placed by the players, first player "
        f"by roll-off). Table: {REFERENCE} against {REFERENCE}; Δ against the base rules with a two-sided p-value "
        "(z-test on the means for turns, pooled two-proportion test for bankruptcy); the last column: the "
        f"{STRONG} player against itself on as many games, under the readings its models ship for. "
        + "; ".join(f"'{name}': {text}" for name, text in RULE_TEXT.items())
        + ". The base rules take the rulebook's plain words: a lost roll always pays, grey corners do not "
        "protect from capture, their extra move is optional, markers stand where the rulebook allows. 'grey "
        "extra always' and 'restricted markers' cannot change a game between the heuristics shown here but "
        "home-stretch: they take every extra move and never put a marker on a grey corner or start square.",
        _second_note(strong, second),
    ]
    return Page(_fit(title), draw, pd.DataFrame(rows), notes), title


# --- 7. starting tokens --------------------------------------------------------------------------------------------


def tokens_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """The starting purse: how games end, how long they last and the first player's share."""
    rows, bars, share = [], [], {}
    for count in TOKENS:
        s = results[_tokens(count)].summary
        bankrupt, first, turns = _reason(s, BANKRUPT), _first(s), s.mean_turns()
        bars += _bars("what", {"ended by bankruptcy": bankrupt, "won by the first player": first}, tokens=str(count))
        rows.append(
            {
                "tokens each": count,
                "bankruptcy": pct(*bankrupt),
                "race finished": pct(*_reason(s, ALL_FINISHED)),
                "turns/game": mean(1)(*turns),
                "first player wins": pct(*first),
            }
        )
        share[count] = bankrupt[0]
    low, high = TOKENS[0], TOKENS[-1]
    title = (
        f"The starting purse decides how games end: between {REFERENCE} players bankruptcy ends "
        f"{100 * share[low]:.0f}% of games with {low} tokens each, {100 * share[Params().tokens]:.0f}% with "
        f"{Params().tokens} (the rulebook) and {100 * share[high]:.1f}% with {high}"
    )
    draw = figure(Panel(pd.DataFrame(bars), "tokens", "rate", "what", "share of games (fraction)", "tokens each"))

    notes = [
        f"Both seats play {REFERENCE}; markers placed by the players; first player by roll-off. Only the knob "
        f"'tokens' changes; everything else is the base rules. Not yet under {STRONG}: its model for each purse "
        "is not shipped (`simulate train patolli --set tokens=N` trains one, about 3 minutes of CPU)."
    ]
    return Page(_fit(title), draw, pd.DataFrame(rows), notes), title

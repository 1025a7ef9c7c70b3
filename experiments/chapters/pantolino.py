"""The Pantolino report: reroll policies, what a joker is worth, escaping boots, the no-token rule, seats, a head start.

Every arm is played from the same seed, so each chunk of every arm shares its chunk seed (common random
numbers). Exact values (Markov chains over dice multisets, and the exact 2-player solution of
:mod:`engines.pantolino.solver`) are printed beside the Monte Carlo ones. Every strong-play figure is checked under a
second strong player (:mod:`experiments.chapters.crossplay`): the seats page's on the full cross share, the jokers,
escaping-boots and no-token rows (learned's, and turn-optimal's at 2 players) on a quarter or an eighth of it (the
jokers at the default joker faces only).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache, partial
from itertools import permutations
from typing import Any

import numpy as np
import pandas as pd

from boardlab.analysis import game_metrics, plots, stats
from boardlab.analysis.book import Page
from boardlab.analysis.panels import Panel, facets, figure
from boardlab.analysis.tables import cell, cells, estimate, mean
from boardlab.analysis.wording import interval, pct, points
from boardlab.engines import core
from boardlab.engines.pantolino import INFO, POLICIES, Params, solver
from boardlab.engines.pantolino.rules import play_turns
from boardlab.experiments.chapters import crossplay
from boardlab.experiments.chapters.common import Front, Plan, Question, knobs_line, proportion, seat_share
from boardlab.experiments.chapters.flow import Done
from boardlab.experiments.run import RunResult

POLICY_ORDER = ["win-optimal", "learned", "turn-optimal", "greedy", "keep-jokers", "reroll-jokers", "random"]
STRONG, WEAK = "turn-optimal", "keep-jokers"  # a real contrast: the exact turn maximiser against the simple rule
LEARNED = "learned"  # strong play at a heuristic's cost: each page's answer is measured under it too
LEARNED_MODES = ("base rules", "escaping boots (tail, rulebook)")  # learned models ship for these at 2 players
KEEP, REROLL = "keep-jokers", "reroll-jokers"  # what a joker is worth: the same rule keeping or rerolling jokers
MODES = {
    "base rules": None,
    "escaping boots (tail, rulebook)": "escaping-boots",
    "escaping boots (any token, ours)": "escaping-boots-any",
}
PLAYER_COUNTS = (2, 3, 4)
HEAD_STARTS = tuple(range(7))  # boots credited to the second seat (``head_start``, ours)
LEARNED_HEAD_STARTS = (0, 2, 3, 4, 6)  # head starts whose 2-player learned models ship (others: trained mid-report)
OTHER_TOKENS = "1,2,3"  # the reading of the token values a rulebook without them allows: one boot fewer each
RULES = {"nothing": ("base rules", None), "remove-smallest": ("remove-smallest", "remove-smallest")}  # arms, variant


def _tournament(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Every ordered pair of distinct policies."""
    for a, b in permutations(POLICY_ORDER, 2):
        plan.add(f"h2h {a} {b}", [a, b], n, seed, chunk)


def _jokers(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Keeping against rerolling jokers, and the learned player against rerolling, per joker faces."""
    quarter = crossplay.Check(fewer=crossplay.FEWER)  # the headline's cross arms
    for jokers in (0, 1, 2):
        knobs = (("joker_faces", str(jokers)),)
        plan.add(f"jokers {jokers} keep-first", [KEEP, REROLL], n, seed, chunk, settings=knobs)
        plan.add(f"jokers {jokers} reroll-first", [REROLL, KEEP], n, seed, chunk, settings=knobs)
        plan.add(f"jokers {jokers} learned-first", [LEARNED, REROLL], n, seed, chunk, settings=knobs)
        plan.add(f"jokers {jokers} learned-second", [REROLL, LEARNED], n, seed, chunk, settings=knobs)
        for seats in ([LEARNED, REROLL], [REROLL, LEARNED]) if jokers == Params().joker_faces else ():
            crossplay.add_arms(plan, seats, n, seed, chunk, settings=knobs, check=quarter)


def _alone(player: str, seat: int, k: int = 2) -> list[str]:
    """``k`` seats of ``WEAK`` but ``seat``, which ``player`` takes."""
    return [player if s == seat else WEAK for s in range(k)]


def _modes(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Per rule mode and table size: everyone ``STRONG``, and ``STRONG`` alone among ``WEAK`` in each seat.

    The learned player likewise at 2 players in the modes its models ship for.
    """
    eighth = crossplay.Check(fewer=2 * crossplay.FEWER)  # the cross arms of its secondary figures
    for mode, variant in MODES.items():
        for k in PLAYER_COUNTS:
            plan.add(f"{mode} {k} symmetric", [STRONG] * k, n, seed, chunk, variant)
            for seat in range(k):
                plan.add(f"{mode} {k} strong@{seat}", _alone(STRONG, seat, k), n, seed, chunk, variant)
        if mode in LEARNED_MODES:
            plan.add(f"{mode} 2 learned symmetric", [LEARNED] * 2, n, seed, chunk, variant)
            for seat in range(2):
                seats = _alone(LEARNED, seat)
                plan.add(f"{mode} 2 learned@{seat}", seats, n, seed, chunk, variant)
                crossplay.add_arms(plan, seats, n, seed, chunk, variant=variant, check=eighth)


def _no_token(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Everyone ``STRONG`` under the base rules and under remove-smallest, per table size."""
    for prefix, variant in RULES.values():
        for k in PLAYER_COUNTS:
            plan.add(f"{prefix} {k} symmetric", [STRONG] * k, n, seed, chunk, variant)
    for variant, fewer in ((None, 1), ("remove-smallest", crossplay.FEWER)):  # 2 players under the expert too
        crossplay.add_arms(plan, [STRONG] * 2, n, seed, chunk, variant=variant, check=crossplay.Check(STRONG, fewer))


def _seats(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Everyone ``STRONG``, then everyone learned, per table size; and the other token values at 2 players."""
    for k in PLAYER_COUNTS:
        plan.add(f"base rules {k} symmetric", [STRONG] * k, n, seed, chunk)
        plan.add(f"base rules {k} learned symmetric", [LEARNED] * k, n, seed, chunk)
    knobs = (("token_values", OTHER_TOKENS),)
    plan.add(f"tokens {OTHER_TOKENS} 2 symmetric", [STRONG] * 2, n, seed, chunk, settings=knobs)
    crossplay.add_arms(plan, [LEARNED] * 2, n, seed, chunk)  # the learned figure checked under the expert


def _head_starts(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """2 players, everyone ``STRONG``, then everyone learned where its model ships, per head start."""
    for h in HEAD_STARTS:
        knobs = (("head_start", str(h)),)
        plan.add(f"head start {h} {STRONG}", [STRONG] * 2, n, seed, chunk, settings=knobs)
        if h in LEARNED_HEAD_STARTS:
            plan.add(f"head start {h} {LEARNED}", [LEARNED] * 2, n, seed, chunk, settings=knobs)


def questions(n: int, seed: int, chunk: int) -> list[Question]:
    """The chapter's own questions, in page order (``seed`` words the answers)."""
    bound = [partial(page, params=Params(), seed=seed) for page in PAGES]
    arms = (_tournament, _jokers, _modes, _no_token, _seats, _head_starts)
    labels = ("policies", "jokers", "escaping boots", "no token", "seats", "head start")
    return [Question(label, add, page) for label, add, page in zip(labels, arms, bound, strict=True)]


HEADING = "Pantolino: what wins, and what the variants change"


def front(done: Done) -> Front:
    """The chapter's own front-page lines."""
    return Front(
        game=(
            f"Pantolino (engine version {INFO.version}); 4 dice with 5 colours and a joker, 3 rolls per turn, "
            "tokens of 2, 3 and 4 boots in each colour; the supply empties to end the game."
        ),
        knobs=knobs_line(Params()),
        policies="; ".join(f"{p.name}: {p.description}" for p in POLICIES.values()),
        games=done.games_line(f"{done.planned.n_games:,} per arm"),
        reading=(
            "Every rate is given with its 95% interval (Wilson for proportions, normal for means). Each "
            "probability assumes the policies named beside it: a chance depends on how dice are kept."
        ),
        closing=("headlines", " | ".join(done.played.headlines)),
    )


# --- 1. reroll policies -------------------------------------------------------------------------------------


def exact_turn_values(params: Params) -> dict[str, Fraction | None]:
    """Exact expected token value of a first turn (full supply) under each policy's keeps; None if not tabled."""
    tables = params.tables
    full = np.array([(1 << params.n_tokens) - 1], dtype=np.int64)
    values = tables.final_values(full)[0]
    total = tables.unit**params.rolls
    out: dict[str, Fraction | None] = {"turn-optimal": tables.expected_turn_value(int(full[0]))}
    greedy = tables.final_distribution(tables.keep_tables(full, horizon=1))[0]
    out["greedy"] = Fraction(int(greedy @ values), total)
    for name in ("keep-jokers", "reroll-jokers"):
        impl = core.instantiate(POLICIES[name], params)
        weights = impl.sampler.distribution(impl.keys_of(full))[0]
        out[name] = Fraction(int(weights @ values), total)
    out["random"] = out["win-optimal"] = None  # random has no tables; win-optimal plays for the game, not the turn
    return out


@cache
def exact_two_player(params: Params) -> dict[str, float]:
    """Exact seat-0 win chances (shared wins count half) from the solver; solved once, then read from its cache."""
    both_win = solver.start_value(solver.cached_values(params), params)[0]
    both_turn = solver.start_value(solver.cached_values(params, ["turn-optimal"]), params)[0]
    mixed = solver.start_value(solver.cached_values(params, ["win-optimal", "turn-optimal"]), params)
    return {
        "win-optimal": float(both_win),
        "turn-optimal": float(both_turn),
        "win-optimal vs turn-optimal": float(mixed[0] + 1 - mixed[1]) / 2,
    }


def policies_page(results: dict[str, RunResult], params: Params, seed: int) -> tuple[Page, str]:
    """Head-to-head matrix, boots per game, and per-turn regret against turn-optimal (exact and Monte Carlo)."""
    matrix = pd.DataFrame(np.nan, index=POLICY_ORDER, columns=POLICY_ORDER)
    totals = {p: [0, 0] for p in POLICY_ORDER}
    boots = dict.fromkeys(POLICY_ORDER, 0.0)  # each policy's boots over its totals[p][1] games
    for a, b in permutations(POLICY_ORDER, 2):
        first, second = results[f"h2h {a} {b}"].summary, results[f"h2h {b} {a}"].summary
        wins, n = stats.head_to_head(first, second)
        matrix.loc[a, b] = wins / n
        totals[a][0] += wins
        totals[a][1] += n
        boots[a] += float(first.score_sum[0] + second.score_sum[1])
    exact = exact_turn_values(params)
    mc_turns = {  # win-optimal and learned value a turn by the game around it: no 1-player turn to time
        p: play_turns(params, core.instantiate(POLICIES[p], params), 100_000, np.random.default_rng(seed))["value"]
        for p in POLICY_ORDER
        if p not in ("win-optimal", LEARNED)
    }
    rows = []
    optimal_mc = mc_turns["turn-optimal"].mean()
    top_exact = exact["turn-optimal"]
    for p in POLICY_ORDER:
        v = mc_turns.get(p)
        half = None if v is None else stats.Z95 * v.std(ddof=1) / np.sqrt(len(v))
        rows.append(
            {
                "policy": p,
                "head-to-head win rate": pct(*proportion(*totals[p])),
                "boots per game": f"{boots[p] / totals[p][1]:.2f}",
                "turn value, exact": "—" if exact.get(p) is None else f"{float(exact[p]):.4f}",
                "turn value, MC": "—" if v is None else interval(v.mean(), v.mean() - half, v.mean() + half, 4),
                "regret vs turn-optimal, exact": "—" if exact.get(p) is None else f"{float(top_exact - exact[p]):.4f}",
                "regret vs turn-optimal, MC": "—" if v is None else f"{optimal_mc - v.mean():.4f}",
            }
        )
    best = max(POLICY_ORDER, key=lambda p: totals[p][0] / totals[p][1])
    rival = "turn-optimal" if best != "turn-optimal" else "keep-jokers"
    beat = _against(results, f"h2h {best} {rival}", f"h2h {rival} {best}")
    exact_game = exact_two_player(params)["win-optimal vs turn-optimal"]
    title = (
        f"{best} is the best policy: it wins {pct(*proportion(*totals[best]))} of its head-to-head games, "
        f"{pct(*beat)} against {rival}"
    )
    notes = [
        "Win rate of the row policy against the column policy, 2 players, averaged over both seat orders "
        "(a shared win counts as half a win in the exact values).",
        f"Exact (the solver): win-optimal beats turn-optimal in {exact_game:.2%} of games, seat-averaged. "
        "win-optimal keeps dice and picks tokens to maximise the chance of winning the game; turn-optimal "
        "maximises the token taken this turn.",
        "Turn value: expected boots of the token taken on a first turn (full supply); exact values come from "
        "the Markov chain over dice multisets, MC from 100,000 sampled turns (95% intervals).",
    ]
    meaning = (
        f"How dice are kept decides games: the best rule beats {rival} {pct(*beat)} of the time, so a change "
        "meant to reward skill should widen these gaps and one meant for families should narrow them."
    )
    draw = partial(plots.heatmap, matrix, "win rate of row policy")
    return Page(title, draw, pd.DataFrame(rows), notes, short="Which keeping policy wins", meaning=meaning), title


# --- 2. joker value -------------------------------------------------------------------------------------------


def four_boot_chance(params: Params, policy: str) -> Fraction:
    """Exact chance that a first turn's best count reaches 4 (a 4-boot token fits) under ``policy``."""
    tables = params.tables
    impl = core.instantiate(POLICIES[policy], params)
    full = np.array([(1 << params.n_tokens) - 1], dtype=np.int64)
    weights = impl.sampler.distribution(impl.keys_of(full))[0]
    return Fraction(int(weights[tables.best_count >= 4].sum()), tables.unit**params.rolls)


def _against(results: dict[str, RunResult], first: str, second: str) -> tuple[float, float, float]:
    """Win rate of the seat-0 policy of arm ``first``, which sits second in arm ``second``, over both arms."""
    return proportion(*stats.head_to_head(results[first].summary, results[second].summary))


def _cross(results: dict[str, RunResult], seatings: list[list[str]], **arm: Any) -> list[Any] | None:
    """The summaries of the cross arms of the strong arms ``seatings`` (``arm``: knobs, variant), None if not played."""
    played = [crossplay.result_of(results, "pantolino", seats, **arm) for seats in seatings]
    return None if any(r is None for r in played) else [r.summary for r in played]


def joker_page(results: dict[str, RunResult], params: Params, seed: int) -> tuple[Page, str]:
    """Keep-jokers, and the learned player, against reroll-jokers for 0, 1 and 2 joker faces; P(4-boot turn)."""
    other = crossplay.second("pantolino")
    keeps = {j: _against(results, f"jokers {j} keep-first", f"jokers {j} reroll-first") for j in (0, 1, 2)}
    learned = {j: _against(results, f"jokers {j} learned-first", f"jokers {j} learned-second") for j in (0, 1, 2)}
    seconds = {  # the second strong player against REROLL, both seat orders, where played
        j: proportion(*stats.head_to_head(*cross))
        for j in (0, 1, 2)
        if (cross := _cross(results, [[LEARNED, REROLL], [REROLL, LEARNED]], settings=(("joker_faces", str(j)),)))
    }
    fours = {j: [float(four_boot_chance(Params(joker_faces=j), p)) for p in (KEEP, REROLL)] for j in (0, 1, 2)}
    rows = []
    for jokers in (0, 1, 2):
        first, second = (results[f"jokers {jokers} {p}-first"].summary for p in ("keep", "reroll"))
        n = first.n_games + second.n_games
        rows.append(
            {
                "joker faces per die": jokers,
                "keep-jokers win rate": pct(*keeps[jokers]),
                "learned win rate": pct(*learned[jokers]),
                **({f"{other} win rate": pct(*seconds[jokers])} if jokers in seconds else {}),
                "boots/game keep": f"{float(first.score_sum[0] + second.score_sum[1]) / n:.2f}",
                "boots/game reroll": f"{float(first.score_sum[1] + second.score_sum[0]) / n:.2f}",
                "P(4 boots) keep, exact": f"{fours[jokers][0]:.2%}",
                "P(4 boots) reroll, exact": f"{fours[jokers][1]:.2%}",
            }
        )
    bars = [
        {"joker faces": j, "policy": p, **estimate("win rate", rates[j])}
        for j in (0, 1, 2)
        for p, rates in ((KEEP, keeps), (LEARNED, learned))
    ]
    chance = [
        {"joker faces": j, "policy": p, **estimate("chance", [c] * 3)}
        for j in (0, 1, 2)
        for p, c in zip((KEEP, REROLL), fours[j], strict=True)
    ]
    figures = [crossplay.Figure(who, *r) for who, r in ((LEARNED, learned[1]), (str(other), seconds.get(1))) if r]
    title = (
        f"Keeping jokers wins {pct(*keeps[1])} of games against rerolling them, {crossplay.beside(figures)}; a second "
        f"joker face lifts the chance of a 4-boot turn from {fours[1][0]:.1%} to {fours[2][0]:.1%}"
    )

    xlabel, four = "joker faces per die", "chance a first turn reaches 4 of a colour (exact)"
    draw = figure(
        Panel(pd.DataFrame(bars), "joker faces", "win rate", "policy", "win rate vs reroll-jokers", xlabel, 0.5),
        Panel(pd.DataFrame(chance), "joker faces", "chance", "policy", four, xlabel),
    )

    reach = ", ".join(f"{fours[j][0]:.1%}" for j in (0, 1, 2))
    effect = f"with 0, 1 and 2 joker faces a first turn reaches 4 boots {reach} of the time under {KEEP}"
    trend = "grows" if learned[2][0] > learned[0][0] else "shrinks"
    meaning = (
        "The joker face is the main lever on how soon the 4-boot tokens go: every joker face added makes the top "
        f"tokens easier and the choice to keep jokers matter more. Under strong play the {LEARNED} player's edge "
        f"over the rerolling rule {trend} from {learned[0][0]:.1%} with no joker face to {learned[2][0]:.1%} with two."
    )
    notes = [
        f"2 players, {KEEP} against {REROLL} in both seat orders: the same rule but for the jokers, so the gap "
        "is what keeping a joker is worth. With no joker face the two policies are the same, so their win rate "
        "there is 50% up to chance.",
        f"{LEARNED}: the learned player (its own model for each joker setting) against {REROLL}, both seat orders; "
        "it keeps or rerolls jokers as its values say, so its edge is what strong play makes of the dice.",
        crossplay.note(figures)
        + (
            f" {other} against {REROLL} at the default joker faces only (the table's column, fewer games): the "
            "expert plays a game in a tenth of a second, too slow to check every setting in a report."
            if seconds
            else ""
        ),
    ]
    table = pd.DataFrame(rows)
    return Page(
        title, draw, table, notes, short="What a joker is worth", meaning=meaning, depends_on={"joker_faces": effect}
    ), title


# --- 3. escaping boots ----------------------------------------------------------------------------------------


def _gap(alone: list[Any]) -> tuple[float, float, float]:
    """The strong-weak gap over the summaries of arms with the strong player alone in seat 0, 1, ... in turn."""
    wins = sum(int(s.wins[seat]) for seat, s in enumerate(alone))
    return stats.gap(wins, sum(s.n_games for s in alone), len(alone))


def escaping_rows(results: dict[str, RunResult], player: str = STRONG) -> pd.DataFrame:
    """Per mode and player count: strong-weak gap, comeback rate, length, steals, seat-0 win rate.

    ``player`` is the strong player (everyone plays it in the symmetric arms): ``STRONG`` for every mode and
    player count, ``LEARNED`` for the modes and the 2-player table its models ship for.
    """
    rows = []
    tag, at = ("", "strong") if player == STRONG else (f"{LEARNED} ", LEARNED)  # the arms' labels
    for mode in MODES if player == STRONG else LEARNED_MODES:
        for k in PLAYER_COUNTS if player == STRONG else (2,):
            sym = results[f"{mode} {k} {tag}symmetric"].summary
            alone = [results[f"{mode} {k} {at}@{seat}"].summary for seat in range(k)]
            rows.append(
                {
                    "mode": mode,
                    "strong player": player,
                    "players": k,
                    **estimate("gap", _gap(alone)),
                    **estimate("comeback", proportion(int(sym.sums["comeback"]), sym.n_games)),
                    "turns": sym.mean_turns()[0],
                    "steals": float(sym.metric_mean("steals_made")[0].sum()),
                    **estimate("seat0", seat_share(sym)),
                }
            )
    return pd.DataFrame(rows)


def escaping_page(results: dict[str, RunResult], params: Params, seed: int) -> tuple[Page, str]:
    """Escaping boots on and off, 2-4 players: the strong-weak gap and how often the trailer comes back."""
    frame = escaping_rows(results)
    strong = escaping_rows(results, LEARNED)
    two = frame[frame["players"] == 2].set_index("mode")
    base, steal = two.loc["base rules"], two.loc["escaping boots (tail, rulebook)"]
    strong_base, strong_steal = strong.iloc[0], strong.iloc[1]
    verb = "narrows" if steal["gap"] < base["gap"] else "widens"
    strong_verb = "narrows" if strong_steal["gap"] < strong_base["gap"] else "widens"
    title = (
        f"Escaping boots {verb} the strong–weak gap from {100 * base['gap']:.1f} to {100 * steal['gap']:.1f} "
        f"points and moves comebacks from {100 * base['comeback']:.1f}% to {100 * steal['comeback']:.1f}% "
        f"of 2-player games; with {LEARNED} as the strong player it {'also' if strong_verb == verb else 'instead'} "
        f"{strong_verb} it, from {100 * strong_base['gap']:.1f} to {100 * strong_steal['gap']:.1f} points"
    )
    other = crossplay.second("pantolino")
    gaps = {  # per mode learned's models ship for: the second strong player's gap over WEAK at 2 players
        mode: _gap(cross)
        for mode in LEARNED_MODES
        if (cross := _cross(results, [_alone(LEARNED, s) for s in range(2)], variant=MODES[mode])) is not None
    }
    note = f"Measured under {LEARNED} only: no second strong player is affordable in this report."
    if len(gaps) == len(LEARNED_MODES):  # cross-play: learned's gap in each mode beside the second player's
        low, high = (gaps[mode][0] for mode in LEARNED_MODES)
        title += f" ({other}: from {100 * low:.1f} to {100 * high:.1f})"
        figures = {
            mode: [crossplay.Figure(LEARNED, *gap), crossplay.Figure(str(other), *gaps[mode])]
            for mode, *gap in strong[["mode", "gap", "gap_lo", "gap_hi"]].itertuples(index=False)
        }
        note = (
            f"Cross-play: {LEARNED}'s gap is measured again with {other} as the strong player (fewer games; its rows): "
            + "; ".join(f"{m}: {crossplay.beside(f, lambda *v: f'{points(*v)} points')}" for m, f in figures.items())
            + "."
        )
    else:
        title += " (not checked under a second strong player)"

    line = partial(Panel, frame, "players", hue="mode", xlabel="players", kind="line", xticks=PLAYER_COUNTS)
    draw = figure(
        line("gap", ylabel=f"win-rate gap, {STRONG} minus {WEAK} (fraction)"),
        line("comeback", ylabel="games won by a player trailing at mid-game (fraction)"),
    )

    both = pd.concat([frame, strong], ignore_index=True)
    measures = {
        "strong-weak gap, pts": cells(both, "gap", points),
        "comeback rate": cells(both, "comeback"),
        "turns/game": [f"{t:.2f}" for t in both["turns"]],
        "steals/game": [f"{s:.2f}" for s in both["steals"]],
        "seat 0 wins": cells(both, "seat0"),
    }
    checked = [
        {"mode": mode, "strong player": f"{other} (cross-play)", "players": 2, "strong-weak gap, pts": points(*gap)}
        for mode, gap in gaps.items()
    ]
    table = pd.concat([both.assign(**measures), pd.DataFrame(checked)], ignore_index=True)
    table = table[["mode", "strong player", "players", *measures]].fillna("—")
    notes = [
        f"Gap: one strong player against {WEAK} players, the strong seat rotated over every seat; the gap is the "
        "strong player's win rate minus each weak player's. Comebacks, length, steals and seat 0: everyone plays "
        f"the strong player's policy. A comeback is a win by a player with fewer boots than the leader when half "
        "the supply is gone.",
        f"The figure: {STRONG} as the strong player. The {LEARNED} rows: 2 players, base rules and tail steals "
        "(the table sizes and modes its models ship for; any other is trained on first use, minutes each).",
        note,
    ]
    meaning = (
        f"The variant {'softens' if verb == 'narrows' else 'sharpens'} the gap between a strong and a weak player "
        f"at 2 players: {'a help' if verb == 'narrows' else 'no help'} for a table of mixed ages"
        + (
            f", and strong play ({LEARNED}) agrees."
            if strong_verb == verb
            else f"; but with {LEARNED} as the strong player it {strong_verb} the gap instead."
        )
    )
    return Page(title, draw, table, notes, short="Escaping boots (variant)", meaning=meaning), title


# --- 4. the no-token rule -------------------------------------------------------------------------------------


def _no_token_row(rule: str, s: Any, policy: str = STRONG) -> dict[str, Any]:
    """A no-token row: the rule, the table size, who plays, turns and seat 0's share, tokens removed (a cell)."""
    return {
        "rule": rule,
        "players": len(s.wins),
        "everyone plays": policy,
        **estimate("turns", s.mean_turns()),
        **estimate("seat0", seat_share(s)),
        "tokens removed/game": f"{float(s.metric_mean('removed')[0]):.2f}",
    }


def no_token_page(results: dict[str, RunResult], params: Params, seed: int) -> tuple[Page, str]:
    """``nothing`` against ``remove-smallest``: game length and seat advantage."""
    rows = []
    for rule, (prefix, _) in RULES.items():
        rows += [_no_token_row(rule, results[f"{prefix} {k} symmetric"].summary) for k in PLAYER_COUNTS]
    frame = pd.DataFrame(rows)
    two = frame[frame["players"] == 2].set_index("rule")
    nothing, removing = two.loc["nothing"], two.loc["remove-smallest"]
    saved = nothing["turns"] - removing["turns"]
    title = (
        f"Removing a token when nothing fits shortens 2-player games by {saved:.1f} turns ({nothing['turns']:.1f} → "
        f"{removing['turns']:.1f}); seat 0 wins {100 * nothing['seat0']:.1f}% → {100 * removing['seat0']:.1f}%"
    )
    other = crossplay.second("pantolino")
    checked = [  # the 2-player rows under the second strong player, where they were played
        _no_token_row(rule, r.summary, f"{other} (cross-play, {r.summary.n_games:,} games)")
        for rule, (_, variant) in RULES.items()
        if (r := crossplay.result_of(results, "pantolino", [STRONG] * 2, variant=variant, strong=STRONG)) is not None
    ]
    note = f"Measured under {STRONG} only: no second strong player is affordable in this report."
    if len(checked) == 2:  # cross-play: seat 0's share under remove-smallest beside the second player's
        was, now = checked  # nothing, remove-smallest
        title += (
            f" ({other}: {was['turns'] - now['turns']:.1f} turns shorter, seat 0 {100 * was['seat0']:.1f}% → "
            f"{100 * now['seat0']:.1f}%)"
        )
        figures = [
            crossplay.Figure(f"everyone {who}", *(row[c] for c in ("seat0", "seat0_lo", "seat0_hi")))
            for who, row in ((STRONG, removing), (other, now))
        ]
        note = (
            f"Cross-play: seat 0's share under remove-smallest at 2 players is {crossplay.beside(figures)}. "
            + crossplay.note(figures, strong=STRONG)
        )
    else:
        title += " (not checked under a second strong player)"
    shown = pd.concat([frame, pd.DataFrame(checked)], ignore_index=True)

    draw = figure(
        Panel(frame, "players", "turns", "rule", "mean game length (turns)", "players"),
        Panel(frame, "players", "seat0", "rule", "seat 0 win rate (fraction)", "players"),
    )

    table = shown.assign(**{"turns/game": cells(shown, "turns", mean(2)), "seat 0 wins": cells(shown, "seat0")})[
        ["rule", "players", "everyone plays", "turns/game", "seat 0 wins", "tokens removed/game"]
    ]
    notes = [
        f"Everyone plays {STRONG}. 'nothing' is the English rule; 'remove-smallest' the French and Italian one. The "
        f"figure: {STRONG}'s rows.",
        note,
    ]
    fairer = abs(removing["seat0"] - 0.5) < abs(nothing["seat0"] - 0.5)
    meaning = (
        f"The French and Italian rule shortens 2-player games by {saved:.1f} turns and makes the first seat's "
        f"share {'closer to' if fairer else 'further from'} a fair half: a rule for "
        + ("shorter and fairer games." if fairer else "shorter games, not fairer ones.")
    )
    return Page(title, draw, table, notes, short="The no-token rule", meaning=meaning), title


# --- 5. seat advantage ------------------------------------------------------------------------------------------


def _seat_rows(policy: str, s: Any) -> list[dict[str, Any]]:
    """Each seat's win rate (with its interval), then its shared wins and fair share as cells, in the arm ``s``."""
    k, n = len(s.wins), s.n_games
    return [
        {
            "players": k,
            "policy": policy,
            "seat": f"seat {seat}",
            **estimate("rate", seat_share(s, seat)),
            "shared wins": f"{100 * (float(s.shared_wins[seat]) / n):.2f}%",
            "fair share": f"{100 * (1 / k):.1f}%",
        }
        for seat in range(k)
    ]


def seat_page(results: dict[str, RunResult], params: Params, seed: int) -> tuple[Page, str]:
    """Each seat's win rate with 2, 3 and 4 players, everyone playing turn-optimal, then everyone learned."""
    frame = pd.DataFrame(
        row
        for k in PLAYER_COUNTS
        for policy, tag in ((STRONG, ""), (LEARNED, f"{LEARNED} "))
        for row in _seat_rows(policy, results[f"base rules {k} {tag}symmetric"].summary)
    )
    firsts = frame[(frame["players"] == 2) & (frame["seat"] == "seat 0")]
    first, strong_first = firsts.iloc[0], firsts.iloc[1]
    exact = exact_two_player(params)
    title = (
        f"The first player wins {exact['win-optimal']:.1%} of 2-player games under win-optimal play (exact), "
        f"{cell(first, 'rate')} when both play {STRONG} and {cell(strong_first, 'rate')} when both play {LEARNED} "
        "(a fair share is 50%)"
    )
    other = crossplay.second("pantolino")
    cross = crossplay.result_of(results, "pantolino", [LEARNED] * 2)  # both the second strong player, if played
    both = [(LEARNED, results["base rules 2 learned symmetric"])] + ([(other, cross)] if cross is not None else [])
    figures = [crossplay.Figure(f"both {who}", *seat_share(r.summary), r.summary.n_games) for who, r in both]
    shown = frame
    if cross is not None:  # the claim under both strong players; the second one's 2-player rows beside learned's
        title += "; " + crossplay.claim("the first player's share under strong play", figures, _first_fact)
        extra = _seat_rows(f"{other} (cross-play, {cross.summary.n_games:,} games)", cross.summary)
        shown = pd.concat([frame, pd.DataFrame(extra)], ignore_index=True)

    seats = Panel(frame, "seat", "rate", "policy", "win rate (fraction)", "")
    per_count = facets(seats, "players", PLAYER_COUNTS, xlabel=lambda k: f"{k} players", reference=lambda k: 1 / k)
    draw = figure(*per_count, sharey=True)

    table = shown.assign(**{"everyone plays": shown["policy"], "win rate": cells(shown, "rate")})[
        ["players", "everyone plays", "seat", "win rate", "shared wins", "fair share"]
    ]
    notes = [
        f"Everyone plays {STRONG}, then everyone {LEARNED}; seat 0 moves first. Dashed line: a fair share of wins.",
        f"Exact 2-player seat-0 win chances (the solver; shared wins count half, and cannot happen with 45 boots): "
        f"{exact['win-optimal']:.4%} when both play win-optimal, {exact['turn-optimal']:.4%} when both play {STRONG}.",
        crossplay.note(figures, _first_fact),
    ]
    tokens = results[f"tokens {OTHER_TOKENS} 2 symmetric"].summary
    effect = (
        f"with tokens of {OTHER_TOKENS.replace(',', ', ')} boots seat 0 wins {pct(*seat_share(tokens))} instead of "
        f"{cell(first, 'rate')} (2 players, both {STRONG}), and games last "
        f"{tokens.mean_turns()[0]:.1f} turns instead of {results['base rules 2 symmetric'].summary.mean_turns()[0]:.1f}"
    )
    edge, strong_edge = first["rate"] - 0.5, strong_first["rate"] - 0.5
    meaning = (
        f"Moving first is worth {100 * edge:+.1f} points of win rate at 2 players under {STRONG} and "
        f"{100 * strong_edge:+.1f} under {LEARNED} (exact, both playing to win: "
        f"{100 * (exact['win-optimal'] - 0.5):+.1f}): "
        + (
            "a fair game needs no help for the second seat."
            if max(abs(edge), abs(strong_edge)) < 0.02
            else "enough to consider compensating the later seats (the next page: a head start in boots)."
        )
    )
    return Page(
        title, draw, table, notes, short="First-player advantage", meaning=meaning, depends_on={"token_values": effect}
    ), title


_first_fact = crossplay.even_share("the first player", " under strong play")


# --- 6. fair compensation: a head start for the second seat -----------------------------------------------------


def exact_by_head_start(params: Params) -> dict[int, float]:
    """Exact seat-0 win chance under win-optimal for each even head start (one table: the largest holds the rest)."""
    evens = [h for h in HEAD_STARTS if h % 2 == 0]
    values = solver.cached_values(params.with_strings({"head_start": str(max(evens))}))
    return {h: float(solver.start_value(values, params.with_strings({"head_start": str(h)}))[0]) for h in evens}


def head_start_page(results: dict[str, RunResult], params: Params, seed: int) -> tuple[Page, str]:
    """What head start makes the second seat fair? The first seat's edge against the second seat's head start.

    The edge: the first seat's win share minus a half, per head start and play (exact, then the played arms).
    """
    rows = [
        {"head start": h, "play": "win-optimal (exact)", **estimate("edge", [v - 0.5] * 3)}
        for h, v in exact_by_head_start(params).items()
    ]
    for policy, starts in ((STRONG, HEAD_STARTS), (LEARNED, LEARNED_HEAD_STARTS)):
        for h in starts:
            edge = game_metrics.compute(results[f"head start {h} {policy}"].summary, cooperative=False)
            first = edge["first_seat_advantage"]  # a shared win counts half, as in the exact values
            rows.append({"head start": h, "play": policy, **estimate("edge", (first.value, first.low, first.high))})
    frame = pd.DataFrame(rows)
    exact = frame[frame["play"] == "win-optimal (exact)"].set_index("head start")
    fair = int(exact["edge"].abs().idxmin())
    played = frame[(frame["play"] == STRONG) & (frame["head start"] == fair)].iloc[0]
    within = 100 * max(abs(played["edge_lo"]), abs(played["edge_hi"]), abs(exact.loc[fair, "edge"]))
    title = (
        f"With a {fair}-boot head start the second seat is fair, ±{within:.1f} points: the first seat's edge is "
        f"{100 * exact.loc[fair, 'edge']:+.1f} points under win-optimal (exact; {100 * exact.loc[0, 'edge']:+.1f} "
        f"without) and {cell(played, 'edge', points)} under {STRONG}"
    )

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        plots.interval_lines(frame, "head start", "edge", "edge_lo", "edge_hi", "play", "first seat's edge", "", ax=ax)
        ax.axhline(0.0, color="#555555", linestyle="--", linewidth=0.8)
        ax.set_xlabel("boots credited to the second seat at the start (head_start)")

    table = frame.assign(edge=cells(frame, "edge", points))[["head start", "play", "edge"]].rename(
        columns={"edge": "first seat's edge, points (95%)"}
    )
    missing = ", ".join(str(h) for h in HEAD_STARTS if h not in LEARNED_HEAD_STARTS)
    notes = [
        "2 players, base rules; the second seat starts with head_start boots (ours), counted in the score. Edge: "
        "the first seat's share of wins (a shared win counts half) minus a half. Dashed line: a fair game.",
        "Exact (the solver; a head start is another first position): even head starts only, since an odd one "
        "makes the total even and level scores possible, which the solution does not track.",
    ]
    if missing:
        notes.append(
            f"{LEARNED} is not yet measured at head start {missing}: its models for them do not ship "
            "(`simulate train pantolino --set head_start=H`)."
        )
    meaning = (
        f"A {fair}-boot head start for the second player, written into the rules, takes the first seat's edge of "
        f"{100 * exact.loc[0, 'edge']:+.1f} points (exact) to within {within:.1f} points of fair."
    )
    effect = (
        f"with a {fair}-boot head start for the second seat the first seat's edge is "
        f"{100 * exact.loc[fair, 'edge']:+.1f} points (exact) instead of {100 * exact.loc[0, 'edge']:+.1f}"
    )
    return Page(
        title, draw, table, notes, short="A fair head start", meaning=meaning, depends_on={"head_start": effect}
    ), title


PAGES = (policies_page, joker_page, escaping_page, no_token_page, seat_page, head_start_page)

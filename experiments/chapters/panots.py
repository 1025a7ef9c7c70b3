"""The Panots report: faces and their VP, grabbing first, policies, players, solo titles, skill, a fair head start.

Every arm is played from the same seed, so each chunk of every arm shares its chunk seed (common random
numbers: the same faces, tokens and deals until the draws of the players' choices part the streams). The
engine is slow (about 450 greedy 4-player games/s, planner tables a fifth of that), so every table plays
``n_games // ARM_SHARE`` games; each seat order of a head-to-head and each seat rotation of the one-of-each
table plays half that. Faces are measured under the strong heuristic (``STRONG``, which plays for majorities and
looks ahead) with ``BASE`` beside it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from itertools import permutations, product
from typing import Any

import numpy as np
import pandas as pd

from boardlab.analysis import plots, stats
from boardlab.analysis.book import Page
from boardlab.analysis.panels import Panel, facets, figure
from boardlab.analysis.summary import Summary
from boardlab.analysis.tables import cell, cells, estimate, mean
from boardlab.analysis.wording import count, p_clause, p_value, pct, points
from boardlab.engines.panots import INFO, Params
from boardlab.engines.panots.geometry import CARD_FACES, FACE_VP, FACES, TITLES
from boardlab.experiments.chapters import crossplay
from boardlab.experiments.chapters.common import Front, Plan, Question, fair_share, knobs_line, proportion, seat_share
from boardlab.experiments.chapters.flow import Done
from boardlab.experiments.run import RunResult

BASE = "greedy"  # the engine's default policy
STRONG = "planner"  # the strongest heuristic (it beats every other head to head)
POLICY_ORDER = ["random", "greedy", "majority-aware", "planner", "denier"]
TABLE = len(POLICY_ORDER)  # one of each policy at a table of this many players
SEAT_COUNTS = (2, 4, 7)
PLAYER_COUNTS = (1, 2, 3, 4, 5, 6, 7)
SHOWN_COUNTS = (1, 2, 4, 7)  # score distributions drawn on the player-count page
ORDERS = {"random": None, "seat": "seat-order"}  # grab_order -> variant
ARM_SHARE = 10  # every table plays n_games // ARM_SHARE games (the engine plays a few hundred games/s)
MAX_CHUNK = 2_000  # the chapter's chunks: at most this many games, and at most a table's


def arm_games(n_games: int) -> int:
    """Games per table for a report of ``n_games``."""
    return max(1, n_games // ARM_SHARE)


def _name(face: str) -> str:
    """A face as printed: the L face is a capital letter."""
    return "L" if face == "l" else face


def _card(face: str) -> int:
    return next(i for i, pair in enumerate(CARD_FACES) if face in pair) + 1


def _rotation(r: int) -> list[str]:
    return POLICY_ORDER[r:] + POLICY_ORDER[:r]


def _table(policy: str, k: int, order: str) -> str:
    """The label of a table of ``k`` ``policy`` players with grab order ``order`` (:data:`ORDERS`)."""
    return f"{policy} {k}p {order}"


def _solo(policy: str) -> str:
    return _table(BASE, 1, "random") if policy == BASE else f"solo {policy}"


def _summary(results: dict[str, RunResult], policy: str, k: int, order: str = "random") -> Summary:
    """The summary of the table :func:`_table` names."""
    return results[_table(policy, k, order)].summary


def _everyone(plan: Plan, n: int, seed: int, chunk: int, policies: tuple[str, ...], counts: tuple[int, ...]) -> None:
    """Everyone playing each of ``policies``, at each of ``counts`` players, grab order random."""
    for policy, k in product(policies, counts):
        plan.add(_table(policy, k, "random"), [policy] * k, n, seed, chunk)


def _seats(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Every seat count and grab order, everyone greedy, then planner; planner's 2-player tables cross-played.

    The second strong player plays only the 2-player tables: it needs seconds for a 4-player game.
    """
    for policy, k, order in product((BASE, STRONG), SEAT_COUNTS, ORDERS):
        plan.add(_table(policy, k, order), [policy] * k, n, seed, chunk, ORDERS[order])
    for order in ORDERS:
        crossplay.add_arms(plan, [STRONG] * 2, n, seed, chunk, variant=ORDERS[order], check=crossplay.Check(STRONG))


def _tournament(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Every ordered pair of distinct policies and every rotation of the one-of-each table, half the games each."""
    for a, b in permutations(POLICY_ORDER, 2):
        plan.add(f"h2h {a} {b}", [a, b], max(1, n // 2), seed, chunk)
    for r in range(len(POLICY_ORDER)):
        plan.add(f"table rot{r}", _rotation(r), max(1, n // 2), seed, chunk)


def _solos(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Each policy alone."""
    for policy in POLICY_ORDER:
        plan.add(_solo(policy), [policy], n, seed, chunk)


def questions(n: int, seed: int, chunk: int) -> list[Question]:
    """The chapter's own questions, in page order (each table plays the ``n`` it is given: a report's n / ARM_SHARE)."""
    return [
        Question("faces", partial(_everyone, policies=(STRONG, BASE), counts=(4,)), faces_page),
        Question("tuning", partial(_everyone, policies=(STRONG,), counts=(4,)), tuning_page),
        Question("seats", _seats, seat_page),
        Question("policies", _tournament, policies_page),
        Question("players", partial(_everyone, policies=(BASE, STRONG), counts=PLAYER_COUNTS), players_page),
        Question("solo", _solos, solo_page),
    ]


HEADING = "Panots: objectives, grabbing first, policies, player counts, solo titles, skill"


def front(done: Done) -> Front:
    """The chapter's own front-page lines."""
    tables = (
        f"each to a 95% half-width of {done.precision:.2%}"
        if done.precision
        else f"{done.planned.games:,} per table: n={done.planned.n_games:,} / {ARM_SHARE}, as the engine plays a few "
        f"hundred games/s; a head-to-head pair plays half in each seat order, the {TABLE}-policy table half in each "
        f"of {TABLE} rotations; the skill page plays its own pairs"
    )
    return Front(
        game=(
            f"Panots (engine version {INFO.version}): 10 rounds of drafting a 2-panot card and laying it so touching "
            "panots share colour or shape; 4 two-faced objective cards with 8 tokens score the sidewalk."
        ),
        knobs=knobs_line(Params(), _knob),
        policies=(
            f"{BASE} (the engine's default: the card and spot with the largest immediate VP gain, majorities "
            "excluded) at every seat unless a page says otherwise; random (a random placeable card and spot); "
            "majority-aware (greedy plus one point per cell a largest majority group grows; open spots break ties); "
            "planner (majority-aware plus lookahead: the chance that the unseen cards complete the patterns it "
            "starts); denier (greedy plus what a card is worth to every opponent grabbing later); expert (a search "
            "over planner playouts, on the skill page)."
        ),
        games=(
            f"{done.played.games:,} in {done.arms} arms ({tables}; chunks of {done.planned.chunk:,}, common random "
            "numbers). Faces, tokens random per game; grab priority random every round unless a page says otherwise."
        ),
        reading=(
            "95% intervals: Wilson for rates (sole wins unless ties count half), normal for means (over games when "
            "seats are pooled: conservative). Each probability assumes the policies named beside it."
        ),
        closing=("headlines", " | ".join(done.played.headlines)),
    )


def _knob(name: str, value: Any) -> str:
    if name in ("faces", "tokens") and not value:
        return "random per game"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def _pooled_mean(total: float, squares: float, count: float, n_games: int) -> dict[str, float]:
    """Mean and SD of ``count`` values, with a 95% interval over ``n_games`` independent games (conservative).

    As the columns ``mean``, ``mean_lo``, ``mean_hi`` (:func:`estimate`) and ``sd``.
    """
    mean = total / count
    sd = math.sqrt(max(squares / count - mean * mean, 0.0) * count / max(count - 1, 1))
    half = stats.Z95 * sd / math.sqrt(n_games)
    return {**estimate("mean", (mean, mean - half, mean + half)), "sd": sd}


# --- 1. objective faces ---------------------------------------------------------------------------------------


def faces_frame(s: Summary) -> pd.DataFrame:
    """Per face: games in play, mean VP per player when in play (interval over games), SD, occurrences."""
    rows = []
    for f, face in enumerate(FACES):
        games, vp = int(s.sums["face_up"][f]), f"vp_{face}"
        if games:
            pooled = _pooled_mean(float(s.sums[vp].sum()), float(s.squares[vp].sum()), games * s.players, games)
            rows.append({"face": face, "card": _card(face), "vp each": FACE_VP[f], "games": games, **pooled})
    return pd.DataFrame(rows)


def faces_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """Mean VP and its spread per objective face (when the face is in play), 4 strong players, greedy beside."""
    s = _summary(results, STRONG, 4)
    frame = faces_frame(s)
    beside = faces_frame(_summary(results, BASE, 4)).set_index("face")
    top = frame.loc[frame["mean"].idxmax()]
    least = frame.loc[frame["mean"].idxmin()]
    wide = frame.loc[frame["sd"].idxmax()]
    who = "" if wide["face"] == top["face"] else f"{_name(wide['face'])} "
    title = (
        f"Under {STRONG} play the {_name(top['face'])} face gives the most points, {top['mean']:.2f} VP "
        f"({top['mean_lo']:.2f}–{top['mean_hi']:.2f}) per player when in play, and {who}spreads widest (SD "
        f"{wide['sd']:.2f} VP); {_name(least['face'])} gives least ({least['mean']:.2f} VP); not checked under a "
        "second strong player"
    )
    frame["label"] = [f"{_name(f)}\n(card {c})" for f, c in zip(frame["face"], frame["card"], strict=True)]
    both = pd.concat(
        [frame.assign(policy=STRONG), beside.reset_index().assign(policy=BASE, label=list(frame["label"]))]
    )

    def draw(fig: Any) -> None:
        left, right = fig.subplots(1, 2)
        face = Panel(both, "label", "mean", "policy", "mean VP per player when in play (VP)", "objective face")
        replace(face, ticks={"labelsize": 8}).draw(left)
        right.bar(range(len(frame)), frame["sd"], width=0.8, color="#bbbbbb", hatch="//", edgecolor="#000000", lw=0.5)
        right.set_xticks(range(len(frame)), list(frame["label"]))
        right.set(xlabel=f"objective face ({STRONG})", ylabel="SD of a player's VP from the face, when in play (VP)")
        right.tick_params(axis="x", labelsize=8)

    mean_score = float(s.score_sum.sum()) / (s.n_games * s.players)
    table = pd.DataFrame(
        {
            "face": [_name(f) for f in frame["face"]],
            "card": frame["card"],
            "VP per occurrence": frame["vp each"],
            "games in play": [f"{g:,}" for g in frame["games"]],
            f"mean VP per player ({STRONG})": cells(frame, "mean", mean(2)),
            f"mean VP per player ({BASE})": [cell(beside.loc[f], "mean", mean(2)) for f in frame["face"]],
            "SD (VP)": [f"{v:.2f}" for v in frame["sd"]],
            "occurrences per player": [f"{m / v:.2f}" for m, v in zip(frame["mean"], frame["vp each"], strict=True)],
            "share of a mean score": [f"{100 * m / mean_score:.0f}%" for m in frame["mean"]],
        }
    )
    means = frame.set_index("face")["mean"]
    pairs = [f"card {_card(a)}: {_name(a)} {means[a]:.2f} vs {_name(b)} {means[b]:.2f}" for a, b in CARD_FACES]
    notes = [
        f"4 players, everyone plays {STRONG} (it plays for the majorities and looks ahead), {BASE} beside it in the "
        f"table and the bars; faces and tokens random per game, {s.n_games:,} games (each face is in play in about "
        "half of them). Mean and SD are over the players of the games where the face shows; intervals are over "
        "games. Majority occurrences are majorities won (3 VP each, ties all score). "
        f"Mean score {mean_score:.2f} VP per player ({STRONG}). Faces of the same card: " + "; ".join(pairs) + ".",
        f"Not checked under a second strong player: the faces need thousands of 4-player games, and "
        f"{crossplay.second('panots') or 'the expert'} plays one in seconds (a report would take hours).",
    ]
    return Page(title, draw, table, notes), title


def tuning_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """VP per occurrence that would give every face the mean of the faces' mean VP, if occurrences stayed put."""
    target = float(frame["mean"].mean())
    occurrences = frame["mean"] / frame["vp each"]
    suggested = np.clip(np.rint(target / occurrences.clip(lower=1e-9)), 1, 9).astype(int)
    return frame.assign(occurrences=occurrences, suggested=suggested, predicted=suggested * occurrences, target=target)


def tuning_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """VP per face tuned toward equal worth, from the occurrences measured under strong play."""
    frame = tuning_frame(faces_frame(_summary(results, STRONG, 4)))
    now, then = ((float(frame[c].min()), float(frame[c].max())) for c in ("mean", "predicted"))
    changed = frame[frame["suggested"] != frame["vp each"]]
    moves = ", ".join(f"{_name(f)} {a}→{b}" for f, a, b in changed[["face", "vp each", "suggested"]].to_numpy())
    title = (
        f"Toward balanced faces: VP per occurrence {moves or 'unchanged'} would bring every face to "
        f"{then[0]:.2f}–{then[1]:.2f} VP per player (now {now[0]:.2f}–{now[1]:.2f}), if {STRONG} players "
        "kept making as many"
    )
    vp = {f: int(v) for f, v in zip(frame["face"], frame["suggested"], strict=True)}
    setting = ",".join(str(vp.get(f, FACE_VP[i])) for i, f in enumerate(FACES))

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        x = np.arange(len(frame))
        for dx, y, colour, hatch, label in (
            (-0.2, "mean", "#bbbbbb", None, "VP now"),
            (0.2, "predicted", "#ffffff", "//", "VP with the suggested values (predicted)"),
        ):
            ax.bar(x + dx, frame[y], width=0.4, color=colour, hatch=hatch, edgecolor="#000000", lw=0.5, label=label)
        ax.axhline(float(frame["target"].iloc[0]), color="#555555", linestyle="--", lw=1, label="target: the mean face")
        ax.set_xticks(x, [_name(f) for f in frame["face"]])
        ax.set(xlabel="objective face", ylabel="mean VP per player when in play (VP)")
        ax.legend(frameon=True, facecolor="white", framealpha=0.9, edgecolor="#999999", fontsize=8)

    table = pd.DataFrame(
        {
            "face": [_name(f) for f in frame["face"]],
            "VP per occurrence now": frame["vp each"],
            "occurrences per player": [f"{v:.2f}" for v in frame["occurrences"]],
            "mean VP now": [f"{v:.2f}" for v in frame["mean"]],
            "suggested VP per occurrence": frame["suggested"],
            "predicted mean VP": [f"{v:.2f}" for v in frame["predicted"]],
        }
    )
    notes = [
        f"From the {STRONG} 4-player games of the face page. Target: the mean over the faces of their mean VP per "
        f"player ({float(frame['target'].iloc[0]):.2f} VP); suggested VP = target / occurrences, rounded to 1..9. "
        "A first-order estimate: players who are paid differently place differently (a face worth more is sought "
        f"more), so check it by playing it: simulate panots --policy {STRONG} --players 4 --set face_vp={setting}.",
    ]
    return Page(title, draw, table, notes), title


# --- 2. seat and grab priority --------------------------------------------------------------------------------


def seat_frame(results: dict[str, RunResult]) -> pd.DataFrame:
    """Per player count, grab order and seat: sole-win rate and its interval."""
    rows = []
    for k, order in product(SEAT_COUNTS, ORDERS):
        s = _summary(results, BASE, k, order)
        rows += [
            {"players": k, "order": f"grab_order={order}", "seat": str(seat), **estimate("rate", seat_share(s, seat))}
            for seat in range(k)
        ]
    return pd.DataFrame(rows)


def _second(results: dict[str, RunResult], k: int, order: str) -> crossplay.Figure | None:
    """Seat 0's sole-win rate when everyone plays the second strong player in place of ``STRONG`` (cross arm)."""
    cross = crossplay.result_of(results, "panots", [STRONG] * k, variant=ORDERS[order], strong=STRONG)
    if cross is None:
        return None
    return crossplay.Figure(f"everyone {crossplay.second('panots')}", *seat_share(cross.summary), cross.summary.n_games)


def seat_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """Seat win rates with a random grab priority per round and with seat order, 2, 4 and 7 players."""
    frame = seat_frame(results)
    other = crossplay.second("panots")
    table = []
    for k, order in product(SEAT_COUNTS, ORDERS):
        s = _summary(results, BASE, k, order)
        table.append(
            {
                "players": k,
                "grab order": order,
                "seat 0 wins": pct(*seat_share(s)),
                "last seat wins": pct(*seat_share(s, -1)),
                "fair share": f"{100 * fair_share(s):.1f}%",
                "seat 0 edge, pts": points(*stats.seat_edge(s.wins, s.n_games)),
                "p (seat 0 = last)": p_value(stats.seats_apart(s.wins, s.n_games)[3]),
                "shared games": f"{100 * (1 - s.wins.sum() / s.n_games):.1f}%",
                f"seat 0 wins ({STRONG})": pct(*seat_share(_summary(results, STRONG, k, order))),
                f"seat 0 wins ({other})": "—" if (x := _second(results, k, order)) is None else pct(*x.interval),
            }
        )
    seat4, rand4 = _summary(results, BASE, 4, "seat"), _summary(results, BASE, 4)
    strong4 = _summary(results, STRONG, 4, "seat")
    title = (
        "The worth of grabbing first: when seat 0 always grabs first (a measuring device, not a rulebook mode), "
        f"it wins {pct(*seat_share(seat4))} of 4-player games and the last seat "
        f"{100 * seat4.wins[3] / seat4.n_games:.1f}%; with a random order per round seat 0 wins "
        f"{pct(*seat_share(rand4))} (fair share {100 * fair_share(rand4):.1f}%); "
        f"among {STRONG} players grabbing first wins {100 * strong4.wins[0] / strong4.n_games:.1f}% (not checked "
        "under a second strong player at 4 players)"
    )
    figures = [crossplay.Figure(f"everyone {STRONG}", *seat_share(_summary(results, STRONG, 2, "seat")))]
    if (second := _second(results, 2, "seat")) is not None:
        figures.append(second)
    title += f"; at 2 players grabbing first wins {crossplay.beside(figures)}"
    seats = Panel(frame, "seat", "rate", "order", "", "", legend=False)
    fair = {k: fair_share(_summary(results, BASE, k)) for k in SEAT_COUNTS}
    panels = facets(seats, "players", SEAT_COUNTS, xlabel=lambda k: f"seat, {k} players", reference=fair.get)
    ylim = (0, 1.2 * float(frame["rate_hi"].max()))
    panels[0] = replace(panels[0], ylabel="sole-win rate (fraction of games)", legend=True, ylim=ylim)
    draw = figure(*panels, sharey=True, widths=[2.5, 4, 7])
    notes = [
        f"Everyone plays {BASE} ({STRONG} in the last column); {_summary(results, BASE, 2).n_games:,} games per player "
        "count and order. grab_order=random: a fresh random priority every round (our default reading of the "
        "simultaneous grab); seat: seat 0 grabs first every round, which the rulebook never prescribes: it measures "
        "what grabbing first is worth (a fast hand). Dashed line: a fair share of the sole wins (random order). Edge: "
        "seat 0's sole-win rate minus the mean seat's, in percentage points. p: z-test that seat 0 and the last seat "
        "win equally often (same games).",
        crossplay.note(figures, strong=STRONG)
        + " Only the 2-player tables are checked: the expert plays a 4-player game in seconds, too slow for a "
        "report's 4- and 7-player tables.",
    ]
    return Page(title, draw, pd.DataFrame(table), notes), title


# --- 3. policy tournament -------------------------------------------------------------------------------------


def _h2h(results: dict[str, RunResult], a: str, b: str) -> tuple[float, int, float]:
    """Games won by ``a`` against ``b`` (ties count half), games, and ``a``'s VP summed, over both seat orders."""
    first, second = results[f"h2h {a} {b}"].summary, results[f"h2h {b} {a}"].summary
    return *stats.head_to_head(first, second, tie=0.5), float(first.score_sum[0] + second.score_sum[1])


def _rotations(results: dict[str, RunResult]) -> list[tuple[list[str], Summary]]:
    """Each rotation of the one-of-each table: its seats' policies and its summary."""
    return [(_rotation(r), results[f"table rot{r}"].summary) for r in range(TABLE)]


def table_parts(results: dict[str, RunResult], weights: dict[str, float]) -> list[tuple[Any, int, np.ndarray]]:
    """The one-of-each table's rotations with per-seat weights given per policy (for :func:`stats.contrast`)."""
    return [(s.wins, s.n_games, np.array([weights.get(p, 0.0) for p in seats])) for seats, s in _rotations(results)]


def policies_frame(results: dict[str, RunResult]) -> pd.DataFrame:
    """Per policy: sole-win rate at the one-of-each table, its VP there, and its head-to-head record."""
    rows = []
    for p in POLICY_ORDER:
        at = [(s, seats.index(p)) for seats, s in _rotations(results)]
        n = sum(s.n_games for s, _ in at)
        wins, shared, vp, sq = (
            sum(float(getattr(s, field)[seat]) for s, seat in at)
            for field in ("wins", "shared_wins", "score_sum", "score_sq")
        )
        h_wins, h_n, h_vp = map(sum, zip(*(_h2h(results, p, q) for q in POLICY_ORDER if q != p), strict=True))
        rows.append(
            {
                "policy": p,
                **estimate("rate", proportion(wins, n)),
                "shared": shared / n,
                **estimate("vp", [float(v) for v in stats.mean_interval(vp, sq, n)]),
                **estimate("h2h", proportion(h_wins, h_n)),
                "h2h_vp": h_vp / h_n,
                "games": n,
            }
        )
    return pd.DataFrame(rows)


def policies_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """Every heuristic and random: 2-player head-to-heads and one of each at a table."""
    frame = policies_frame(results)
    ranked = frame.sort_values("rate", ascending=False)
    best, second = ranked.iloc[0], ranked.iloc[1]
    fair = float(frame["rate"].sum()) / len(POLICY_ORDER)
    gap = stats.contrast(table_parts(results, {best["policy"]: 1.0, second["policy"]: -1.0}))
    foe = BASE if best["policy"] != BASE else str(second["policy"])
    duel = _h2h(results, str(best["policy"]), foe)
    if gap[3] < 0.05:
        who, rates = f"{best['policy']} wins", cell(best, "rate")
    else:  # the top two are not told apart at this n
        who = f"{best['policy']} and {second['policy']} win"
        rates = f"{100 * best['rate']:.1f}% and {100 * second['rate']:.1f}%"
    title = (
        f"{who} the most {TABLE}-player games against one each of the others, {rates} (fair share {100 * fair:.1f}%); "
        f"head to head {best['policy']} wins {pct(*proportion(duel[0], duel[1]))} of 2-player games against {foe}"
    )
    matrix = pd.DataFrame(np.nan, index=POLICY_ORDER, columns=POLICY_ORDER)
    for a, b in permutations(POLICY_ORDER, 2):
        w, g, _ = _h2h(results, a, b)
        matrix.loc[a, b] = w / g

    def draw(fig: Any) -> None:
        left, right = fig.subfigures(1, 2, width_ratios=[1.1, 1])
        plots.heatmap(matrix, "2-player win rate of row policy (ties count half)", fig=left)
        ylabel = f"sole-win rate at the {TABLE}-player table (fraction)"
        Panel(frame, "policy", "rate", None, ylabel, "policy (one of each at the table)", fair).draw(right.subplots())

    table = pd.DataFrame(
        {
            "policy": frame["policy"],
            f"{TABLE}-player table: sole wins": cells(frame, "rate"),
            "shared wins": [f"{100 * v:.1f}%" for v in frame["shared"]],
            "VP at the table": cells(frame, "vp", mean(2)),
            "head-to-head win rate": cells(frame, "h2h"),
            "VP head to head": [f"{v:.2f}" for v in frame["h2h_vp"]],
        }
    )
    h2h_games = results[f"h2h {POLICY_ORDER[0]} {POLICY_ORDER[1]}"].summary.n_games * 2
    notes = [
        f"Heatmap: 2 players, {h2h_games:,} games per pair over both seat orders, ties count half. Bars and table: one "
        f"of each policy at a {TABLE}-player table, rotated over the {TABLE} seats ({int(frame['games'].iloc[0]):,} "
        f"games); dashed line: a fair share of the sole wins. {best['policy']} minus {second['policy']} at the table: "
        f"{points(*gap[:3])} points, {p_clause(gap[3])} (z-test, same games). Grab priority random per round.",
    ]
    return Page(title, draw, table, notes), title


# --- 4. scores by player count --------------------------------------------------------------------------------


def players_frame(results: dict[str, RunResult]) -> pd.DataFrame:
    """Per player count: mean VP per player (interval over games), SD, quantiles, ties, discards."""
    rows = []
    for k in PLAYER_COUNTS:
        s, strong = _summary(results, BASE, k), _summary(results, STRONG, k)
        hist = s.score_hist.sum(axis=0)
        rows.append(
            {
                "players": k,
                **_pooled_mean(float(s.score_sum.sum()), float(s.score_sq.sum()), s.n_games * k, s.n_games),
                **{f"p{q}": stats.histogram_quantile(hist, q / 100) for q in (10, 50, 90)},
                "shared": 1 - float(s.wins.sum()) / s.n_games if k > 1 else float("nan"),
                **{c: int(s.sums[c].sum()) for c in ("discarded", "swapped")},
                **{d: float(s.sums[d].sum()) / (s.n_games * k) for d in ("width", "height")},
                "majority": float(s.sums["vp_majority"].sum()) / max(int(s.sums["face_up"][7]) * k, 1),
                "games": s.n_games,
                "strong": float(strong.score_sum.sum()) / (strong.n_games * k),
            }
        )
    return pd.DataFrame(rows)


def players_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """Score distributions of greedy players with 1 to 7 players."""
    frame = players_frame(results)
    by = frame.set_index("players")

    def ci(k: int) -> str:
        return f"{by.loc[k, 'mean']:.1f} VP ({by.loc[k, 'mean_lo']:.1f}–{by.loc[k, 'mean_hi']:.1f})"

    title = (
        f"A greedy player scores {ci(2)} with 2 players, {ci(4)} with 4 and {ci(7)} with 7 "
        f"(solo {by.loc[1, 'mean']:.1f} VP); the middle 80% spans {by.loc[4, 'p10']}–{by.loc[4, 'p90']} VP at 4; "
        f"{STRONG} players score {by.loc[2, 'strong']:.1f}, {by.loc[4, 'strong']:.1f} and {by.loc[7, 'strong']:.1f}"
    )

    def draw(fig: Any) -> None:
        left, right = fig.subplots(1, 2)
        hists = {count(k, "player"): _summary(results, BASE, k).score_hist.sum(axis=0) for k in SHOWN_COUNTS}
        plots.shares(left, hists, "final score of a player (VP)", "share of players (fraction)")
        left.legend(frameon=True, facecolor="white", framealpha=0.9, edgecolor="#999999", fontsize=8)
        band = frame.assign(label="mean (95% interval band)")
        Panel(band, "players", "mean", "label", "VP per player", "players", kind="line").draw(right)
        right.plot(frame["players"], frame["p90"], color="#777777", linestyle="--", marker="^", label="90th percentile")
        right.plot(frame["players"], frame["p50"], color="#555555", linestyle=":", marker="s", label="median")
        right.plot(frame["players"], frame["p10"], color="#777777", linestyle="--", marker="v", label="10th percentile")
        right.set_xticks(PLAYER_COUNTS)
        right.legend(frameon=True, facecolor="white", framealpha=0.9, edgecolor="#999999", fontsize=8)

    table = pd.DataFrame(
        {
            "players": frame["players"],
            "mean VP per player": cells(frame, "mean", mean(2)),
            f"mean VP ({STRONG} table)": [f"{v:.2f}" for v in frame["strong"]],
            "SD (VP)": [f"{v:.2f}" for v in frame["sd"]],
            "10th / 50th / 90th pct": [" / ".join(map(str, r)) for r in frame[["p10", "p50", "p90"]].to_numpy()],
            "majority VP (in play)": ["—" if k == 1 else f"{v:.2f}" for k, v in by["majority"].items()],
            "sidewalk box (cells)": [f"{w:.1f} × {h:.1f}" for w, h in frame[["width", "height"]].to_numpy()],
            "shared games": ["—" if math.isnan(v) else f"{100 * v:.1f}%" for v in frame["shared"]],
        }
    )
    notes = [
        f"Everyone plays {BASE} (a table of {STRONG} players beside it), faces and tokens random per game, "
        f"{int(frame['games'].iloc[0]):,} games per player count. Solo is a different game (two leftovers, card 4 "
        "always shows space, no majorities). Scores pool every seat; intervals are over games. Sidewalk box: mean "
        f"width × height of a sidewalk's bounding box. Grabbed cards with no legal spot: {_stuck(frame)}.",
    ]
    return Page(title, draw, table, notes), title


def _stuck(frame: pd.DataFrame) -> str:
    """How many grabbed cards had no legal spot, over every player-game of the page."""
    swapped, discarded = int(frame["swapped"].sum()), int(frame["discarded"].sum())
    sidewalks = int((frame["games"] * frame["players"]).sum())
    return f"{swapped:,} swapped for a leftover and {discarded:,} discarded in {sidewalks:,} sidewalks"


# --- 5. solo titles -------------------------------------------------------------------------------------------


def _solo_summaries(results: dict[str, RunResult]) -> dict[str, Summary]:
    """Each policy's solo summary."""
    return {p: results[_solo(p)].summary for p in POLICY_ORDER}


def solo_frame(results: dict[str, RunResult]) -> pd.DataFrame:
    """Per solo policy and title: share of games ending with that title, with its Wilson interval."""
    return pd.DataFrame(
        {"policy": p, "title": name, **estimate("rate", proportion(int(s.sums["title"][t]), s.n_games))}
        for p, s in _solo_summaries(results).items()
        for t, name in enumerate(TITLES)
    )


def solo_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """How often each solo title is reached by each policy."""
    frame = solo_frame(results)
    greedy = frame[frame["policy"] == BASE].set_index("title")
    mode = str(greedy["rate"].idxmax())
    solos = _solo_summaries(results)
    means = {p: s.mean_score() for p, s in solos.items()}
    best = max(POLICY_ORDER, key=lambda p: float(means[p][0][0]))
    s_best = solos[best]
    high = int(sum(s_best.sums["title"][TITLES.index(t)] for t in ("master", "legend")))
    title = (
        f"Playing solo, {BASE} most often ends {mode}: {cell(greedy.loc[mode], 'rate')} of games; "
        f"{best} scores most ({float(means[best][0][0]):.1f} VP) and reaches master or legend in "
        f"{pct(*proportion(high, s_best.n_games))} of games"
    )
    draw = figure(Panel(frame, "title", "rate", "policy", "share of solo games (fraction)", "title reached"))
    rows = [
        {"policy": p, "mean VP": mean(1)(*(float(v[0]) for v in means[p]))}
        | {name: f"{100 * s.sums['title'][t] / s.n_games:.1f}%" for t, name in enumerate(TITLES)}
        for p, s in solos.items()
    ]
    notes = [
        f"1 player, {solos[BASE].n_games:,} games per policy; two leftovers in the warehouse, card 4 "
        "shows space. Titles: 0 VP none, 1–5 beginner, 6–10 apprentice, 11–15 professional, 16–20 master, "
        "above 20 legend. Each share assumes the policy beside it. Alone, denier has nobody to deny and plays "
        f"exactly as {BASE}.",
    ]
    return Page(title, draw, pd.DataFrame(rows), notes), title

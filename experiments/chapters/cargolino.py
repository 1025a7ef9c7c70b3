"""The Cargolino Valentino report: seats, hidden and open ownership, race length, board, skill ladder.

Every arm is played from the same seed, so each chunk of every arm shares its chunk seed (common random
numbers). The ``detective`` (the strongest heuristic) keeps an exact Bayesian belief and is slow with several at
the table, so arms with detective opponents play ``n / STRONG_SHARE`` games per player count, split over the
seats the focal player takes, and arms with one detective among selfish players ``n / DETECTIVE_SHARE``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import reduce
from typing import Any

import pandas as pd

from boardlab.analysis import plots, stats
from boardlab.analysis.book import Page
from boardlab.analysis.panels import Panel, facets, figure
from boardlab.analysis.summary import Summary
from boardlab.analysis.tables import cell, cells, estimate, mean
from boardlab.analysis.wording import interval, p_value, pct, points
from boardlab.engines.cargolino import INFO, Params
from boardlab.engines.cargolino.rules import COLOURS, TRACK_CYCLE
from boardlab.experiments.chapters.common import Front, Plan, Question, fair_share, knobs_line, proportion
from boardlab.experiments.chapters.flow import Done
from boardlab.experiments.run import RunResult

BASE = "selfish"  # the weak table: board pages, and beside the strong results
STRONG = "detective"  # the strongest heuristic: strong tables
PLAYER_COUNTS = (2, 3, 4, 5, 6)
LENGTH_POLICIES = ("random", "blocker")  # extra 4-player tables for the length page
TRACKS = {12: "short-track", 18: None, 24: None, 36: None}  # track spaces -> variant (None: set the track knob)
DETECTIVE_SHARE = 2  # one detective among selfish players: n / DETECTIVE_SHARE games per player count
STRONG_SHARE = 10  # tables of detectives (or one player among them): n / STRONG_SHARE games per player count
HIDER = "detective:hide=0.125"  # the old detective's habit: advance an own snail that loses nothing, 1 die in 8
FOCAL = ("hindmost", STRONG, HIDER, "oracle")  # one of these among BASE or STRONG players
OPPONENTS = (BASE, STRONG)
ALL_SAME = {STRONG: "strong", BASE: "seats"}  # each opponent policy's all-same table (label prefix), in table order
TABLES = {"seats": (BASE, None), "strong": (STRONG, None), "open": (STRONG, "open-ownership")}  # -> policy, variant
EDGE = "seat 0 edge over the mean seat (fraction of games)"  # the board pages' left panel


def _thirds(front: int, middle: int, back: int, length: int = 24) -> str:
    """Shells by thirds of the track: start and first third ``front``, then ``middle``, last third and finish."""
    third = length // 3
    return ",".join(str(v) for v in (front, *[front] * third, *[middle] * third, *[back] * third, back))


def _graded(length: int = 24) -> str:
    """One shell fewer every three spaces: 9 on the start and spaces 1-3, down to 2 on spaces 22-24; finish 1."""
    return ",".join(str(v) for v in (9, *(9 - (i - 1) // 3 for i in range(1, length + 1)), 1))


SHELLS = {
    "3/2/1 (default)": None,
    "5/3/1 (doubled steps)": _thirds(5, 3, 1),
    "graded 9→2 (a shell per 3 spaces)": _graded(),
    "2/2/1 (only last third drops)": _thirds(2, 2, 1),
    "2/1/1 (only first third gains)": _thirds(2, 1, 1),
}


def _track(spaces: int) -> tuple[tuple[str, str], ...]:
    return (("track", ",".join(TRACK_CYCLE * (spaces // len(TRACK_CYCLE)))),)


def _strong(n: int) -> int:
    """Games per player count of a table of detectives (or of one player among them)."""
    return max(1, n // STRONG_SHARE)


def _among(policy: str, opponent: str) -> str:
    """The label prefix of ``policy`` alone among ``opponent`` players (``{prefix} {k}@{seat}`` per seat)."""
    return f"{policy} among {opponent}"


def _table(plan: Plan, prefix: str, n: int, seed: int, chunk: int) -> None:
    """Everyone at a ``prefix`` table (:data:`TABLES`) per player count; detective tables play ``n / STRONG_SHARE``."""
    policy, variant = TABLES[prefix]
    for k in PLAYER_COUNTS:
        plan.add(f"{prefix} {k}", [policy] * k, n if policy == BASE else _strong(n), seed, chunk, variant)


def _one_among(
    plan: Plan, policy: str, opponent: str, n: int, seed: int, chunk: int, variant: str | None = None
) -> None:
    """One ``policy`` among ``opponent``s in each seat (``open {policy}`` under a variant); detectives play fewer."""
    games = _strong(n) if opponent == STRONG else n // DETECTIVE_SHARE if "detective" in policy else n
    prefix = f"open {policy}" if variant else _among(policy, opponent)
    for k in PLAYER_COUNTS:
        for seat in range(k):
            seats = [opponent] * k
            seats[seat] = policy
            plan.add(f"{prefix} {k}@{seat}", seats, max(1, games // k), seed, chunk, variant)


def _seats(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Everyone ``BASE`` and everyone ``STRONG``, per player count."""
    _table(plan, "seats", n, seed, chunk)
    _table(plan, "strong", n, seed, chunk)


def _information(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Each focal policy alone among each opponent policy, and the opponents' own tables (the mean seat)."""
    _seats(plan, n, seed, chunk)
    for opponent in OPPONENTS:
        for policy in FOCAL:
            if policy != opponent:
                _one_among(plan, policy, opponent, n, seed, chunk)


def _open(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Detective tables with hidden and with open ownership, each with one hindmost player in every seat."""
    for prefix in ("strong", "open"):
        _table(plan, prefix, n, seed, chunk)
        _one_among(plan, "hindmost", STRONG, n, seed, chunk, variant=TABLES[prefix][1])


def _length(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """The detective and ``BASE`` tables, 4-player tables of the length policies, one oracle among others (4 shown)."""
    _seats(plan, n, seed, chunk)
    for policy in LENGTH_POLICIES:
        plan.add(f"length {policy} 4", [policy] * 4, n, seed, chunk)
    for opponent in OPPONENTS:
        _one_among(plan, "oracle", opponent, n, seed, chunk)


def _tracks(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Everyone ``BASE`` on every track length (24 spaces: the ``seats`` tables)."""
    _table(plan, "seats", n, seed, chunk)
    for k in PLAYER_COUNTS:
        for spaces, variant in TRACKS.items():
            if spaces != 24:
                plan.add(f"track {spaces} {k}", [BASE] * k, n, seed, chunk, variant, () if variant else _track(spaces))


def _shells(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Everyone ``BASE`` with every shell scale (the default: the ``seats`` tables)."""
    _table(plan, "seats", n, seed, chunk)
    for k in PLAYER_COUNTS:
        for name, shells in SHELLS.items():
            if shells is not None:
                plan.add(f"shells {name} {k}", [BASE] * k, n, seed, chunk, settings=(("shells", shells),))


def questions(n: int, seed: int, chunk: int) -> list[Question]:
    """The chapter's own questions, in page order."""
    return [
        Question("seats", _seats, seat_page),
        Question("hidden information", _information, information_page),
        Question("open ownership", _open, open_page),
        Question("length", _length, length_page),
        Question("track", _tracks, track_page),
        Question("shells", _shells, shells_page),
    ]


HEADING = "Cargolino Valentino: seats, hidden snails, race length, board"


def front(done: Done) -> Front:
    """The chapter's own front-page lines."""
    played, n_games = done.played, done.planned.n_games
    sizes = f"each to a 95% half-width of {done.precision:.2%}" if done.precision else f"{n_games:,} per {BASE} table"
    detective_games = sum(
        r.summary.n_games for a, r in played.results.items() if a.startswith(("strong", "open")) or STRONG in a
    )
    return Front(
        game=(
            f"Cargolino Valentino (engine version {INFO.version}): 2 races of 6 snails; each player secretly holds 1 "
            "or 2 and pushes the others with 4 colour dice; held snails score more shells the further back they end."
        ),
        knobs=knobs_line(Params(), _knob),
        policies=(
            f"{STRONG} (Bayesian belief over the deal; takes the most shells from the opponents, the leader's first, "
            "over shell thresholds first; ends the race when ahead; never hides) is the strong table; "
            f"{BASE} (push the others' snails, farthest first) the weak one. hindmost: the same rule with no "
            f"ownership information; {HIDER}: the detective advancing an own snail that loses nothing with chance "
            "1/8 per die (the old default); oracle: the rule with the true deal (cheats). random, blocker: length "
            "page. The expert (search) plays too slowly for this report's arms: `simulate ladder cargolino` rates it."
        ),
        games=(
            f"{played.games:,} in {done.arms} arms ({sizes}, chunks of {done.planned.chunk:,}, common random "
            f"numbers); tables with {STRONG} opponents play "
            f"{n_games // STRONG_SHARE:,} games per player count ({detective_games:,} in all). Win rates count "
            "sole wins; every rate has its 95% interval (Wilson for proportions, normal for means)."
        ),
        closing=("headlines", " | ".join(played.headlines)),
    )


def _knob(name: str, value: Any) -> str:
    if name == "track":
        return f"{len(value)} spaces ({'-'.join(value[:6])} repeated)"
    if name == "shells":
        return ",".join(str(v) for v in value) if value else "3/2/1 by thirds"
    if name == "faces":
        return "the 6 colours" if tuple(value) == COLOURS else ",".join(value)
    return str(value)


def _race_turns(s: Summary) -> tuple[float, float, float]:
    """Mean turns per race (both races of a game pooled per game) and its interval."""
    mean, low, high = s.mean_turns()
    return mean / 2, low / 2, high / 2


# --- 1. seat advantage ----------------------------------------------------------------------------------------


def seat_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """Each seat's win rate with 2-6 detective players (selfish beside), against a fair share of the sole wins."""
    rows, table = [], []
    for k in PLAYER_COUNTS:
        for policy, prefix in ALL_SAME.items():
            s = results[f"{prefix} {k}"].summary
            rates = [proportion(int(wins), s.n_games) for wins in s.wins]
            if policy == STRONG:
                rows += [{"players": k, "seat": f"seat {seat}", **estimate("rate", r)} for seat, r in enumerate(rates)]
            table.append(
                {
                    "players": k,
                    "table": policy,
                    "seat 0 (first) wins": pct(*rates[0]),
                    "last seat wins": pct(*rates[-1]),
                    "fair share": f"{100 * fair_share(s):.1f}%",
                    "seat 0 edge, pts": points(*stats.seat_edge(s.wins, s.n_games)),
                    "shared games": f"{100 * (1 - s.wins.sum() / s.n_games):.1f}%",
                    "p (seat 0 = last)": p_value(stats.seats_apart(s.wins, s.n_games)[3]),
                }
            )
    strong2, weak2 = table[:2]  # 2 players: the detective table, then the weak one
    title = (
        f"With 2 detectives the first player wins {strong2['seat 0 (first) wins']} of 2-player games (fair share "
        f"{strong2['fair share']}); with 2 {BASE} players {weak2['seat 0 (first) wins']}"
    )

    seats = Panel(pd.DataFrame(rows), "seat", "rate", None, "", "", ticks={"rotation": 90, "labelsize": 8})
    each = {
        "xlabel": lambda k: f"{k} players",
        "reference": lambda k: fair_share(results[f"strong {k}"].summary),
        "ylabel": lambda k: "sole-win rate (fraction of games)" if k == PLAYER_COUNTS[0] else "",  # first panel only
    }
    draw = figure(*facets(seats, "players", PLAYER_COUNTS, **each), sharey=True)

    notes = [
        f"Figure: everyone plays {STRONG} ({results['strong 2'].summary.n_games:,} games per player count); the "
        f"table adds all-{BASE} tables ({results['seats 2'].summary.n_games:,} games). Seat 0 starts race 1; the "
        "player after the one who used the last die starts race 2. Dashed line: a fair share of the sole wins "
        "(games not shared, divided by the players). Edge: seat 0's sole-win rate minus the mean seat's, in "
        "percentage points. p: z-test that seat 0 and the last seat win equally often (same games).",
    ]
    return Page(title, draw, pd.DataFrame(table), notes), title


# --- 2. hidden information ------------------------------------------------------------------------------------


def prior_accuracy(players: int) -> float:
    """Mean probability a uniform belief gives the true owner (a seat or nobody) of each snail one does not hold."""
    each = Params().each(players)
    unowned = 6 - players * each
    others = 6 - each
    return ((players - 1) * each * each + unowned * unowned) / (others * others)


def _rotation(results: dict[str, RunResult], prefix: str, k: int) -> list[tuple[int, Summary]]:
    """Each focal seat and the summary of its ``prefix {k}@{seat}`` arm, rotated over every seat."""
    return [(seat, results[f"{prefix} {k}@{seat}"].summary) for seat in range(k)]


def _accuracy(results: dict[str, RunResult], k: int) -> tuple[float, float, float]:
    """The detective's mean belief in the true owners at race end, one detective among ``BASE``, with its interval."""
    arms = _rotation(results, _among(STRONG, BASE), k)
    sums = (
        sum(float(getattr(s, part)["belief_accuracy"][seat]) for seat, s in arms)
        for part in ("sums", "squares", "counts")
    )
    mean, low, high = stats.mean_interval(*sums)
    return float(mean), float(low), float(high)


def gain_row(results: dict[str, RunResult], prefix: str, base_label: str, k: int) -> dict[str, float]:
    """One focal seat's sole-win rate over ``prefix`` arms and its gain over the mean seat of ``base_label``."""
    s = results[base_label].summary
    tied = 1 - float(s.wins.sum()) / s.n_games  # the mean seat wins a fair share, its variance from the ties alone
    base = (1 - tied) / k
    arms = _rotation(results, prefix, k)
    n = sum(a.n_games for _, a in arms)
    rate = proportion(sum(int(a.wins[seat]) for seat, a in arms), n)
    gain = rate[0] - base
    half = stats.Z95 * math.sqrt(rate[0] * (1 - rate[0]) / n + tied * (1 - tied) / s.n_games / k**2)
    return {**estimate("rate", rate), "base": base, **estimate("gain", (gain, gain - half, gain + half))}


def information_frame(results: dict[str, RunResult]) -> pd.DataFrame:
    """Per player count and opponent: each focal policy's sole-win rate and gain over the table's mean seat."""
    rows = [
        {"players": k, "opponents": o, "policy": p, **gain_row(results, _among(p, o), f"{ALL_SAME[o]} {k}", k)}
        for k in PLAYER_COUNTS
        for o in OPPONENTS
        for p in FOCAL
        if p != o
    ]
    return pd.DataFrame(rows)


def _row(frame: pd.DataFrame, **where: Any) -> pd.Series:
    """The first row of ``frame`` whose columns hold the values ``where`` gives (``players=2``)."""
    return frame[(frame[list(where)] == pd.Series(where)).all(axis=1)].iloc[0]


def information_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """One hindmost, detective, hiding detective or oracle among selfish or detective players, 2-6 players."""
    frame = information_frame(results)
    o2, h2, hide2 = (_row(frame, players=2, opponents=STRONG, policy=p) for p in ("oracle", "hindmost", HIDER))
    title = (
        f"Among detectives, knowing the deal gains {100 * o2['gain']:+.1f} points at 2 players and knowing nothing "
        f"{100 * h2['gain']:+.1f}; hiding 1 die in 8 {100 * hide2['gain']:+.1f}"
    )

    gain = Panel(frame, "players", "gain", "policy", "sole-win rate minus the mean seat's (fraction of games)", "")
    others = facets(replace(gain, zero=True), "opponents", OPPONENTS, xlabel=lambda o: f"players (the others play {o})")
    draw = figure(*others, sharey=True)

    acc = [(k, *_accuracy(results, k), prior_accuracy(k)) for k in PLAYER_COUNTS]
    table = pd.DataFrame(
        [
            {
                "players": k,
                "others": opponent,
                "mean seat": f"{100 * part['base'].iloc[0]:.1f}%",
                **{f"{policy} gain, pts": cell(r, "gain", points) for policy, r in part.set_index("policy").iterrows()},
            }
            for (k, opponent), part in frame.groupby(["players", "opponents"], sort=False)
        ]
    ).fillna("—")
    worse = frame[(frame["policy"] == "oracle") & (frame["gain_hi"] < 0)]
    where = ", ".join(f"{r.players}p vs {r.opponents}" for r in worse.itertuples())
    oracle = (
        f"The oracle loses ground at {where}." if where else "The oracle gains or holds its own at every player count."
    )
    notes = [
        "One focal player among players of one policy, rotated over every seat. Mean seat: the mean seat of an "
        "all-opponent table (same seed). Gain: the focal player's sole-win rate minus it (points, 95% interval). "
        + oracle,
        "Detective belief at race end (mean probability on the true owner of each snail not held, with its 95% "
        "interval; then the uniform prior's), one detective among selfish players: "
        + ", ".join(f"{k}p {interval(a, lo, h, 3)}, prior {p:.2f}" for k, a, lo, h, p in acc)
        + ".",
    ]
    return Page(title, draw, table, notes), title


def open_frame(results: dict[str, RunResult]) -> pd.DataFrame:
    """Per player count, detective tables with hidden and open ownership: seat edge, race length, hindmost's gain."""
    rows = []
    for k in PLAYER_COUNTS:
        for mode, label, prefix in (
            ("hidden", f"strong {k}", _among("hindmost", STRONG)),
            ("open", f"open {k}", "open hindmost"),
        ):
            s = results[label].summary
            rows.append(
                {
                    "players": k,
                    "ownership": mode,
                    **estimate("edge", stats.seat_edge(s.wins, s.n_games)),
                    **estimate("turns", _race_turns(s)),
                    **{f"hindmost_{key}": value for key, value in gain_row(results, prefix, label, k).items()},
                }
            )
    return pd.DataFrame(rows)


def open_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """Open ownership (everyone sees the deal) against hidden: what hiding does to the game."""
    frame = open_frame(results)
    h2, o2 = (_row(frame, players=2, ownership=mode) for mode in ("hidden", "open"))
    title = (
        f"Open ownership: a player who ignores the deal gains {100 * o2['hindmost_gain']:+.1f} points among 2 "
        f"detectives who see it, {100 * h2['hindmost_gain']:+.1f} when it is hidden"
    )

    gain = Panel(frame, "players", "hindmost_gain", "ownership", None, "", kind="line", zero=True, xticks=PLAYER_COUNTS)
    hindmost = "hindmost's gain over the mean seat (fraction of games)"
    draw = figure(
        replace(gain, ylabel=hindmost, xlabel="players (the others play detective)"),
        replace(gain, y="edge", ylabel="seat 0 edge (fraction of games)", xlabel="players (all detective)"),
    )

    shown = {
        "hindmost gain, pts": ("hindmost_gain", points),
        "seat 0 edge, pts": ("edge", points),
        "turns per race": ("turns", mean(2)),
    }
    table = frame[["players", "ownership"]].assign(**{head: cells(frame, y, fmt) for head, (y, fmt) in shown.items()})
    notes = [
        "Open ownership (variant open-ownership): the tokens are dealt face up, so every detective knows the deal "
        "(it plays the oracle's rule). Hindmost ignores who holds what in both. Its gain over the mean seat of the "
        "all-detective table measures how much reading the deal is worth to the others: the larger the loss when "
        "the deal is open, the more the hidden deal protects a player who cannot read it. Edge: seat 0's sole-win "
        "rate minus the mean seat's, all-detective tables.",
    ]
    return Page(title, draw, table, notes), title


# --- 3. game length -------------------------------------------------------------------------------------------


def length_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """Turns per race (race 1 and race 2) by player count under strong play, and the spread of game lengths."""
    rows, table = [], []
    arms = [(k, p, results[f"{prefix} {k}"].summary) for k in PLAYER_COUNTS for p, prefix in ALL_SAME.items()]
    arms += [(4, p, results[f"length {p} 4"].summary) for p in LENGTH_POLICIES]
    arms += [
        (4, f"one oracle, 3 {o}", reduce(Summary.merge, (s for _, s in _rotation(results, _among("oracle", o), 4))))
        for o in OPPONENTS
    ]
    for k, policy, s in arms:
        races = {race: [float(v) for v in s.metric_mean(f"race{race}_turns")] for race in (1, 2)}
        if policy == STRONG:
            rows += [{"players": k, "race": f"race {race}", **estimate("turns", races[race])} for race in (1, 2)]
        per_race = _race_turns(s)
        table.append(
            {
                "players": k,
                "policy": policy,
                **{f"race {race} turns": mean(2)(*races[race]) for race in (1, 2)},
                "turns per race": mean(2)(*per_race),
                "rounds per race": f"{per_race[0] / k:.1f}",
                "game turns, 10th–90th pct": "–".join(
                    str(stats.histogram_quantile(s.turns_hist, q)) for q in (0.1, 0.9)
                ),
            }
        )
    frame = pd.DataFrame(rows)
    two, four, six, weak4 = (_race_turns(results[a].summary) for a in ("strong 2", "strong 4", "strong 6", "seats 4"))
    title = (
        f"A race between detectives lasts {four[0]:.2f} turns ({four[1]:.2f}–{four[2]:.2f}) with 4 players, "
        f"{two[0]:.1f} with 2 and {six[0]:.1f} with 6; {weak4[0]:.1f} between 4 {BASE} players"
    )

    def draw(fig: Any) -> None:
        left, right = fig.subplots(1, 2)
        Panel(frame, "players", "turns", "race", "mean turns in the race (turns)", "players").draw(left)
        hists = {f"{k} players": results[f"strong {k}"].summary.turns_hist for k in (2, 4, 6)}
        plots.shares(right, hists, "game length, both races (turns)", "share of games (fraction)")
        right.legend(frameon=False, fontsize=8)
        right.set_xlim(left=0)

    notes = [
        f"Everyone plays {STRONG} in the figure; the table adds all-{BASE} tables, 4-player tables of random and of "
        "blocker, and one oracle among 3 players of either (from the hidden-information page). A turn is one "
        "player's roll of the four dice; rounds per race = turns per race / players. Turns per race: the game's "
        "turns over both races, halved.",
    ]
    return Page(title, draw, pd.DataFrame(table), notes), title


# --- 4. track length ------------------------------------------------------------------------------------------


def _board_rows(results: dict[str, RunResult], labels: dict[str, str]) -> pd.DataFrame:
    """Per board setting (name -> label prefix) and player count: seat-0 edge, turns per race, shared games."""
    rows = []
    for name, prefix in labels.items():
        for k in PLAYER_COUNTS:
            s = results[f"{prefix} {k}"].summary
            rows.append(
                {
                    "board": name,
                    "players": k,
                    **estimate("edge", stats.seat_edge(s.wins, s.n_games)),
                    **estimate("turns", _race_turns(s)),
                    **estimate("shared", proportion(s.n_games - int(s.wins.sum()), s.n_games)),
                    "winner_hash": tuple(s.wins.tolist()),
                }
            )
    return pd.DataFrame(rows)


def _pivot(frame: pd.DataFrame, first: str) -> pd.DataFrame:
    """One row per board (column ``first``: its short name): the seat-0 edge per player count, 4-player length, ties."""
    rows = []
    for name, part in frame.groupby("board", sort=False):
        edges = {f"{k}p edge": edge for k, edge in zip(part["players"], cells(part, "edge", points), strict=True)}
        four = _row(part, players=4)
        shown = {"4p turns/race": f"{four['turns']:.2f}", "4p shared": f"{100 * four['shared']:.1f}%"}
        rows.append({first: str(name).split(" (")[0], **edges, **shown})
    return pd.DataFrame(rows)


def track_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """Tracks of 12 (the short-track variant), 18, 24 and 36 spaces: seat-0 edge and turns per race."""
    labels = {f"{spaces} spaces": "seats" if spaces == 24 else f"track {spaces}" for spaces in TRACKS}
    frame = _board_rows(results, labels)
    frame["spaces"] = [int(b.split()[0]) for b in frame["board"]]
    short, base, short4, base4 = (_row(frame, spaces=x, players=k) for k in (2, 4) for x in (12, 24))
    title = (
        f"The 12-space short track halves a 4-player race ({base4['turns']:.1f} → {short4['turns']:.1f} turns) and "
        f"{'raises' if short['edge'] > base['edge'] else 'lowers'} seat 0's 2-player edge from "
        f"{100 * base['edge']:+.1f} to {100 * short['edge']:+.1f} points "
        f"({100 * short['edge_lo']:+.1f} to {100 * short['edge_hi']:+.1f})"
    )

    lines = frame.assign(players=[f"{k} players" for k in frame["players"]])
    edge = Panel(lines, "spaces", "edge", "players", EDGE, "track length (spaces)", kind="line", xticks=list(TRACKS))
    draw = figure(replace(edge, zero=True), replace(edge, y="turns", ylabel="mean turns per race (turns)"))

    notes = [
        f"Everyone plays {BASE}. Every track repeats the colour cycle purple, blue, red, green, yellow, white; "
        "shells are 3/2/1 by thirds (the 12-space track is the short-track variant). Edge: seat 0's sole-win rate "
        "minus the mean seat's, percentage points (95% interval). Shared: games still tied after the tie-break.",
    ]
    return Page(title, draw, _pivot(frame, "track"), notes), title


# --- 5. shell values ------------------------------------------------------------------------------------------


def shells_page(results: dict[str, RunResult]) -> tuple[Page, str]:
    """Shell scales on the 24-space track: seat-0 edge, ties and turns per race."""
    labels = {name: "seats" if shells is None else f"shells {name}" for name, shells in SHELLS.items()}
    frame = _board_rows(results, labels)
    hashes = frame.groupby("board", sort=False)["winner_hash"].agg(list)
    same = hashes["3/2/1 (default)"] == hashes["5/3/1 (doubled steps)"]
    spread = frame.groupby("players")["edge"].agg(lambda e: e.max() - e.min())
    k = int(spread.idxmax())
    part = frame[frame["players"] == k].set_index("board")
    low = part["edge"].idxmin() if part["edge"].idxmin() != "3/2/1 (default)" else part["edge"].idxmax()
    steady = float(frame.groupby("players")["turns"].agg(lambda t: t.max() - t.min()).max())
    title = (
        f"Shell shape, not size, moves the seat edge: with {k} players seat 0 leads by "
        f"{100 * part.loc['3/2/1 (default)', 'edge']:+.1f} points on 3/2/1 but {cell(part.loc[low], 'edge', points)} "
        f"on {low.split(' (')[0]}"
    )
    title += "; 5/3/1 changes no game" if same else "; 5/3/1 changes the games"

    shown = frame[frame["board"] != "5/3/1 (doubled steps)"] if same else frame
    edge = Panel(shown, "players", "edge", "board", EDGE, "players", kind="line", xticks=PLAYER_COUNTS)
    tied = "games still tied after the tie-break (fraction)"
    draw = figure(replace(edge, zero=True), replace(edge, y="shared", ylabel=tied))

    notes = [
        f"Everyone plays {BASE} on the 24-space track. a/b/c: shells on the start and spaces 1-8 / 9-16 / 17-24 "
        "and the finish; graded: one shell fewer every 3 spaces (9 on the start, 2 on spaces 22-24, 1 on the "
        "finish). Adding a constant to every value or scaling them all changes no ranking"
        + (": 5/3/1 (= 2 × 3/2/1 − 1) plays exactly the same games (not drawn)." if same else ".")
        + " Edge: seat 0's sole-win rate minus the mean seat's, points (95% interval). Mean race length differs "
        f"by at most {steady:.2f} turns between scales at any player count.",
    ]
    return Page(title, draw, _pivot(frame, "shells"), notes), title

"""The Paleolino report: how often the table wins, and what each rule and knob does to that chance.

Paleolino is cooperative: a game's ``winner`` is -1 when the table builds its village and -2 when the hand axe
runs dry first, so "the win rate" here is the share of games the table wins (``shared_wins[0] / n_games``).
Every arm is played from the same seed and chunk size (common random numbers). ``greedy`` is the default
policy; ``planner`` plays about 30 times slower, so its arms get a quarter of the games.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis import plots, stats
from analysis.report import Page
from analysis.summary import Summary
from engines.paleolino import INFO, POLICIES, VARIANTS, Params
from experiments.chapters import Chapter
from experiments.chapters.common import Plan, pct, play_pages, provenance
from experiments.runner import RunResult
from experiments.spec import arm_chunk

PLAYER_COUNTS = (1, 2, 3, 4)
POLICY_ORDER = ["planner", "greedy", "random"]
DEFAULT_POLICY = "greedy"
PLANNER_SHARE = 4  # planner arms get n_games // PLANNER_SHARE games (it plays ~1,600 games/s against ~50,000)


@dataclass(frozen=True)
class Setting:
    """A rule setting: a variant and/or knob overrides, with the label a designer reads."""

    label: str
    variant: str | None = None
    knobs: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        """What to set, as a designer would type it."""
        parts = [self.variant] if self.variant else []
        parts += [f"{k}={v}" for k, v in self.knobs]
        return " + ".join(parts) or "defaults"


PUBLISHED = Setting("published rules")
EASY = Setting("easy (one more stack)", "easy")
EXPERT = Setting("expert (1 build/turn)", "expert")
NO_SINGLES = Setting("no one-chip inventions", None, (("remove_singles", "true"),))
REAL_EXPERTS = Setting("real experts", "real-experts")
VARIANT_SETTINGS = [PUBLISHED, EASY, EXPERT, NO_SINGLES, REAL_EXPERTS]
MEMORY_LEVELS = (1.0, 0.7, 0.5, 0.25, 0.0)
BACKPACKS = (0, 1, 2, 3)
FAVOURED = (1.0, 1.5, 2.0, 3.0, 5.0)  # weight of cave 0 against 1 for each of the other three
BIAS_MEMORY = (1.0, 0.7, 0.5)  # memory levels of the 2-player cave-bias comparison


def memory_setting(memory: float) -> Setting:
    """Memory level ``memory`` (1.0 is the published rule; 0.7 is the ``forgetful`` variant)."""
    if memory == 1.0:
        return PUBLISHED
    if memory == 0.7:
        return Setting("memory 0.7 (forgetful)", "forgetful")
    return Setting(f"memory {memory:g}", None, (("memory", f"{memory:g}"),))


def backpack_setting(capacity: int) -> Setting:
    """Backpacks holding ``capacity`` chips (1 is the published rule; 0 is the ``no-backpacks`` variant)."""
    if capacity == 1:
        return PUBLISHED
    if capacity == 0:
        return Setting("no backpacks (no help)", "no-backpacks")
    return Setting(f"backpack {capacity} chips", None, (("backpack", str(capacity)),))


def bias_setting(weight: float, memory: float = 1.0) -> Setting:
    """Cave 0 favoured ``weight`` to 1 over each other cave (1 is the published, even mountain), at ``memory``."""
    if weight == 1.0:
        return memory_setting(memory)
    knobs = (("cave_weights", f"{weight:g},1,1,1"),)
    if memory == 1.0:
        return Setting(f"favoured cave {_share_text(weight)}", None, knobs)
    return Setting(f"favoured cave {_share_text(weight)}, memory {memory:g}", None, (*knobs, ("memory", f"{memory:g}")))


def _share_text(weight: float) -> str:
    return f"{round(100 * weight / (weight + 3), 1):g}%"


def label(setting: Setting, players: int, policy: str = DEFAULT_POLICY) -> str:
    """The arm label of a setting, player count and policy."""
    return f"{policy} | {setting.label} | {players}p"


def add(
    plan: Plan, setting: Setting, players: int, n: int, seed: int, chunk: int, policy: str = DEFAULT_POLICY
) -> None:
    """Add the arm of ``setting`` at ``players`` seats, all playing ``policy``."""
    plan.add(label(setting, players, policy), (policy,) * players, n, seed, chunk, setting.variant, setting.knobs)


def planner_games(n: int) -> int:
    """Games per planner arm."""
    return max(1, n // PLANNER_SHARE)


def difficulty_settings() -> list[Setting]:
    """The rows of the difficulty table (at most 8, so the table fits under the figure)."""
    return [
        backpack_setting(2),
        EASY,
        PUBLISHED,
        memory_setting(0.7),
        EXPERT,
        Setting("real experts, 2-chip backpacks", "real-experts", (("backpack", "2"),)),
        REAL_EXPERTS,
        backpack_setting(0),
    ]


def plan(n: int, seed: int, chunk: int | None = None) -> Plan:
    """Every arm the report plays (the slow planner arms first, so they do not finish last)."""
    chunk = arm_chunk(INFO, n) if chunk is None else chunk
    p = Plan("paleolino")
    for k in PLAYER_COUNTS:
        add(p, PUBLISHED, k, planner_games(n), seed, chunk, "planner")
    for k in PLAYER_COUNTS:
        add(p, PUBLISHED, k, n, seed, chunk, "random")
        for setting in [
            *VARIANT_SETTINGS,
            *(memory_setting(m) for m in MEMORY_LEVELS),
            *(backpack_setting(b) for b in BACKPACKS),
            *(bias_setting(w) for w in FAVOURED),
            *difficulty_settings(),
        ]:
            add(p, setting, k, n, seed, chunk)
    for memory in BIAS_MEMORY:
        for w in FAVOURED:
            add(p, bias_setting(w, memory), 2, n, seed, chunk)
    return p


def build(
    n_games: int = 20_000,
    precision: float | None = None,
    seed: int = 2026,
    jobs: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Chapter:
    """Play every arm and write the pages (``precision``: play each arm until its table win rate is that tight)."""
    planned = plan(n_games, seed)
    played = play_pages(
        planned,
        (policies_page, variants_page, memory_page, backpack_page, bias_page, difficulty_page),
        jobs,
        precision,
        progress,
    )
    pages, headlines, answers, games = played.pages, played.headlines, played.column(2), played.games
    params = Params()
    knobs = {k: v for k, v in params.as_dict().items() if k != "inventions"}
    if precision:
        sizes = f"each arm until its table win rate has a 95% half-width of {precision:.2%}"
    else:
        sizes = f"{n_games:,} per arm, {planner_games(n_games):,} per planner arm (planner is ~30× slower)"
    front = [
        (
            "game",
            f"Paleolino (engine version {INFO.version}), cooperative, 1–4 players: 30 chips roll into 4 caves; each "
            "turn a player pulls 2 chips, opens one cave and builds inventions from the stack tops; the table "
            "wins with 10 inventions before the hand axe is empty.",
        ),
        (
            "knobs",
            ", ".join(f"{k}={v}" for k, v in knobs.items())
            + f"; inventions={' '.join(params.inventions)}; variants "
            + "; ".join(f"{name}: {', '.join(f'{k}={v}' for k, v in o.items())}" for name, o in VARIANTS.items()),
        ),
        (
            "policies",
            "; ".join(f"{p.name}: {p.description}" for p in POLICIES.values())
            + f". Every seat plays {DEFAULT_POLICY} unless a page says otherwise.",
        ),
        (
            "games",
            f"{games:,} in {len(planned.arms)} arms ({sizes}; chunks of {planned.chunk:,}); common random numbers",
        ),
        *provenance(seed),
        (
            "reading",
            "A win rate is the share of games the whole table wins (winner = -1), with its 95% Wilson interval; "
            "it assumes the policy named beside it (greedy unless said). Differences: two-proportion tests.",
        ),
        ("answers", "; ".join(answers)),
    ]
    return Chapter("Paleolino: how often the table wins, and what changes it", front, pages, headlines)


def table_rate(summary: Summary) -> tuple[float, float, float]:
    """The share of games the table won, with its 95% Wilson interval."""
    won = int(summary.shared_wins[0])
    low, high = stats.wilson(won, summary.n_games)
    return won / summary.n_games, float(low), float(high)


def row(results: dict[str, RunResult], setting: Setting, players: int, policy: str = DEFAULT_POLICY) -> dict:
    """One arm as a row: win rate and interval, inventions, help and empty caves per game, games."""
    s = results[label(setting, players, policy)].summary
    rate = table_rate(s)
    return {
        "setting": setting.label,
        "policy": policy,
        "players": players,
        "rate": rate[0],
        "low": rate[1],
        "high": rate[2],
        "won": int(s.shared_wins[0]),
        "n": s.n_games,
        "inventions": float(s.metric_mean("inventions")[0]),
        "help": float(np.sum(s.metric_mean("help_given")[0])),
        "empty": float(s.metric_mean("empty_caves")[0]),
        "turns": s.mean_turns()[0],
    }


def grid(results: dict[str, RunResult], settings: Sequence[Setting], policy: str = DEFAULT_POLICY) -> pd.DataFrame:
    """Rows for every setting and player count."""
    return pd.DataFrame([row(results, s, k, policy) for s in settings for k in PLAYER_COUNTS])


def _at(frame: pd.DataFrame, column: str, value: Any, players: int) -> pd.Series:
    return frame[(frame[column] == value) & (frame["players"] == players)].iloc[0]


def _rate_of(r: pd.Series) -> str:
    return pct(r["rate"], r["low"], r["high"])


def _points(a: pd.Series, b: pd.Series) -> str:
    """``a`` minus ``b`` in percentage points, with a 95% interval (independent normal approximation)."""
    diff = a["rate"] - b["rate"]
    se = np.sqrt(a["rate"] * (1 - a["rate"]) / a["n"] + b["rate"] * (1 - b["rate"]) / b["n"])
    return f"{100 * diff:+.1f} pts (±{100 * stats.Z95 * se:.1f})"


def _p(a: pd.Series, b: pd.Series) -> float:
    return stats.two_proportion_p_value(int(a["won"]), int(a["n"]), int(b["won"]), int(b["n"]))


def wide(frame: pd.DataFrame, key: str, extra: dict[str, Callable[[pd.DataFrame], str]] | None = None) -> pd.DataFrame:
    """One row per ``key`` value, one column per player count (rate and interval), then ``extra`` columns."""
    rows = []
    for value, part in frame.groupby(key, sort=False):
        line = {key: value}
        for _, r in part.iterrows():
            line[f"{r['players']} player{'s' if r['players'] > 1 else ''}"] = _rate_of(r)
        for name, make in (extra or {}).items():
            line[name] = make(part)
        rows.append(line)
    return pd.DataFrame(rows)


def _per_player(column: str, fmt: str = "{:.2f}") -> Callable[[pd.DataFrame], str]:
    return lambda part: " / ".join(fmt.format(v) for v in part[column])


def _set_player_ticks(*axes: Any) -> None:
    for ax in axes:
        ax.set_xticks(PLAYER_COUNTS)


# --- 1. policies and player counts ----------------------------------------------------------------------------


def policies_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """The table's win rate by player count under each policy (published rules)."""
    frame = pd.concat([grid(results, [PUBLISHED], policy) for policy in POLICY_ORDER], ignore_index=True)
    greedy = frame[frame["policy"] == "greedy"]
    g1, g4 = _at(greedy, "players", 1, 1), _at(greedy, "players", 4, 4)
    two = {p: _at(frame[frame["policy"] == p], "players", 2, 2) for p in POLICY_ORDER}
    title = (
        f"With greedy play the table wins {_rate_of(two['greedy'])} of 2-player games, with planner "
        f"{_rate_of(two['planner'])}, with random {_rate_of(two['random'])}; greedy tables win "
        f"{_rate_of(g1)} solo and {_rate_of(g4)} with 4 players"
    )
    answer = (
        f"2-player table wins: greedy {100 * two['greedy']['rate']:.1f}%, planner {100 * two['planner']['rate']:.1f}%, "
        f"random {100 * two['random']['rate']:.1f}%"
    )

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        plots.interval_lines(
            frame, "players", "rate", "low", "high", "policy", "table win rate (fraction)", "players", ax=ax
        )
        _set_player_ticks(ax)
        ax.set_ylim(0, 1)

    table = wide(
        frame,
        "policy",
        {
            "inventions/game": _per_player("inventions", "{:.1f}"),
            "games per arm": lambda part: f"{int(part['n'].iloc[0]):,}",
        },
    )
    notes = [
        "Published rules; every seat plays the named policy. Planner arms have a quarter of the games (planner "
        "is ~30× slower), hence their wider intervals. Inventions/game: mean built at 1/2/3/4 players (10 win).",
        f"Planner minus greedy at 2 players: {_points(two['planner'], two['greedy'])}, "
        f"p = {_p(two['planner'], two['greedy']):.2g}. Solo games use 3 stacks, 2–4 players 2 stacks; more "
        "players bring more backpacks that can help a build (see the backpack page).",
    ]
    return Page(title, draw, table, notes), title, answer


# --- 2. easy and expert variants ------------------------------------------------------------------------------


def variants_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """Published, easy, expert and real-experts rules at 1–4 players (greedy)."""
    frame = grid(results, VARIANT_SETTINGS)
    pub, easy, exp, singles, real = (_at(frame, "setting", s.label, 2) for s in VARIANT_SETTINGS)
    title = (
        f"The easy game lifts 2-player wins from {_rate_of(pub)} to {_rate_of(easy)}; expert rules cut them "
        f"to {_rate_of(exp)} and real experts to {_rate_of(real)}, mostly by "
        + (
            "leaving out the one-chip inventions"
            if singles["rate"] < pub["rate"] - (pub["rate"] - real["rate"]) / 2
            else "the one-build limit"
        )
    )
    answer = (
        f"easy {100 * easy['rate']:.1f}%, expert {100 * exp['rate']:.1f}%, real experts {100 * real['rate']:.1f}% "
        "(2 players, greedy)"
    )

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        plots.interval_bars(
            frame, "players", "rate", "low", "high", "setting", "table win rate (fraction)", "players", ax=ax
        )
        ax.set_ylim(0, 1)

    table = wide(
        frame,
        "setting",
        {
            "vs published, 2 p": lambda part: (
                "—" if part["setting"].iloc[0] == PUBLISHED.label else _points(_at(part, "players", 2, 2), pub)
            ),
            "inventions/game": _per_player("inventions", "{:.1f}"),
        },
    )
    notes = [
        "Everyone plays greedy. Easy: one more invention stack (3, solo 4). Expert: one invention per turn. "
        "Real experts: both that and no one-chip inventions (the three cards costing a single chip), shown alone too "
        f"({_rate_of(singles)} at 2 players). vs published: difference at 2 players with its 95% interval. "
        "Inventions/game: mean built at 1/2/3/4 players."
    ]
    return Page(title, draw, table, notes), title, answer


# --- 3. memory ------------------------------------------------------------------------------------------------


def _players_text(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(players=[f"{k} player{'s' if k > 1 else ''}" for k in frame["players"]])


def memory_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """The table's win rate as memory fades from perfect to none (greedy)."""
    frame = grid(results, [memory_setting(m) for m in MEMORY_LEVELS])
    frame["memory"] = [m for m in MEMORY_LEVELS for _ in PLAYER_COUNTS]
    at2 = {m: _at(frame, "memory", m, 2) for m in MEMORY_LEVELS}
    title = (
        f"Forgetting costs the table: 2-player wins fall from {_rate_of(at2[1.0])} with perfect memory to "
        f"{_rate_of(at2[0.5])} at half; with no memory greedy keeps opening the same cave and wins "
        f"{_rate_of(at2[0.0])}"
    )
    levels = " / ".join(f"{100 * at2[m]['rate']:.1f}%" for m in (1.0, 0.7, 0.5, 0.0))
    answer = f"memory 1 / 0.7 / 0.5 / 0: {levels}"

    def draw(fig: Any) -> None:
        left, right = fig.subplots(1, 2)
        shown = _players_text(frame)
        xlabel = "memory (chance a chip's cave is remembered)"
        plots.interval_lines(
            shown, "memory", "rate", "low", "high", "players", "table win rate (fraction)", xlabel, ax=left
        )
        left.set_ylim(0, 1)
        left.set_xticks(MEMORY_LEVELS)
        two = frame[frame["players"] == 2]
        two = two.assign(lo=two["empty"], hi=two["empty"])
        plots.interval_lines(
            two, "memory", "empty", "lo", "hi", None, "empty caves opened per game (count)", xlabel, ax=right
        )
        right.set_xticks(MEMORY_LEVELS)

    table = wide(
        frame.assign(memory=[f"{m:g}" for m in frame["memory"]]),
        "memory",
        {
            "vs memory 1, 2 p": lambda part: (
                "—" if part["memory"].iloc[0] == "1" else _points(_at(part, "players", 2, 2), at2[1.0])
            ),
            "empty caves/game": lambda part: f"{part['empty'].iloc[1]:.2f}",
        },
    )
    notes = [
        "Everyone plays greedy, published rules otherwise; 0.7 is the 'forgetful' variant. The table shares one "
        "memory: each chip's cave is remembered with this chance. Greedy opens the cave with most remembered chips, "
        "ties to the first cave: with no memory every cave looks empty, so it opens cave 1 every turn and only "
        "ever collects the chips that fall there (a table that rotated caves would do far better). Empty caves "
        "opened per game are the same at every player count (the chips fall alike); shown for 2 players."
    ]
    return Page(title, draw, table, notes), title, answer


# --- 4. backpacks and help ------------------------------------------------------------------------------------


def backpack_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """Backpack capacity 0–3 at 1–4 players: win rate, and chips given in help (greedy)."""
    frame = grid(results, [backpack_setting(b) for b in BACKPACKS])
    frame["capacity"] = [b for b in BACKPACKS for _ in PLAYER_COUNTS]
    b0, b1, b2 = (_at(frame, "capacity", c, 2) for c in (0, 1, 2))
    gain = {k: _at(frame, "capacity", 1, k)["rate"] - _at(frame, "capacity", 0, k)["rate"] for k in PLAYER_COUNTS}
    title = (
        f"Backpacks make the game: with 2 players the table wins {_rate_of(b0)} without them, {_rate_of(b1)} "
        f"with one chip and {_rate_of(b2)} with two; a one-chip backpack is worth {100 * gain[1]:.0f} points "
        f"solo and {100 * gain[4]:.0f} with 4 players, who can help each other"
    )
    answer = f"backpack 0 / 1 / 2 chips: {100 * b0['rate']:.1f}% / {100 * b1['rate']:.1f}% / {100 * b2['rate']:.1f}%"

    def draw(fig: Any) -> None:
        left, right = fig.subplots(1, 2)
        shown = _players_text(frame)
        xlabel = "backpack capacity (chips)"
        plots.interval_lines(
            shown, "capacity", "rate", "low", "high", "players", "table win rate (fraction)", xlabel, ax=left
        )
        left.set_ylim(0, 1)
        left.set_xticks(BACKPACKS)
        helped = shown[frame["players"] > 1]
        helped = helped.assign(lo=helped["help"], hi=helped["help"])
        plots.interval_lines(
            helped,
            "capacity",
            "help",
            "lo",
            "hi",
            "players",
            "chips given to another player's build (per game)",
            xlabel,
            ax=right,
        )
        right.set_xticks(BACKPACKS)

    table = wide(
        frame.assign(capacity=[f"{c} chip{'s' if c != 1 else ''}" for c in frame["capacity"]]),
        "capacity",
        {
            "vs 1 chip, 2 p": lambda part: (
                "—" if part["capacity"].iloc[0] == "1 chip" else _points(_at(part, "players", 2, 2), b1)
            ),
            "help chips/game": lambda part: " / ".join(f"{v:.2f}" for v in part["help"].iloc[1:]),
        },
    )
    notes = [
        "Everyone plays greedy. Capacity 0 is the 'no-backpacks' variant (no backpacks, so no help). A backpack chip "
        "serves its owner on a later turn and, with 2+ players, can pay for another player's build (help; help "
        "chips/game at 2/3/4 players). The engine cannot switch help off alone, so its worth is read from how the "
        "worth of a backpack (0 → 1 chip) grows with the table: "
        + ", ".join(f"{100 * gain[k]:+.1f} pts at {k} p" for k in PLAYER_COUNTS)
        + " (solo games also have a third stack)."
    ]
    return Page(title, draw, table, notes), title, answer


# --- 5. cave bias ---------------------------------------------------------------------------------------------


def bias_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """One cave favoured by the mountain, at 1–4 players with perfect memory and at 2 players forgetting."""
    frame = grid(results, [bias_setting(w) for w in FAVOURED])
    frame["share"] = [w / (w + 3) for w in FAVOURED for _ in PLAYER_COUNTS]
    forgetting = pd.DataFrame(
        [
            {**row(results, bias_setting(w, m), 2), "share": w / (w + 3), "memory": f"memory {m:g}"}
            for m in BIAS_MEMORY
            for w in FAVOURED
        ]
    )
    even, half = _at(frame, "share", 0.25, 2), _at(frame, "share", 0.5, 2)
    diff = half["rate"] - even["rate"]
    verb = "barely changes" if abs(diff) < 0.03 else ("raises" if diff > 0 else "lowers")
    title = (
        f"A biased mountain {verb} 2-player wins: {_rate_of(even)} with even caves, {_rate_of(half)} when one "
        f"cave takes half the chips (perfect memory)"
    )
    answer = f"one cave taking half the chips: {100 * even['rate']:.1f}% → {100 * half['rate']:.1f}%"
    shares = sorted(set(frame["share"]))
    ticks = [f"{round(100 * s, 1):g}%" for s in shares]
    xlabel = "share of chips rolling into the favoured cave"

    def draw(fig: Any) -> None:
        left, right = fig.subplots(1, 2, sharey=True)
        plots.interval_lines(
            _players_text(frame),
            "share",
            "rate",
            "low",
            "high",
            "players",
            "table win rate (fraction)",
            xlabel,
            ax=left,
        )
        left.set_title("memory 1, 1–4 players", fontsize=10)
        plots.interval_lines(
            forgetting, "share", "rate", "low", "high", "memory", "table win rate (fraction)", xlabel, ax=right
        )
        right.set_title("2 players, memory 1 / 0.7 / 0.5", fontsize=10)
        for ax in (left, right):
            ax.set_xticks(shares, ticks)
            ax.set_ylim(0, 1)

    table_rows = []
    for w in FAVOURED:
        line: dict[str, str] = {"cave weights": f"{w:g}:1:1:1", "favoured share": ticks[FAVOURED.index(w)]}
        for k in PLAYER_COUNTS:
            line[f"{k} p, memory 1"] = _rate_of(_at(frame, "share", w / (w + 3), k))
        for m in BIAS_MEMORY[1:]:
            line[f"2 p, memory {m:g}"] = _rate_of(
                _at(forgetting[forgetting["memory"] == f"memory {m:g}"], "share", w / (w + 3), 2)
            )
        table_rows.append(line)
    notes = [
        "Everyone plays greedy. cave_weights w:1:1:1: a chip falls in the favoured cave with chance w/(w+3) and in "
        "each other cave with 1/(w+3); even caves (1:1:1:1) are the published mountain. "
        f"2 players, memory 1, favoured cave at 50% vs even: {_points(half, even)}, p = {_p(half, even):.2g}."
    ]
    return Page(title, draw, pd.DataFrame(table_rows), notes), title, answer


# --- 6. difficulty table --------------------------------------------------------------------------------------


def difficulty_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """Every setting against every player count, easiest first: the designer's difficulty table (greedy)."""
    settings = difficulty_settings()
    frame = grid(results, settings)
    order = frame.groupby("setting", sort=False)["rate"].mean().sort_values(ascending=False).index.tolist()
    frame["setting"] = pd.Categorical(frame["setting"], order, ordered=True)
    frame = frame.sort_values(["setting", "players"])
    matrix = frame.pivot(index="setting", columns="players", values="rate")
    matrix.columns = [f"{k} player{'s' if k > 1 else ''}" for k in matrix.columns]
    frame["setting"] = frame["setting"].astype(str)
    two = frame[frame["players"] == 2].sort_values("rate", ascending=False)
    pub2, easiest, hardest = _at(frame, "setting", PUBLISHED.label, 2), two.iloc[0], two.iloc[-1]
    title = (
        f"Difficulty with greedy play, 2 players: the published rules win {_rate_of(pub2)}, from "
        f"{_rate_of(easiest)} with {easiest['setting']} down to {_rate_of(hardest)} with {hardest['setting']}"
    )
    answer = (
        f"2-player difficulty range: {100 * hardest['rate']:.1f}% ({hardest['setting']}) to "
        f"{100 * easiest['rate']:.1f}% ({easiest['setting']})"
    )

    def draw(fig: Any) -> None:
        plots.heatmap(matrix, "table win rate (greedy)", fig=fig)
        ax = fig.axes[0]
        ax.set_xlabel("players")
        ax.set_ylabel("")

    how = {s.label: s.describe() for s in settings}
    table = wide(frame, "setting", {"variant / knobs": lambda part: how[part["setting"].iloc[0]]})
    notes = [
        "Table wins, every seat greedy, 95% Wilson interval; rows easiest to hardest (mean over 1–4 players). "
        "Planner wins more, random less; memory 0 wins 0%."
    ]
    return Page(title, draw, table, notes), title, answer

"""The Paleolino report: how often the table wins, and what each rule and knob does to that chance.

Paleolino is cooperative: a game's ``winner`` is -1 when the table builds its village and -2 when the hand axe
runs dry first, so "the win rate" here is the share of games the table wins (``shared_wins[0] / n_games``).
Every arm is played from the same seed (common random numbers). Strong play: ``planner`` is the default policy
(1/:data:`PLANNER_SHARE` of the games per arm, it is slower), ``greedy`` is shown beside it where the two differ
(greedy and random arms: 1/:data:`HEURISTIC_SHARE`), and the expert plays 1/:data:`EXPERT_SHARE` of the games at
2 players. Arms are sized by the precision their pages need, not by their speed alone. Every page says which
numbers are the publisher's and which are ours.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from boardlab.analysis import plots, stats
from boardlab.analysis.book import Page
from boardlab.analysis.panels import Panel, figure
from boardlab.analysis.tables import cell, cells, estimate
from boardlab.analysis.wording import p_clause, p_value, points
from boardlab.engines import core
from boardlab.engines.paleolino import INFO, POLICIES, VARIANTS, Params
from boardlab.engines.paleolino.decisions import MEMORYLESS_PLAYOUTS, PLAYOUTS
from boardlab.experiments.chapters import balance, flow, skill
from boardlab.experiments.chapters.common import Arms, Front, Plan, Question
from boardlab.experiments.chapters.flow import Done
from boardlab.experiments.run import RunResult

PLAYER_COUNTS = (1, 2, 3, 4)
DEFAULT_POLICY = "planner"  # strong play: the strongest heuristic; the expert is too slow for every arm
HEURISTIC = "greedy"  # shown beside the planner where the two tell different stories
POLICY_ORDER = ["expert", "planner", "greedy", "random"]
PLANNER_SHARE = 8  # planner arms get n_games // PLANNER_SHARE games (±2 points; ~5,000 games/s against ~20,000)
HEURISTIC_SHARE = 4  # greedy and random arms: ±1.4 points, tighter than the planner arms they are shown beside
EXPERT_SHARE = 200  # expert arms (a few games a second; 128 playouts with memory 0): ±9 points, enough at memory 1
PROVENANCE = (
    "Publisher's (rulebook): 30 chips (9 wood, 9 stone, 9 berry, 3 crystal), 10 village slots, 2 stacks (solo 3), "
    "2 chips pulled a turn, 1-chip backpacks, help, the easy and expert variants, and 4 of the 15 invention costs. "
    "Ours: the other 11 costs, even odds for the 4 caves, perfect memory, backpack swapping; every win rate is "
    "ours (simulated), for the policy named."
)


@dataclass(frozen=True)
class Setting:
    """A rule setting: a variant and/or knob overrides, with the label a designer reads."""

    label: str
    variant: str | None = None
    knobs: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        """What to set, as a designer would type it."""
        return " + ".join(filter(None, [self.variant, *(f"{k}={v}" for k, v in self.knobs)])) or "defaults"


DEFAULTS = Setting("defaults")
EASY = Setting("easy (one more stack)", "easy")
EXPERT = Setting("expert (1 build/turn)", "expert")
NO_SINGLES = Setting("no one-chip inventions", None, (("remove_singles", "true"),))
REAL_EXPERTS = Setting("real experts", "real-experts")
REAL_EXPERTS_2 = Setting("real experts, 2-chip backpacks", "real-experts", (("backpack", "2"),))
FORGETFUL = Setting("memory 0.7 (forgetful)", "forgetful")
NO_BACKPACKS = Setting("no backpacks (no help)", "no-backpacks")
VARIANT_SETTINGS = [DEFAULTS, EASY, EXPERT, NO_SINGLES, REAL_EXPERTS]
MEMORY_LEVELS = (1.0, 0.7, 0.5, 0.25, 0.0)
FADES = (0.1, 0.25)  # chance per turn to forget a remembered chip (2 players)
BACKPACKS = (0, 1, 2, 3)
FAVOURED = (1.0, 1.5, 2.0, 3.0, 5.0)  # weight of cave 0 against 1 for each of the other three
BIAS_MEMORY = (1.0, 0.7, 0.5)  # memory levels of the 2-player cave-bias comparison
HELP_SETTINGS = [
    DEFAULTS,
    Setting("no help (backpacks kept)", "no-help"),
    Setting("no backpack swap", "no-swap"),
    Setting("2-chip backpacks, 1 chip of help each", None, (("backpack", "2"),)),
    Setting("2-chip backpacks, 2 chips of help each", None, (("backpack", "2"), ("help_chips", "2"))),
]
COST_PRESETS = ("cheap", "ours", "lumpy", "dear")
SKILL_MEMORY = (1.0, 0.0)


def memory_setting(memory: float) -> Setting:
    """Memory level ``memory`` (1.0 is our default; 0.7 is the ``forgetful`` variant)."""
    named = {1.0: DEFAULTS, 0.7: FORGETFUL}
    return named.get(memory, Setting(f"memory {memory:g}", None, (("memory", f"{memory:g}"),)))


def backpack_setting(capacity: int) -> Setting:
    """Backpacks holding ``capacity`` chips (1 is the rulebook's; 0 is the ``no-backpacks`` variant)."""
    named = {1: DEFAULTS, 0: NO_BACKPACKS}
    return named.get(capacity, Setting(f"backpack {capacity} chips", None, (("backpack", str(capacity)),)))


def bias_setting(weight: float, memory: float = 1.0) -> Setting:
    """Cave 0 favoured ``weight`` to 1 over each other cave (1 is our even mountain), at ``memory``."""
    if weight == 1.0:
        return memory_setting(memory)
    knobs = (("cave_weights", f"{weight:g},1,1,1"),)
    if memory == 1.0:
        return Setting(f"favoured cave {_share_text(weight)}", None, knobs)
    return Setting(f"favoured cave {_share_text(weight)}, memory {memory:g}", None, (*knobs, ("memory", f"{memory:g}")))


def fade_setting(fade: float) -> Setting:
    """Memory fading by ``fade`` a turn."""
    return Setting(f"memory fading {fade:g}/turn", None, (("fade", f"{fade:g}"),))


def cost_setting(preset: str) -> Setting:
    """Invention costs of a named preset (``ours`` is the default)."""
    return DEFAULTS if preset == "ours" else Setting(f"costs: {preset}", f"cost-{preset}")


def _share_text(weight: float) -> str:
    return f"{round(100 * weight / (weight + 3), 1):g}%"


def label(setting: Setting, players: int, policy: str = DEFAULT_POLICY) -> str:
    """The arm label of a setting, player count and policy."""
    return f"{policy} | {setting.label} | {players}p"


def games_for(policy: str, n: int) -> int:
    """Games per arm of ``policy``: each a share of ``n`` sized by the precision its pages need and its speed."""
    share = {"planner": PLANNER_SHARE, "expert": EXPERT_SHARE}.get(policy.split(":")[0], HEURISTIC_SHARE)
    return max(1, n // share)


def add(
    plan: Plan, setting: Setting, players: int, n: int, seed: int, chunk: int, policy: str = DEFAULT_POLICY
) -> None:
    """Add the arm of ``setting`` at ``players`` seats, all playing ``policy`` (``n``: the chapter's games per arm)."""
    seats = (policy,) * players
    games = games_for(policy, n)
    size = min(chunk, games, core.default_chunk(INFO, POLICIES, seats))
    plan.add(label(setting, players, policy), seats, games, seed, size, setting.variant, setting.knobs)


def difficulty_settings() -> list[Setting]:
    """The rows of the difficulty table (at most 8, so the table fits under the figure)."""
    return [backpack_setting(2), EASY, DEFAULTS, FORGETFUL, EXPERT, REAL_EXPERTS_2, REAL_EXPERTS, NO_BACKPACKS]


def _arms(
    settings: Sequence[Setting], *beside: str, policy: str = DEFAULT_POLICY, counts: Sequence[int] = PLAYER_COUNTS
) -> Arms:
    """A question's arms: every setting at each of ``counts`` playing ``policy``, then each ``beside`` policy at 2."""

    def arms(plan: Plan, n: int, seed: int, chunk: int) -> None:
        for who, ks in [(policy, counts), *((p, (2,)) for p in beside)]:
            for setting, k in itertools.product(settings, ks):
                add(plan, setting, k, n, seed, chunk, who)

    return arms


def _policies(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """The expert at 2 players, then every heuristic at every player count, our defaults."""
    add(plan, DEFAULTS, 2, n, seed, chunk, "expert")
    for policy in POLICY_ORDER[1:]:
        _arms([DEFAULTS], policy=policy)(plan, n, seed, chunk)


def _memory(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Each memory level at every player count, greedy and random beside at 2 players; memory fading at 2."""
    _arms([memory_setting(m) for m in MEMORY_LEVELS], HEURISTIC, "random")(plan, n, seed, chunk)
    _arms([fade_setting(f) for f in FADES], counts=(2,))(plan, n, seed, chunk)


def _skill(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Every policy at 2 players, with and without memory."""
    for policy in POLICY_ORDER:
        _arms([memory_setting(m) for m in SKILL_MEMORY], policy=policy, counts=(2,))(plan, n, seed, chunk)


def questions(n: int, seed: int, chunk: int) -> list[Question]:
    """The chapter's own questions, in page order, its skill and balance pages in the standard ones' places.

    The balance page's rule sets are 2-player planner arms the other pages play too (the same games and chunks),
    so they cost nothing more.
    """
    shared = balance.question("paleolino", flow.pages("paleolino").balance_share)
    bias = [bias_setting(w, m) for m in BIAS_MEMORY for w in FAVOURED]
    return [
        Question("policies", _policies, policies_page),
        Question("variants", _arms(VARIANT_SETTINGS, HEURISTIC), variants_page),
        Question("memory", _memory, memory_page),
        Question("backpacks", _arms([backpack_setting(b) for b in BACKPACKS]), backpack_page),
        Question("help", _arms(HELP_SETTINGS), help_page),
        Question("cave bias", _arms(bias, counts=(2,)), bias_page),
        Question("costs", _arms([cost_setting(c) for c in COST_PRESETS], HEURISTIC), costs_page),
        Question("difficulty", _arms(difficulty_settings()), difficulty_page),
        Question(skill.LABEL, _skill, skill_page),
        Question(shared.label, shared.arms, balance_page),
    ]


HEADING = "Paleolino: how often the table wins, and what changes it"


def front(done: Done) -> Front:
    """The chapter's own front-page lines, closing with the pages' answers."""
    n_games, precision = done.planned.n_games, done.precision
    params = Params()
    if precision:
        sizes = f"each arm until its table win rate has a 95% half-width of {precision:.2%}"
    else:
        sizes = (
            f"{games_for('greedy', n_games):,} per greedy or random arm, {games_for('planner', n_games):,} per "
            f"planner arm, {games_for('expert', n_games):,} per expert arm"
        )
    largest_chunk = max(arm.spec.chunk_size for arm in done.planned.plan.arms)
    return Front(
        game=(
            f"Paleolino (engine version {INFO.version}), cooperative, 1–4 players: 30 chips roll into 4 caves; each "
            "turn a player pulls 2 chips, opens one cave and builds inventions from the stack tops; the table "
            "wins with 10 inventions before the hand axe is empty."
        ),
        sources=PROVENANCE,
        knobs=(
            ", ".join(f"{k}={v}" for k, v in params.as_dict().items() if k != "inventions")
            + f"; inventions={' '.join(params.inventions)} (ours but for s, bb, sw, wwb); variants "
            + "; ".join(f"{name}: {', '.join(f'{k}={v}' for k, v in o.items())}" for name, o in VARIANTS.items())
        ),
        policies=(
            "; ".join(f"{p.name}: {p.description}" for p in POLICIES.values())
            + f". Every seat plays {DEFAULT_POLICY} (strong play) unless a page says otherwise; {HEURISTIC} is "
            "shown beside it where the two differ."
        ),
        games=(
            f"{done.played.games:,} in {done.arms} arms ({sizes}; chunks of up to {largest_chunk:,}); common random "
            "numbers"
        ),
        reading=(
            "A win rate is the share of games the whole table wins (winner = -1), with its 95% Wilson interval; "
            "it assumes the policy named beside it (planner unless said). Differences: two-proportion tests."
        ),
        closing=("answers", "; ".join(a for a in done.played.column(2) if a)),
    )


def row(results: dict[str, RunResult], setting: Setting, players: int, policy: str = DEFAULT_POLICY) -> dict:
    """One arm as a row: win rate and interval, inventions, help and empty caves per game, games."""
    s = results[label(setting, players, policy)].summary
    return {
        "setting": setting.label,
        "policy": policy,
        "players": players,
        **estimate("rate", stats.proportion(int(s.shared_wins[0]), s.n_games)),  # the table's wins
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


def _by_setting(frame: pd.DataFrame) -> Callable[[Any], None]:
    """Table win rate by player count, one bar per setting, with its interval."""
    return figure(Panel(frame, "players", "rate", "setting", RATE, "players", ylim=(0, 1)))


def _at(frame: pd.DataFrame, column: str, value: Any, players: int) -> pd.Series:
    return frame[(frame[column] == value) & (frame["players"] == players)].iloc[0]


def _rate_of(r: pd.Series) -> str:
    return cell(r, "rate")


def _percent(r: pd.Series | dict) -> str:
    """A row's rate without its interval, the answers' style: ``"41.3%"``."""
    return f"{100 * r['rate']:.1f}%"


def _players(k: int) -> str:
    """A player count as a column or legend label: ``"1 player"``, ``"2 players"``."""
    return f"{k} player{'s' if k > 1 else ''}"


def _points(a: pd.Series, b: pd.Series) -> str:
    """``a`` minus ``b`` in percentage points, with a 95% interval (independent normal approximation)."""
    diff = a["rate"] - b["rate"]
    half = stats.Z95 * np.sqrt(a["rate"] * (1 - a["rate"]) / a["n"] + b["rate"] * (1 - b["rate"]) / b["n"])
    return f"{points(diff, diff - half, diff + half)} pts"


def _p(a: pd.Series, b: pd.Series) -> float:
    return stats.two_proportion_p_value(int(a["won"]), int(a["n"]), int(b["won"]), int(b["n"]))


def wide(frame: pd.DataFrame, key: str, extra: dict[str, Callable[[pd.DataFrame], str]]) -> pd.DataFrame:
    """One row per ``key`` value, one column per player count (rate and interval), then ``extra`` columns."""
    rows = []
    for value, part in frame.groupby(key, sort=False):
        rates = {_players(r["players"]): _rate_of(r) for _, r in part.iterrows()}
        rows.append({key: value, **rates, **{name: make(part) for name, make in extra.items()}})
    return pd.DataFrame(rows)


def _vs(key: str, base: Any, ref: pd.Series) -> Callable[[pd.DataFrame], str]:
    """A :func:`wide` column: a row's rate minus ``ref``'s at its player count, in points ("—" on ``base``'s row)."""
    k = ref["players"]
    return lambda part: "—" if part[key].iloc[0] == base else _points(_at(part, "players", k, k), ref)


def _of_setting(settings: Sequence[Setting], make: Callable[[Setting], str]) -> Callable[[pd.DataFrame], str]:
    """A :func:`wide` column: ``make`` of the setting a row shows."""
    by_label = {s.label: s for s in settings}
    return lambda part: make(by_label[part["setting"].iloc[0]])


def _beside(results: dict[str, RunResult], settings: Sequence[Setting]) -> Callable[[pd.DataFrame], str]:
    """A :func:`wide` column: the heuristic's 2-player rate for a row's setting (shown beside the planner's)."""
    return _of_setting(settings, lambda s: _rate_of(pd.Series(row(results, s, 2, HEURISTIC))))


def _players_text(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(players=[_players(k) for k in frame["players"]])


def _made(title: str, draw: Any, table: pd.DataFrame, notes: list[str], answer: str) -> tuple[Page, str, str]:
    """A page with its headline and answer; every page's notes close with :data:`PROVENANCE`."""
    return Page(title, draw, table, [*notes, PROVENANCE]), title, answer


RATE = "table win rate (fraction)"  # the y axis of most pages


# --- 1. policies and player counts ----------------------------------------------------------------------------


def policies_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """The table's win rate by player count under each heuristic (our defaults), and the expert at 2 players."""
    frame = pd.concat([grid(results, [DEFAULTS], policy) for policy in POLICY_ORDER[1:]], ignore_index=True)
    expert = row(results, DEFAULTS, 2, "expert")
    two = {p: _at(frame, "policy", p, 2) for p in POLICY_ORDER[1:]}
    p1, p4 = (_at(frame, "policy", DEFAULT_POLICY, k) for k in (1, 4))
    title = (
        f"With planner play the table wins {_rate_of(two['planner'])} of 2-player games (greedy "
        f"{_rate_of(two['greedy'])}, random {_rate_of(two['random'])}, the expert {_rate_of(pd.Series(expert))}); "
        f"planner tables win {_rate_of(p1)} solo and {_rate_of(p4)} with 4 players"
    )
    answer = "2-player table wins: " + ", ".join(f"{p} {_percent(r)}" for p, r in [("expert", expert), *two.items()])

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        Panel(frame, "players", "rate", "policy", RATE, "players", kind="line", xticks=PLAYER_COUNTS).draw(ax)
        low, high = expert["rate"] - expert["rate_lo"], expert["rate_hi"] - expert["rate"]
        ax.errorbar([2], [expert["rate"]], [[low], [high]], fmt="k*")
        ax.set_ylim(0, 1)

    table = wide(
        frame,
        "policy",
        {
            "inventions/game": lambda part: " / ".join(f"{v:.1f}" for v in part["inventions"]),
            "games per arm": lambda part: f"{int(part['n'].iloc[0]):,}",
        },
    )
    notes = [
        f"Our defaults; every seat plays the named policy; the star is the expert (2 players, {expert['n']:,} "
        "games). Planner arms have fewer games than greedy and random (slower), hence their wider intervals.",
        f"Planner minus greedy at 2 players: {_points(two['planner'], two['greedy'])}, "
        f"{p_clause(_p(two['planner'], two['greedy']))}. Solo games use 3 stacks, 2–4 players 2 stacks.",
    ]
    return _made(title, draw, table, notes, answer)


# --- 2. easy and expert variants ------------------------------------------------------------------------------


def variants_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """Our defaults, easy, expert and real-experts rules at 1–4 players (planner; greedy beside at 2)."""
    frame = grid(results, VARIANT_SETTINGS)
    base, easy, exp, singles, real = (_at(frame, "setting", s.label, 2) for s in VARIANT_SETTINGS)
    title = (
        f"The easy game lifts 2-player wins from {_rate_of(base)} to {_rate_of(easy)}; expert rules cut them "
        f"to {_rate_of(exp)} and real experts to {_rate_of(real)}, mostly by "
        + (
            "leaving out the one-chip inventions"
            if singles["rate"] < base["rate"] - (base["rate"] - real["rate"]) / 2
            else "the one-build limit"
        )
    )
    answer = f"easy {_percent(easy)}, expert {_percent(exp)}, real experts {_percent(real)} (2 players, planner)"

    greedy = _beside(results, VARIANT_SETTINGS)
    table = wide(frame, "setting", {"vs defaults, 2 p": _vs("setting", DEFAULTS.label, base), "greedy, 2 p": greedy})
    notes = [
        "Everyone plays planner. Easy: one more invention stack (3, solo 4). Expert: one invention per turn. "
        "Real experts: both that and no one-chip inventions (the three cards costing a single chip), shown alone "
        f"too ({_rate_of(singles)} at 2 players). The variants are the publisher's; the rates are ours.",
    ]
    return _made(title, _by_setting(frame), table, notes, answer)


# --- 3. memory ------------------------------------------------------------------------------------------------


def memory_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """The table's win rate as memory fades from perfect to none (planner; greedy and random beside)."""
    frame = grid(results, [memory_setting(m) for m in MEMORY_LEVELS])
    frame["memory"] = [m for m in MEMORY_LEVELS for _ in PLAYER_COUNTS]
    at2 = {m: _at(frame, "memory", m, 2) for m in MEMORY_LEVELS}
    greedy = {m: pd.Series(row(results, memory_setting(m), 2, HEURISTIC)) for m in MEMORY_LEVELS}
    fading = [pd.Series(row(results, fade_setting(f), 2)) for f in FADES]
    title = (
        f"Forgetting costs the table points, not the game: 2-player wins fall from {_rate_of(at2[1.0])} with "
        f"perfect memory to {_rate_of(at2[0.0])} with no memory (greedy {_rate_of(greedy[1.0])} to "
        f"{_rate_of(greedy[0.0])})"
    )
    levels = " / ".join(_percent(at2[m]) for m in (1.0, 0.7, 0.5, 0.0))
    answer = f"memory 1 / 0.7 / 0.5 / 0: {levels} (planner, 2 players)"

    two = pd.DataFrame(
        [{**at2[m].to_dict(), "memory": m, "policy": DEFAULT_POLICY} for m in MEMORY_LEVELS]
        + [{**greedy[m].to_dict(), "memory": m, "policy": HEURISTIC} for m in MEMORY_LEVELS]
    )
    xlabel = "memory (chance a chip's cave is remembered)"
    memory = Panel(_players_text(frame), "memory", "rate", "players", RATE, xlabel, kind="line", xticks=MEMORY_LEVELS)
    memory = replace(memory, ylim=(0, 1))
    draw = figure(memory, replace(memory, frame=two, hue="policy", ylabel="table win rate, 2 players"))

    table = wide(
        frame.assign(memory=[f"{m:g}" for m in frame["memory"]]),
        "memory",
        {
            "vs memory 1, 2 p": _vs("memory", "1", at2[1.0]),
            "greedy, 2 p": lambda part: _rate_of(greedy[float(part["memory"].iloc[0])]),
            "empty caves/game": lambda part: f"{part['empty'].iloc[1]:.2f}",
        },
    )
    notes = [
        "Memory is our knob (the rulebook only asks players to watch): each chip's cave is remembered with this "
        "chance; 0.7 is the 'forgetful' variant. Both policies open the cave with the most expected chips: the "
        "remembered ones plus the chips seen falling but not placed, spread over the caves not opened since.",
        "Memory fading with age (2 players, memory 1, each remembered chip forgotten with this chance a turn): "
        + "; ".join(f"{f:g}/turn {_rate_of(r)}" for f, r in zip(FADES, fading, strict=True))
        + ". Empty caves opened per game shown for 2 players.",
    ]
    return _made(title, draw, table, notes, answer)


# --- 4. backpacks ---------------------------------------------------------------------------------------------


def backpack_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """Backpack capacity 0–3 at 1–4 players: win rate, and chips given in help (planner)."""
    frame = grid(results, [backpack_setting(b) for b in BACKPACKS])
    frame["capacity"] = [b for b in BACKPACKS for _ in PLAYER_COUNTS]
    b0, b1, b2 = (_at(frame, "capacity", c, 2) for c in (0, 1, 2))
    gain = {k: _at(frame, "capacity", 1, k)["rate"] - _at(frame, "capacity", 0, k)["rate"] for k in PLAYER_COUNTS}
    title = (
        f"Backpacks make the game: with 2 players the table wins {_rate_of(b0)} without them, {_rate_of(b1)} "
        f"with one chip and {_rate_of(b2)} with two; a one-chip backpack is worth {100 * gain[1]:.0f} points "
        f"solo and {100 * gain[4]:.0f} with 4 players, who can help each other"
    )
    answer = f"backpack 0 / 1 / 2 chips: {_percent(b0)} / {_percent(b1)} / {_percent(b2)}"

    shown = _players_text(frame)
    helped = shown[frame["players"] > 1].assign(help_lo=lambda f: f["help"], help_hi=lambda f: f["help"])
    given = "chips given to another player's build (per game)"
    capacity = Panel(
        shown, "capacity", "rate", "players", RATE, "backpack capacity (chips)", kind="line", xticks=BACKPACKS
    )
    draw = figure(replace(capacity, ylim=(0, 1)), replace(capacity, frame=helped, y="help", ylabel=given))

    table = wide(
        frame.assign(capacity=[f"{c} chip{'s' if c != 1 else ''}" for c in frame["capacity"]]),
        "capacity",
        {
            "vs 1 chip, 2 p": _vs("capacity", "1 chip", b1),
            "help chips/game": lambda part: " / ".join(f"{v:.2f}" for v in part["help"].iloc[1:]),
        },
    )
    notes = [
        "Everyone plays planner. 1 chip is the rulebook's backpack; 0 is the 'no-backpacks' variant (no help "
        "either); 2 and 3 are ours. Each other player gives at most 1 chip to a turn's builds (the rulebook's "
        "'a chip'); the help page varies that. Help chips/game at 2/3/4 players. Worth of a 1-chip backpack: "
        + ", ".join(f"{100 * gain[k]:+.1f} pts at {k} p" for k in PLAYER_COUNTS)
        + " (solo games also have a third stack).",
    ]
    return _made(title, draw, table, notes, answer)


# --- 5. help --------------------------------------------------------------------------------------------------


def help_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """Helping switched off apart from backpacks, help per helper and backpack swapping (planner)."""
    frame = grid(results, HELP_SETTINGS)
    base, no_help, no_swap, one, two = (_at(frame, "setting", s.label, 4) for s in HELP_SETTINGS)
    base2, no_help2 = (_at(frame, "setting", s.label, 2) for s in HELP_SETTINGS[:2])
    title = (
        f"Helping is worth {100 * (base['rate'] - no_help['rate']):.0f} points at 4 players ({_rate_of(no_help)} "
        f"without it against {_rate_of(base)}) and {100 * (base2['rate'] - no_help2['rate']):.0f} at 2; "
        f"forbidding backpack swaps gives {_rate_of(no_swap)} at 4 players"
    )
    answer = (
        f"help off: {_percent(no_help2)} (2 p), {_percent(no_help)} (4 p); "
        f"2-chip backpacks with 1 / 2 chips of help each: {_percent(one)} / {_percent(two)} (4 p)"
    )

    how = _of_setting(HELP_SETTINGS, Setting.describe)
    table = wide(frame, "setting", {"vs defaults, 4 p": _vs("setting", DEFAULTS.label, base), "variant / knobs": how})
    notes = [
        "Everyone plays planner. No help: backpacks still serve their owners, but no one gives a chip to another "
        "player's build (solo games are unchanged). Help each: chips each other player may give to one turn's "
        "builds (the rulebook's 'a chip' is 1; it only matters with backpacks above 1 chip, which are ours). "
        "Backpack swap (ours, allowed by default): dumping an unused backpack chip to store a new one.",
    ]
    return _made(title, _by_setting(frame), table, notes, answer)


# --- 6. cave bias ---------------------------------------------------------------------------------------------


def bias_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """One cave favoured by the mountain, at 2 players, with perfect memory and forgetting (planner)."""
    frame = pd.DataFrame(
        [
            {**row(results, bias_setting(w, m), 2), "share": w / (w + 3), "memory": f"memory {m:g}"}
            for m in BIAS_MEMORY
            for w in FAVOURED
        ]
    )
    even, half = (_at(frame[frame["memory"] == "memory 1"], "share", share, 2) for share in (0.25, 0.5))
    diff = half["rate"] - even["rate"]
    verb = "barely changes" if abs(diff) < 0.03 else ("raises" if diff > 0 else "lowers")
    title = (
        f"A biased mountain {verb} 2-player wins: {_rate_of(even)} with even caves, {_rate_of(half)} when one "
        f"cave takes half the chips (perfect memory)"
    )
    answer = f"one cave taking half the chips: {_percent(even)} → {_percent(half)}"
    shares, ticks = [w / (w + 3) for w in FAVOURED], [_share_text(w) for w in FAVOURED]
    xlabel = "share of chips rolling into the favoured cave"
    panel = Panel(frame, "share", "rate", "memory", RATE, xlabel, kind="line", xticks=shares, xtick_labels=ticks)
    draw = figure(replace(panel, ylim=(0, 1)))

    table = pd.DataFrame(
        {"cave weights": [f"{w:g}:1:1:1" for w in FAVOURED], "favoured share": ticks}
        | {m: cells(part, "rate") for m, part in frame.groupby("memory", sort=False)}  # rows in FAVOURED order
    )
    notes = [
        "2 players, everyone plays planner. cave_weights w:1:1:1: a chip falls in the favoured cave with chance "
        "w/(w+3). The rulebook gives no odds: even caves (1:1:1:1) are our default, not a measured mountain. "
        f"Memory 1, favoured cave at 50% vs even: {_points(half, even)}, {p_clause(_p(half, even))}.",
    ]
    return _made(title, draw, table, notes, answer)


# --- 7. invention costs ---------------------------------------------------------------------------------------


def costs_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """How much our guessed invention costs matter: named presets at 1–4 players (planner; greedy beside)."""
    settings = [cost_setting(c) for c in COST_PRESETS]
    frame = grid(results, settings)
    at2 = {c: _at(frame, "setting", s.label, 2) for c, s in zip(COST_PRESETS, settings, strict=True)}
    low, high = min(at2.values(), key=lambda r: r["rate"]), max(at2.values(), key=lambda r: r["rate"])
    title = (
        f"The invention costs we had to guess matter most: at 2 players the table wins {_rate_of(at2['cheap'])} "
        f"with cheap costs, {_rate_of(at2['ours'])} with ours and {_rate_of(at2['dear'])} with dear ones"
    )
    answer = f"cost presets at 2 players: {_percent(low)} ({low['setting']}) to {_percent(high)} ({high['setting']})"

    mixes = _of_setting(
        settings, lambda s: ", ".join(Params().with_strings(VARIANTS[s.variant]).inventions) if s.variant else "ours"
    )
    table = wide(frame, "setting", {"greedy, 2 p": _beside(results, settings), "costs": mixes})
    notes = [
        "The rulebook prints 4 costs (Clay Flute s, Sign bb, Seesaw sw, Bed wwb) and says 3 inventions cost one "
        "chip; the other 11 are ours. Every preset keeps those 7: ours 3 singles / 6 doubles / 6 triples (the "
        "default), cheap 3 / 9 / 3, dear 3 / 3 / 9, lumpy as ours with three single-resource triples. Until the "
        "real cards are read, every win rate in this report carries this uncertainty.",
    ]
    return _made(title, _by_setting(frame), table, notes, answer)


# --- 8. difficulty table --------------------------------------------------------------------------------------


def difficulty_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """Every setting against every player count, easiest first: the designer's difficulty table (planner)."""
    settings = difficulty_settings()
    frame = grid(results, settings)
    order = frame.groupby("setting", sort=False)["rate"].mean().sort_values(ascending=False).index.tolist()
    frame["setting"] = pd.Categorical(frame["setting"], order, ordered=True)
    frame = frame.sort_values(["setting", "players"])
    matrix = frame.pivot(index="setting", columns="players", values="rate")
    matrix.columns = [_players(k) for k in matrix.columns]
    frame["setting"] = frame["setting"].astype(str)
    two = frame[frame["players"] == 2].sort_values("rate", ascending=False)
    base2, easiest, hardest = _at(frame, "setting", DEFAULTS.label, 2), two.iloc[0], two.iloc[-1]
    title = (
        f"Difficulty with planner play, 2 players: our defaults win {_rate_of(base2)}, from "
        f"{_rate_of(easiest)} with {easiest['setting']} down to {_rate_of(hardest)} with {hardest['setting']}"
    )
    answer = (
        f"2-player difficulty range: {_percent(hardest)} ({hardest['setting']}) to "
        f"{_percent(easiest)} ({easiest['setting']})"
    )

    def draw(fig: Any) -> None:
        plots.heatmap(matrix, "table win rate (planner)", fig=fig)
        fig.axes[0].set(xlabel="players", ylabel="")

    table = wide(frame, "setting", {"variant / knobs": _of_setting(settings, Setting.describe)})
    notes = [
        "Table wins, every seat planner, 95% Wilson interval; rows easiest to hardest (mean over 1–4 players). "
        "The expert wins more (policies page), greedy and random less.",
    ]
    return _made(title, draw, table, notes, answer)


# --- 9. skill -------------------------------------------------------------------------------------------------


def skill_page(results: dict[str, RunResult]) -> tuple[Page, str, str]:
    """How much skill matters to a cooperative table: each policy's win rate at 2 players, with and without memory."""
    frame = pd.DataFrame(
        [
            {**row(results, memory_setting(m), 2, policy), "memory": f"memory {m:g}"}
            for m in SKILL_MEMORY
            for policy in reversed(POLICY_ORDER)
        ]
    )
    perfect, none = (frame[frame["memory"] == f"memory {m:g}"].set_index("policy") for m in SKILL_MEMORY)
    title = (
        f"Skill matters: a 2-player table wins {_rate_of(perfect.loc['random'])} playing at random, "
        f"{_rate_of(perfect.loc['planner'])} with the planner and {_rate_of(perfect.loc['expert'])} with the "
        f"expert; with no memory {_rate_of(none.loc['random'])} to {_rate_of(none.loc['expert'])}"
    )
    answer = (
        f"2-player skill range, memory 1: random {_percent(perfect.loc['random'])} to expert "
        f"{_percent(perfect.loc['expert'])}"
    )

    draw = figure(Panel(frame, "policy", "rate", "memory", RATE, "policy", ylim=(0, 1)))

    lines = [  # each part's rows run weakest to strongest policy, as the frame was built
        {
            "memory": f"{m:g}",
            "step": f"{weaker} → {stronger}",
            "table wins": f"{_rate_of(b)} → {_rate_of(a)}",
            "gain": _points(a, b),
            "p": p_value(_p(a, b)),
            "games": f"{int(b['n']):,} / {int(a['n']):,}",
        }
        for m, part in zip(SKILL_MEMORY, (perfect, none), strict=True)
        for (weaker, b), (stronger, a) in itertools.pairwise(part.iterrows())
    ]
    notes = [
        "Paleolino is cooperative, so there is no head-to-head ladder: each policy plays every seat of the table. "
        f"The expert searches {PLAYOUTS} planner playouts per cave and per keep ({MEMORYLESS_PLAYOUTS} with memory "
        "0, where the caves differ too little for fewer to tell apart); it sees only what the table knows (caves "
        "redrawn from memory, unseen cards dealt anew). p: two-proportion test of each step. With memory 0 the "
        "expert's gain is a few points, too small for arms this size to show; played on the same games as the "
        "planner it wins clearly more (paired test: engines/paleolino/README.md).",
    ]
    return _made(title, draw, pd.DataFrame(lines), notes, answer)


def balance_page(results: dict[str, Any]) -> tuple[Page, str, str]:
    """The shared balance page: the table win rate and game length, and which costs and pulls win half the games."""
    page, headline = balance.page_maker("paleolino")(results)
    return page, headline, headline.partition(": ")[2]

"""The chapter of a game without one of its own: what every game's record and policies let a report ask.

Its own pages: seat balance and game length at every table size (everyone playing the record's balance policy),
the game's own metrics and the head to head of its policies (the skill ladder's 2-player games); then the standard
questions every report asks where the game declares what they need (:mod:`experiments.chapters.flow`: the skill
ladder, balance by skill, the balance page, a handicap, restricted play, the decisions). :func:`chapter` binds
what every chapter declares (``HEADING``, ``questions``, ``front``) to a game. Every arm is played from the
chapter's seed (common random numbers across arms).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from boardlab.analysis import plots, stats
from boardlab.analysis.book import Page
from boardlab.analysis.wording import count, pct, points
from boardlab.engines import get_game
from boardlab.experiments import ladder as lad
from boardlab.experiments.chapters import balance, flow, skill, verdict
from boardlab.experiments.chapters.common import Front, Plan, Question, knobs_line
from boardlab.experiments.run import RunResult

LARGEST_TABLE = 4  # the seat balance and length pages play tables up to this size
SHARE = 4  # the seat balance, length and metrics pages' arms play 1/SHARE of the chapter's games per arm


def _label(players: int) -> str:
    return f"table {players}"


@dataclass(frozen=True)
class GenericChapter:
    """The generic chapter of ``game`` (see the module docstring)."""

    game: str

    @property
    def module(self) -> Any:
        """The game package."""
        return get_game(self.game).module

    def tables(self) -> range:
        """The table sizes the seat balance and length pages play."""
        info = self.module.INFO
        return range(info.min_players, min(info.max_players, LARGEST_TABLE) + 1)

    def _tables(self, plan: Plan, n: int, seed: int, chunk: int) -> None:
        """Each table size, everyone playing the balance policy (1/SHARE of the games)."""
        games = max(1, n // SHARE)
        for players in self.tables():
            plan.add(_label(players), [balance.setup(self.game).policy] * players, games, seed, min(chunk, games))

    @property
    def HEADING(self) -> str:
        """The chapter's heading."""
        return f"{self.module.INFO.name}: balance, length, skill"

    def questions(self, n: int, seed: int, chunk: int) -> list[Question]:
        """The chapter's own questions, in page order (the head to head is the ladder's games).

        The balance page (the flow's, with the record's budget) also names the knobs its tuning question varied.
        """
        shared = balance.question(self.game, flow.pages(self.game).balance_share)
        return [
            Question("seats", self._tables, self.seats_page),
            Question("length", self._tables, self.length_page),
            Question("metrics", self._tables, self.metrics_page),
            Question("head to head", skill.question(self.game).arms, self.head_to_head_page),
            flow.with_page(shared, self._with_tuned_knobs),
        ]

    def front(self, done: flow.Done) -> Front:
        """The chapter's own front-page lines."""
        module, policy = self.module, balance.setup(self.game).policy
        return Front(
            game=f"{module.INFO.name} (engine version {module.INFO.version}), {self._tables_text()}",
            knobs=knobs_line(module.Params()),
            policies="; ".join(f"{p.name}: {p.description.rstrip('.')}" for p in module.POLICIES.values()) + ".",
            arms=(
                f"everyone {policy} at each table size ({count(max(1, done.planned.games // SHARE), 'game')} "
                "each); the skill ladder's pairs of policies at 2 players; the balance page's rules."
            ),
            games=f"{done.played.games:,} in {done.arms} arms; common random numbers across arms",
            reading=(
                "Every rate is given with its 95% interval (Wilson for proportions, normal for means). This is the "
                "generic chapter of a game without a chapter of its own (experiments/chapters/generic.py)."
            ),
        )

    def _with_tuned_knobs(self, page: Page) -> Page:
        """The balance page, naming the knobs its tuning question varied (for the front page's Assumptions box)."""
        question = balance.setup(self.game).question
        if question is None:
            return page
        metric = question.target.split("=")[0]
        measured = {knob: f"{metric} at {knob} = {', '.join(values)}" for knob, values in question.grid.items()}
        return dataclasses.replace(page, depends_on=measured)

    def _tables_text(self) -> str:
        tables = self.tables()
        return f"{tables[0]} to {tables[-1]} players" if len(tables) > 1 else f"{tables[0]} players"

    def _by_table(self, results: dict[str, RunResult]) -> dict[int, RunResult]:
        return {players: results[_label(players)] for players in self.tables()}

    def seats_page(self, results: dict[str, RunResult]) -> tuple[Page, str]:
        """Each seat's advantage (its share of the wins less the fair share) at every table size.

        A cooperative game has no seats to compare: the page gives the table's win rate instead.
        """
        cooperative = self.module.INFO.cooperative
        rows = []
        for players, result in self._by_table(results).items():
            metrics = result.game_metrics()
            values = [metrics["table_win_rate"]] if cooperative else metrics["seat_advantage"]
            names = ["table"] if cooperative else [f"seat {seat}" for seat in range(players)]
            rows += [
                {"players": players, "seat": name, "value": v.value, "low": v.low, "high": v.high}
                for name, v in zip(names, values, strict=True)
            ]
        frame = pd.DataFrame(rows)
        word = pct if cooperative else lambda *v: f"{points(*v)} points"
        first = frame.iloc[0]
        what = "the table wins" if cooperative else "seat 0's share of the wins is off the fair share by"
        title = (
            f"Seat balance: with {first['players']} players {what} {word(first['value'], first['low'], first['high'])}"
        )
        table = frame.assign(value=[word(*v) for v in frame[["value", "low", "high"]].itertuples(index=False)])
        table = table[["players", "seat", "value"]]

        def draw(fig: Any) -> None:
            shown = frame.assign(players=frame["players"].astype(str))
            label = "table win rate" if cooperative else "share of the wins less the fair share"
            reference = None if cooperative else 0.0
            plots.interval_bars(
                shown, "players", "value", "low", "high", "seat", label, "players", fig=fig, reference=reference
            )

        notes = [f"Everyone plays {balance.setup(self.game).policy}; {self._games(results)}; a shared win counts 1/k."]
        meaning = "A seat far from its fair share calls for a compensation in the rules."
        page = Page(title, draw, table, notes, short="Seat balance", meaning=meaning)
        return page, title

    def _games(self, results: dict[str, RunResult]) -> str:
        return f"{count(results[_label(self.tables()[0])].summary.n_games, 'game')} per table size"

    def length_page(self, results: dict[str, RunResult]) -> tuple[Page, str]:
        """Mean game length in rounds at every table size (turns beside it where they differ), and its spread."""
        per_round = self.module.INFO.turns_are_rounds
        rows = []
        for players, result in self._by_table(results).items():
            mean, low, high = result.summary.mean_rounds(per_round)
            turns = quantiles(result.summary.turns_hist, (0.1, 0.5, 0.9))
            step = 1 if per_round else players  # a game of t seats' turns lasts ceil(t / players) rounds
            rows.append(
                {
                    "players": str(players),
                    "value": mean,
                    "low": low,
                    "high": high,
                    "quantiles": tuple(-(-t // step) for t in turns),
                    "turns": None if per_round else result.summary.mean_turns(),
                }
            )
        frame = pd.DataFrame(rows)

        def beside(turns: tuple[float, float, float] | None) -> str:
            return "" if turns is None else f"; {turns[0]:.1f} turns"

        title = "Game length: " + "; ".join(
            f"{count(int(r.players), 'player')} {r.value:.1f} rounds ({r.low:.1f}–{r.high:.1f}{beside(r.turns)})"
            for r in frame.itertuples()
        )
        table = pd.DataFrame(
            {
                "players": frame["players"],
                "mean rounds": [
                    f"{v:.1f} ({lo:.1f}–{hi:.1f})"
                    for v, lo, hi in frame[["value", "low", "high"]].itertuples(index=False)
                ],
                "10% / median / 90% (rounds)": [" / ".join(map(str, q)) for q in frame["quantiles"]],
                **(
                    {} if per_round else {"mean turns": [f"{t[0]:.1f} ({t[1]:.1f}–{t[2]:.1f})" for t in frame["turns"]]}
                ),
            }
        )

        def draw(fig: Any) -> None:
            plots.interval_bars(frame, "players", "value", "low", "high", None, "rounds per game", "players", fig=fig)

        turn = "" if per_round else ", a turn one player's go"
        notes = [
            f"Everyone plays {balance.setup(self.game).policy}; {self._games(results)}; a round is every player's turn "
            f"once (the last may be cut short){turn}; turn cap "
            f"{self.module.INFO.turn_cap} turns."
        ]
        return Page(
            title, draw, table, notes, short="Game length", meaning="The box's playing time follows these lengths."
        ), title

    def metrics_page(self, results: dict[str, RunResult]) -> tuple[Page, str]:
        """The game's own outcome columns (its ``METRICS``) at every table size."""
        rows = []
        for players, result in self._by_table(results).items():
            for name, metric in self.module.METRICS.items():
                if metric.kind == "counts":
                    continue
                mean, low, high = (np.atleast_1d(a) for a in result.summary.metric_mean(name))
                for seat in range(len(mean)):
                    who = f"seat {seat}" if metric.kind == "seat" else "game"
                    rows.append(
                        {
                            "players": str(players),
                            "metric": metric.label,
                            "who": who,
                            "value": float(mean[seat]),
                            "low": float(low[seat]),
                            "high": float(high[seat]),
                        }
                    )
        frame = pd.DataFrame(rows, columns=["players", "metric", "who", "value", "low", "high"])
        if frame.empty:
            title = f"{self.module.INFO.name} declares no metrics of its own beyond the contract's columns"
        else:
            smallest = frame[frame["players"] == frame["players"].iloc[0]]
            parts = [
                f"{label} {part['value'].iloc[0]:.2f} ({part['low'].iloc[0]:.2f}–{part['high'].iloc[0]:.2f})"
                if len(part) == 1
                else f"{label} {part['value'].min():.2f} to {part['value'].max():.2f} across seats"
                for label, part in smallest.groupby("metric", sort=False)
            ]
            title = f"Its metrics with {count(int(smallest['players'].iloc[0]), 'player')}: " + "; ".join(parts)
        table = frame.assign(
            value=[
                f"{v:.2f} ({lo:.2f}–{hi:.2f})" for v, lo, hi in frame[["value", "low", "high"]].itertuples(index=False)
            ]
        )[["players", "metric", "who", "value"]]

        def draw(fig: Any) -> None:
            shown = frame.groupby(["players", "metric"], as_index=False)[["value", "low", "high"]].mean()
            plots.interval_bars(
                shown,
                "metric",
                "value",
                "low",
                "high",
                "players",
                "mean per game (seat metrics: mean over seats)",
                "metric",
                fig=fig,
            )

        notes = [
            f"Everyone plays {balance.setup(self.game).policy}; {self._games(results)}. Counts metrics are left out."
        ]
        return Page(title, draw, table, notes, short="The game's metrics"), title

    def head_to_head_page(self, results: dict[str, RunResult]) -> tuple[Page, str]:
        """Each policy's share of the wins against each other, both seatings pooled (the skill ladder's games)."""
        policies, _, arms = skill.ladder_arms(self.game, 1, 0, 1)
        pairs = lad.pairs_table(arms, results)
        matrix = pd.DataFrame(np.nan, index=policies, columns=policies)
        for row in pairs.itertuples():
            matrix.loc[row.policy, row.opponent] = row.points / row.games
            matrix.loc[row.opponent, row.policy] = 1 - row.points / row.games
        mean = matrix.mean(axis=1).sort_values(ascending=False)
        best, second = mean.index[0], mean.index[1]
        share, games, (low, high) = _share(pairs, best, second)
        if low > 0.5:  # paired: the same dice in both seat orders; the best is named only when it clears its rival
            others = matrix.loc[best].drop(best).sort_values(kind="stable").index.tolist()  # closest first
            worst = others[0]
            theirs, games, (low, high) = _share(pairs, worst, best)
            title = f"Head to head: {best} takes the most wins against the others; "
            if len(others) > 1 and not _clears_above((low, high), _share(pairs, others[1], best)[2]):
                title += f"its closest opponents, {worst} and {others[1]}, are not detectably apart: {worst} "
            else:
                title += f"its closest opponent, {worst}, still "
            title += f"gets {pct(theirs, low, high)} of their games"
        else:
            needed = verdict.games_to_tell(games, abs(share - 0.5), (high - low) / 2)
            title = (
                f"Head to head: no policy is detectably the strongest; {best} takes {pct(share, low, high)} of its "
                f"{games:,} games against {second} ({verdict.about(needed)})"
            )
        table = pd.DataFrame(
            {
                "policy": pairs["policy"],
                "opponent": pairs["opponent"],
                "games": pairs["games"],
                "policy's share": [
                    pct(p / g, *ci) for p, g, ci in zip(pairs["points"], pairs["games"], intervals(pairs), strict=True)
                ],
            }
        )
        notes = ["2 players, every pair in both seat orders on common random numbers; a shared win counts half."]
        page = Page(
            title,
            lambda fig: plots.heatmap(matrix.loc[mean.index, mean.index], "policy's share of the wins", fig=fig),
            table,
            notes,
            short="Head to head",
        )
        return page, title


def _clears_above(top: tuple[float, float], runner_up: tuple[float, float]) -> bool:
    """Whether a share's interval lies above the runner-up's (larger is better: the negated intervals are compared)."""
    return verdict.clears((-top[1], -top[0]), (-runner_up[1], -runner_up[0]))


def _share(pairs: pd.DataFrame, policy: str, opponent: str) -> tuple[float, int, tuple[float, float]]:
    """``policy``'s share of the wins against ``opponent`` (both seat orders), its games and 95% interval."""
    pair = pairs[pairs["policy"].isin([policy, opponent]) & pairs["opponent"].isin([policy, opponent])].iloc[0]
    points = pair["points"] if pair["policy"] == policy else pair["games"] - pair["points"]
    low, high = stats.wilson(points, pair["games"])
    return float(points / pair["games"]), int(pair["games"]), (float(low), float(high))


def intervals(pairs: pd.DataFrame) -> list[tuple[float, float]]:
    """The 95% Wilson interval of each pair's share of the wins."""
    low, high = stats.wilson(pairs["points"].to_numpy(), pairs["games"].to_numpy())
    return list(zip(np.asarray(low, float), np.asarray(high, float), strict=True))


def quantiles(histogram: np.ndarray, shares: tuple[float, ...]) -> tuple[int, ...]:
    """The game lengths below which each share of the games ends (from the length histogram)."""
    cumulative = np.cumsum(histogram) / max(histogram.sum(), 1)
    return tuple(int(np.searchsorted(cumulative, share)) for share in shares)


def chapter(game: str) -> GenericChapter:
    """The generic chapter of ``game``."""
    return GenericChapter(game)

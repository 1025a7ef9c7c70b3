"""What the shared layers need about Paleolino (see :mod:`engines.record`)."""

from boardlab.engines.paleolino.restrictions import RESTRICTIONS
from boardlab.engines.paleolino.rules import COST_PRESETS
from boardlab.engines.record import Balance, Bench, Pages, Record, Tuning

RECORD = Record(
    default_policy="planner",
    default_reason=(
        "the strongest rule of thumb (it builds for the next invention); learned's tables win more often but "
        "need a model trained for every setting"
    ),
    balance=Balance(
        "planner",
        2,
        Tuning(
            "which invention-cost preset and chips pulled per turn bring a 2-player planner table to winning about "
            "half its games?",
            {
                "inventions": tuple(",".join(COST_PRESETS[c]) for c in ("cheap", "ours", "lumpy", "dear")),
                "pulls": ("1", "2", "3"),
            },
            "table_win_rate=0.5",
            share=1,  # as many games as the rule sets: the 2-pull points are the default and cost-* arms themselves
            names={",".join(costs): f"{name} costs" for name, costs in COST_PRESETS.items()},
        ),
        notes=(
            "Cooperative: the table wins or loses together, so it has a table win rate but no seat advantage, "
            "decisiveness or drama. Publisher's (rulebook): the rules of play and 2 chips pulled a turn. Ours: 11 "
            "of the 15 invention costs (the cost presets: engines/paleolino/README.md), even cave odds, memory and "
            "backpack swaps, on which every figure here rests.",
        ),
    ),
    # the expert at a table with a planner; two learned seats at the default knobs (a shipped model)
    bench=Bench(("greedy",) * 3, 100_000, 1_000, 5_000, "planner", 200, learned_games=10_000),
    search_games=12,
    # a learned table's games, paired with a table of each heuristic on the same games (README: learned wins
    # about 60% at memory 1, random 15%, greedy 35%, the planner 48%)
    learned_soundness_games={"random": 200, "greedy": 400, "planner": 1_000},
    restrictions=RESTRICTIONS,
    # the planner's report arms play 1/8 of the games (about 5,000 games/s): balance and balance by skill too
    pages=Pages(balance_share=8, by_skill_share=8),
)

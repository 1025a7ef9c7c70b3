"""What the shared layers need about Panots (see :mod:`engines.record`)."""

from boardlab.engines.panots.restrictions import RESTRICTIONS
from boardlab.engines.record import Balance, Bench, Handicap, Pages, Record, Series, Tuning

RECORD = Record(
    default_policy="planner",
    default_reason=(
        "it beats every other rule of thumb head to head and needs no trained model (about 500 games a second "
        "a core); learned is as fast and stronger but needs a model for every setting, expert 100 times slower"
    ),
    balance=Balance(
        "planner",
        2,
        Tuning(
            "how many cards per player bring the first seat's advantage closest to fair?",
            {"cards_per_player": ("6", "7", "8", "9", "10")},
            "first_seat_advantage=0",
        ),
    ),
    bench=Bench(("greedy",) * 4, 5_000, 50, 5_000, "planner", 200, learned_games=2_000),
    # ending at the expert's default; ~4 games a second at 16 on one core (planner playouts cost ~2.5 ms a game)
    ladder_budgets=(4, 16),
    report_budgets=(16,),
    looks={"denier": (5, "d"), "majority-aware": (8, "s")},  # 6 is learned's, shared by every game
    soundness_games=300,  # the slowest engine; its heuristics win over 99% against random
    search_games=4,
    # learned wins about 60% against planner and more against the rest (README): 600 games per seating show it
    learned_soundness_games={"random": 100, "greedy": 300, "majority-aware": 300, "planner": 600, "denier": 300},
    restrictions=RESTRICTIONS,
    handicap=Handicap(
        "head_start",
        "VP",
        "the second seat starts with head_start VP",
        (
            Series("planner, random grab order (default)", "planner", tuple(range(7))),
            Series("planner, grabbing in seat order", "planner", tuple(range(7)), (("grab_order", "seat"),)),
        ),
        "0..8",
        notes=(
            "planner, the strongest heuristic, values cards by its own gains and never reads the scores, so a head "
            "start changes who wins, not how it plays; learned reads the scores, but its models ship for "
            "head_start=0 only.",
        ),
    ),
    pages=Pages(balance_share=1),  # the report's tables already play a tenth of its games
)

"""What the shared layers need about Pantolino (see :mod:`engines.record`)."""

from boardlab.engines.pantolino.restrictions import RESTRICTIONS
from boardlab.engines.record import Balance, Bench, Pages, Record, Tuning

RECORD = Record(
    default_policy="turn-optimal",
    default_reason=(
        "it takes the token worth most each turn, worked out exactly: the strongest player that needs no "
        "trained model (learned wins 55% against it, seat-averaged, but needs a model for every setting)"
    ),
    balance=Balance(
        "turn-optimal",
        2,
        Tuning(
            "which token set and number of colours bring the first seat's advantage closest to fair?",
            {"colours": ("5", "6", "7"), "token_values": ("2,3,4", "2,4", "3,4")},
            "first_seat_advantage=0",
        ),
        strong="learned",  # its models for every point of the question ship in models/
    ),
    bench=Bench(("keep-jokers", "keep-jokers"), 200_000, 2_000, 2_000, "turn-optimal", 1000, learned_games=50_000),
    # ending at the expert's default; it plays ~50 games a second on 2 cores at 512
    ladder_budgets=(4, 16, 64, 512),
    report_budgets=(512,),
    exact=("win-optimal",),
    looks={"win-optimal": (0, "D"), "turn-optimal": (9, "^"), "keep-jokers": (2, "o"), "reroll-jokers": (4, "v")},
    search_games=30,
    # learned's edge over turn-optimal and greedy is about a point (README): 16,000 games; the colour keepers lose
    # by 10 points or more, which a thousand show
    learned_soundness_games={
        "random": 200,
        "keep-jokers": 600,
        "reroll-jokers": 600,
        "greedy": 8_000,
        "turn-optimal": 8_000,
    },
    reference_options={"exact": False},
    restrictions=RESTRICTIONS,  # the last throw rolled die by die, as the reference engine rolls it
    pages=Pages(balance_share=1),  # the balance page plays as many games as the report's other arms
)

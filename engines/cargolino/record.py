"""What the shared layers need about Cargolino Valentino (see :mod:`engines.record`)."""

from boardlab.engines.cargolino.restrictions import RESTRICTIONS
from boardlab.engines.record import Balance, Bench, Handicap, Pages, Record, Series, Tuning

RECORD = Record(
    default_policy="detective",
    default_reason=(
        "the strongest rule of thumb (the expert's own rollout); learned and expert are stronger but play "
        "under 1,000 games a second"
    ),
    balance=Balance(
        "detective",
        2,
        Tuning(
            "how many races bring the first seat's advantage closest to fair?",
            {"races": ("1", "2", "3", "4", "5")},
            "first_seat_advantage=0",
        ),
    ),
    bench=Bench(("selfish",) * 4, 100_000, 1_000, 5_000, "detective", 200, learned_games=2_000),
    ladder_budgets=(4, 32),  # its expert plays a few games a second at 32 (its 2-player default)
    report_budgets=(),  # too slow for a report's arms: `simulate ladder cargolino` rates it
    looks={
        "selfish": (1, "P"),
        "blocker": (4, "d"),
        "detective": (0, "H"),
        "oracle": (5, "8"),
        "hindmost": (9, "v"),
        "expert-oracle": (8, "*"),
    },
    more_players=((4, 1_000), (6, 600)),
    # learned against each heuristic, per seating, at 2 players and at every size of more_players (README)
    learned_soundness_games={"random": 100, "selfish": 100, "blocker": 100, "hindmost": 200, "detective": 200},
    restrictions=RESTRICTIONS,
    handicap=Handicap(
        "head_start",
        "shell",
        "seat 0, which starts the first race, starts with head_start shells (public, tied to no snail)",
        (Series("detective", "detective", (0, 1, 2)), Series("learned", "learned", (0,))),
        "0..3",
        share=2,  # 10,000 games a value in a default report: learned plays ~400 games/s
        question="What head start makes the seats fair?",
        notes=(
            "Here the first seat is the one behind, so the head start goes to it; with P players seat i starts "
            "with (P - 1 - i) x head_start shells. Shells are public and belong to no snail, so a head start "
            "reveals nothing about who holds which snail. learned reads the shells banked; its model is trained "
            "per knob setting, so it plays head_start=0 only, where its model ships.",
        ),
    ),
    # restricted play: 5,000 games per seating in a default report (learned plays ~400 games/s); the decisions
    # page: detective parts from learned ~120 times a game, ~32 CPU-s a game
    pages=Pages(choices_share=4, decisions_games=2, decisions_playouts=100),
)

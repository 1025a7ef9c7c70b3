"""What the shared layers need about Swine (see :mod:`engines.record`)."""

from boardlab.engines.record import Balance, Record, Tuning
from swine.restrictions import RESTRICTIONS

RECORD = Record(
    balance=Balance(
        "chase",
        2,
        Tuning(
            "which target brings the first seat's advantage closest to fair?",
            {"target": ("30", "50", "80")},
            "first_seat_advantage=0",
        ),
    ),
    looks={"hold-at-20": (0, "o"), "hold-at-10": (2, "v"), "chase": (4, "^"), "win-optimal": (1, "D")},
    exact=("win-optimal",),
    restrictions=RESTRICTIONS,
    soundness_games=500,
    search_games=4,
    reference_seats=("hold-at-20", "chase", "random"),
)

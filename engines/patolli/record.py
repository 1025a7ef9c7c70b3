"""What the shared layers need about Patolli (see :mod:`engines.record`)."""

from boardlab.engines.patolli.restrictions import RESTRICTIONS
from boardlab.engines.record import Balance, Bench, Handicap, Pages, Record, Series, Tuning

RECORD = Record(
    default_policy="balanced",
    default_reason=(
        "the strongest rule of thumb (home-stretch plays level with it); learned wins over 90% against it but "
        "plays about 1,200 games a second and needs a model for every setting"
    ),
    balance=Balance(
        "balanced",
        2,
        Tuning(
            "how many starting tokens bring the first player's advantage closest to fair?",
            {"tokens": ("6", "8", "10", "12", "15", "20")},
            "first_seat_advantage=0",
        ),
    ),
    bench=Bench(("balanced", "balanced"), 50_000, 300, 20_000, "balanced", 400, learned_games=10_000),
    # ending at the expert's default; about 9 games a second on one core at 256 (its playouts are compiled)
    ladder_budgets=(16, 64, 256),
    report_budgets=(256,),
    looks={
        "runner": (2, "p"),
        "aggressive": (4, "<"),
        "cautious": (9, ">"),
        "balanced": (0, "h"),
        "home-stretch": (5, "o"),  # 6 is learned's, shared by every game
    },
    search_games=6,
    # learned wins about 90% against balanced and home-stretch (README): a few hundred games per seating show it
    learned_soundness_games={
        "random": 200,
        "runner": 200,
        "aggressive": 200,
        "cautious": 200,
        "balanced": 300,
        "home-stretch": 300,
    },
    restrictions=RESTRICTIONS,
    handicap=Handicap(
        "head_start",
        "token",
        "seat 1 starts with head_start tokens more than seat 0; seat 0 places the last bad-luck marker",
        (
            Series("balanced (its own marker rule)", "balanced", (0, 1, 2, 3)),
            Series("learned", "learned", (0, 4, 8, 9, 10)),  # the head starts whose 2-player models ship
        ),
        "0..20",
        share=2,  # 10,000 games a value in a default report
        notes=(
            "learned reads each seat's tokens; its model is trained by self-play per knob setting, so it plays only "
            "the head starts whose models ship (`simulate train patolli --set head_start=H` trains another). Each "
            "model learns its own marker placement, the source of its edge at head_start=0 "
            "(engines/patolli/README.md), so its edge need not fall steadily as the head start grows.",
        ),
    ),
    pages=Pages(decisions_games=2),  # the decisions page: ~33 CPU-s a game (each marker placement values ~40 squares)
)

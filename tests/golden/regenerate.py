"""Write the golden traces (``make golden``): run after a deliberate change of rules or random-number use."""

from __future__ import annotations

from pathlib import Path

from boardlab.engines.core import ScriptedSource
from boardlab.engines.pantolino import Params
from boardlab.engines.pantolino import reference as pantolino_reference

FOLDER = Path(__file__).parent

TRACES = {
    "pantolino-keep-jokers-vs-turn-optimal.txt": (Params(), ["keep-jokers", "turn-optimal"], 2026),
    "pantolino-escaping-boots.txt": (
        Params(escaping_boots=True),
        ["greedy", "keep-jokers", "reroll-jokers"],
        7,
    ),
    "pantolino-remove-smallest.txt": (Params(no_token_rule="remove-smallest"), ["random", "keep-jokers"], 11),
}


def trace(params: Params, seats: list[str], seed: int) -> str:
    """One game of the reference engine from a seeded stream, as text."""
    lines = [f"# Pantolino, seats {', '.join(seats)}, stream seed {seed}, knobs {params.as_dict()}"]
    out = pantolino_reference.play_one(params, seats, ScriptedSource.from_seed(seed, 1, 20_000).one_game(0), lines)
    lines.append(f"# result: boots {out['score']}, winner {out['winner']}, {out['turns']} turns")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Rewrite every golden trace."""
    for name, (params, seats, seed) in TRACES.items():
        (FOLDER / name).write_text(trace(params, seats, seed))
        print(f"wrote {FOLDER / name}")


if __name__ == "__main__":
    main()

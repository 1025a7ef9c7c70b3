"""What a played game is: the game, its knobs, the seats and the seed, checked before anything is played."""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from functools import cached_property
from types import ModuleType
from typing import Any

from boardlab.engines import core, get_game
from boardlab.engines.seating import Seating, seating_of
from boardlab.experiments import validate

HUMAN = "human"  #: the seat name of a person at the terminal
MAX_PLAYOUTS = 100_000  #: playouts per legal move of hints, reviews and explanations, at most


@dataclass(frozen=True)
class Setup:
    """A game to play: ``seats`` name a policy (``expert:64``) or :data:`HUMAN` per seat.

    Raises:
        ValueError: (one line) for an unknown game, variant, knob or policy, a wrong number of seats, or a game
            without the ``seats`` and ``words`` modules a table needs.
    """

    game: str
    seats: tuple[str, ...]
    seed: int = 0
    settings: tuple[tuple[str, str], ...] = ()
    variant: str | None = None

    def __post_init__(self) -> None:
        """Check the game, seats, seed and knobs now (their types first: lists are kept as tuples)."""
        validate.text(self.game, "game")
        object.__setattr__(self, "seats", validate.names(self.seats, "seats"))
        validate.whole(self.seed, "seed", 0, 2**63 - 1)
        object.__setattr__(self, "settings", validate.pairs(self.settings, "settings"))
        if self.variant is not None:
            validate.text(self.variant, "variant")
        module = self.module
        missing = [m for m in ("decisions", "words") if importlib.util.find_spec(f"{module.__name__}.{m}") is None]
        if missing:
            raise ValueError(f"{self.game} cannot be played at a table yet: it has no {' or '.join(missing)} module")
        core.check_players(module.INFO, len(self.seats))
        core.resolve_policies(module.POLICIES, [s for s in self.seats if s != HUMAN])
        self.params  # noqa: B018 - checks the variant and knobs

    @property
    def module(self) -> ModuleType:
        """The game package."""
        return get_game(self.game).module

    @cached_property
    def seating(self) -> Seating:
        """The game's seats: its decision points one at a time."""
        return seating_of(self.module)

    @cached_property
    def words(self) -> ModuleType:
        """The game's ``words`` module: its views and moves in words."""
        return importlib.import_module(f"{self.module.__name__}.words")

    @property
    def players(self) -> int:
        """Seats at the table."""
        return len(self.seats)

    @property
    def humans(self) -> list[int]:
        """The seats a person plays."""
        return [i for i, s in enumerate(self.seats) if s == HUMAN]

    @cached_property
    def params(self) -> Any:
        """The game's knobs: the variant's, then the explicit settings (a setting may not contradict the variant)."""
        from boardlab.experiments import variants

        chosen: dict[str, str] = {}
        if self.variant is not None:
            found = variants.settings_of(self.game, self.variant)
            if found is None:
                raise ValueError(
                    f"unknown variant '{self.variant}' for {self.game}"
                    f"{core.did_you_mean(self.variant, variants.names(self.game))}"
                )
            chosen = dict(found)
        params = self.module.Params().with_strings(chosen)
        for name, text in self.settings:
            if name in chosen and chosen[name] != text:
                raise ValueError(f"--set {name}={text} contradicts variant {self.variant} ({name}={chosen[name]})")
        return params.with_strings(dict(self.settings))

    def hint_playouts(self) -> int:
        """The game's default playouts per legal move for hints and reviews at this table."""
        from boardlab.engines.expert import default_playouts

        return default_playouts(self.seating.HINT_PLAYOUTS, self.players)

    def ready(self, policy: str) -> str:
        """``policy``, checked at this table: a known policy whose tables are built (or which refuses the table) now."""
        core.resolve_policies(self.module.POLICIES, [policy])
        (impl,) = self.seating.instances(self.params, [policy], self.players)
        if hasattr(impl, "prepare"):
            impl.prepare(self.players)
        return policy

    def hint_policy(self) -> str:
        """The game's default strong player for hints and reviews at this table."""
        return self.seating.hint_policy(self.params, self.players)


def check_playouts(count: int, option: str) -> int:
    """Playouts per legal move given as ``option``, checked: 2 to :data:`MAX_PLAYOUTS`."""
    if not 2 <= count <= MAX_PLAYOUTS:
        raise ValueError(f"{option} {count} is out of range; allowed 2..{MAX_PLAYOUTS}")
    return count

"""Every registered game honours the engine contract (DESIGN.md §2): each check of the public game checker."""

from __future__ import annotations

import pytest

from engines import available_games, get_game
from engines.checker import CHECKS


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("game", available_games())
def test_game_passes_the_check(game: str, check: str) -> None:
    CHECKS[check](get_game(game).module)

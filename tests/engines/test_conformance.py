"""Every registered game honours the engine contract: the public game checker, one check per case (in parallel).

The built-in games, and any installed from outside (the worked example, ``tests/example_game``, among them). A
game's own tests add the checker's differential and batch checks with its own knobs and seats.
"""

from __future__ import annotations

import pytest

from boardlab.engines import available_games, get_game
from boardlab.engines.checker import CHECKS, check_game


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("game", available_games())
def test_game_passes_the_check(game: str, check: str) -> None:
    check_game(get_game(game).module, only=(check,))

"""No shared module names a game: what a shared layer needs about a game comes from the game's record.

Shared: every module of ``experiments`` and ``analysis`` but a game's own report chapter
(``experiments/chapters/<game>.py``), and the modules of ``engines`` outside the game packages but the registry
(``engines/__init__.py``, which maps ids to packages). Code is checked (names, attributes, imports and string
constants), not docstrings (a string standing alone as a statement) or comments, which may use a game as an example.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from boardlab.engines import available_games

ROOT = Path(__file__).resolve().parents[2]
GAMES = available_games()
PATTERN = re.compile(rf"(?<![a-z]){'|'.join(GAMES)}(?![a-z])", re.IGNORECASE)


def shared_modules() -> list[Path]:
    """The shared modules (see the module docstring)."""
    found = [p for layer in ("experiments", "analysis") for p in (ROOT / layer).rglob("*.py")]
    found = [p for p in found if not (p.parent.name == "chapters" and p.stem in GAMES)]
    return sorted(found + [p for p in (ROOT / "engines").glob("*.py") if p.name != "__init__.py"])


def docstrings(tree: ast.AST) -> set[int]:
    """``id`` of every string that stands alone as a statement: docstrings, of modules, classes, functions or names."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }


def game_names_in(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of every game id the code of ``source`` names."""
    tree = ast.parse(source)
    skip = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        texts: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            texts = [node.value]
        elif isinstance(node, ast.Name):
            texts = [node.id]
        elif isinstance(node, ast.Attribute):
            texts = [node.attr]
        elif isinstance(node, ast.ImportFrom):
            texts = [node.module or "", *(a.name for a in node.names)]
        elif isinstance(node, ast.Import):
            texts = [a.name for a in node.names]
        found += [(node.lineno, text) for text in texts if PATTERN.search(text)]
    return found


def test_the_check_finds_a_game_in_code_but_not_in_a_docstring() -> None:
    game = GAMES[0]
    source = f'"""Say {game} here."""\nfrom engines.{game}.rules import X\nBUDGETS = {{"{game}": 1}}\n'
    assert [line for line, _ in game_names_in(source)] == [2, 3]


def test_no_shared_module_names_a_game() -> None:
    named = {str(p.relative_to(ROOT)): found for p in shared_modules() if (found := game_names_in(p.read_text()))}
    assert named == {}

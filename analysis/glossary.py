"""The glossary at the end of every report: the terms its pages use, each in plain words.

:func:`used` finds which terms a book's pages use; the PDF names them under each page with the glossary's page
number, and the HTML twin links a term's first use on a page to its entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """A glossary entry: its name, the pattern that finds it in a page's text, and what it means."""

    name: str
    pattern: str
    meaning: str

    @property
    def anchor(self) -> str:
        """The HTML id of the entry."""
        return "term-" + re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")

    def find(self, text: str) -> re.Match[str] | None:
        """The first use of the term in ``text``, if any."""
        return re.search(self.pattern, text, flags=re.IGNORECASE)


TERMS: tuple[Term, ...] = (
    Term(
        "95% interval",
        r"\b95% intervals?\b|\binterval\b",
        "The range the true value lies in, 19 times out of 20, given the games played; written as "
        "value (low–high). More games make it narrower.",
    ),
    Term(
        "percentage points",
        r"\bpercentage points\b|\bpoints\b",
        "The difference between two percentages: from 50% to 53% is 3 percentage points.",
    ),
    Term(
        "p-value",
        r"\bp-values?\b|\bp [=<] ",
        "How often a difference at least this large would show up by chance alone if there were none; below "
        "0.05 the difference is usually taken as real.",
    ),
    Term(
        "Wilson interval",
        r"\bWilson\b",
        "The usual way to compute a 95% interval for a share of games; it stays sensible near 0% and 100%.",
    ),
    Term(
        "playout",
        r"\bplayouts?\b|\bMonte Carlo\b|\bMC\b",
        "A game played to the end by the computer from some position to see how it turns out; averaging many "
        "playouts estimates how good the position or move is (the Monte Carlo method).",
    ),
    Term(
        "common random numbers",
        r"\bcommon random numbers\b|\bsame dice\b",
        "Every setting being compared is played with the same dice rolls, so differences come from the rules "
        "or players and not from luck.",
    ),
    Term(
        "policy",
        r"\bpolic(?:y|ies)\b",
        "A way of playing: a fixed rule of thumb (a heuristic), a trained player, or an exact solution.",
    ),
    Term(
        "heuristic",
        r"\bheuristics?\b",
        "A simple fixed rule of thumb for choosing moves, such as 'always take the largest token'.",
    ),
    Term(
        "learned player",
        r"\blearned\b",
        "A player trained by the computer on many games to choose well; strong, but not something a person "
        "can follow move by move.",
    ),
    Term(
        "expert",
        r"\bexpert\b",
        "A player that tries each possible move in many playouts and picks the one that wins most often.",
    ),
    Term(
        "exact solution",
        r"\bwin-optimal\b|\bturn-optimal\b|\bsolver\b|\bexact\b",
        "Play computed exactly over every possible position: no player can do better at what it aims for "
        "(winning, or finishing in the fewest turns).",
    ),
    Term(
        "Elo rating",
        r"\bElo\b|\brating\b",
        "A strength score: a player 100 points above another wins about 64% of their games against it.",
    ),
    Term(
        "Bradley–Terry model",
        r"\bBradley.Terry\b",
        "The statistical model behind the ratings: each player has one strength, and the chance one beats "
        "another depends only on the gap between their strengths.",
    ),
    Term(
        "skill chain",
        r"\bskill chain\b|\brungs?\b|\bladder\b",
        "Players ordered from random play upward, each step (rung) clearly beating the one below; more steps "
        "mean more room for skill.",
    ),
    Term(
        "regret",
        r"\bregret\b|\bgave up\b",
        "How much a choice costs compared with the best choice available, in win chance or points.",
    ),
    Term(
        "Markov chain",
        r"\bMarkov chain\b",
        "A calculation over every possible state (such as every set of dice showing) and the chance of moving "
        "from one to the next; it gives exact answers without playing games.",
    ),
    Term(
        "seat",
        r"\bseats?\b",
        "A place at the table, numbered from 0. Seat 0, the first seat, takes the first turn unless the rules "
        "draw lots for it (a roll-off); the other seats follow in order.",
    ),
)


def used(texts: Iterable[str]) -> list[Term]:
    """The terms any of ``texts`` uses, in glossary order."""
    joined = "\n".join(texts)
    return [term for term in TERMS if term.find(joined)]

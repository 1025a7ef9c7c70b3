"""Display names: what a report shows instead of a metric's, knob's or restricted player's identifier.

One table (:data:`NAMES`) for the metrics and the knobs; :func:`display` words any label (a known name is looked
up, any other ``snake_case`` word reads with spaces, ``learned!rule``, the learned player held to a rule, reads
"learned (rule)"), and
:func:`humanize` applies it to every text of a drawn figure: titles, axis labels, tick labels, legends, tables.
"""

from __future__ import annotations

import re
import textwrap
from functools import partial
from typing import Any

NAMES: dict[str, str] = {
    # the game metrics (analysis.game_metrics)
    "first_seat_advantage": "first seat's edge",
    "max_seat_advantage": "largest edge of any seat",
    "seat_advantage": "seat's edge",
    "decisiveness": "games with one winner",
    "table_win_rate": "games the table wins",
    "duration": "game length",
    "drama": "games won from behind",
    "lead_changes": "lead changes per game",
    "skill_depth": "steps of the skill chain",
    "luck_share": "weaker player's share of wins",
    "win_rate": "win rate",
    # knobs the chapters vary or show
    "joker_faces": "joker faces",
    "token_values": "token values",
    "cards_per_player": "cards per player",
    "grab_order": "grab order",
    "head_start": "head start",
}
"""Identifier → the words a designer reads; a name not listed reads with its underscores as spaces."""

_IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_RESTRICTED = re.compile(r"\b([a-z][\w-]*)!([a-z][\w-]*)")


def display(text: str) -> str:
    """``text`` with every identifier in it worded: ``"drama"`` → ``"games won from behind"``."""
    if text in NAMES:
        return NAMES[text]
    text = _RESTRICTED.sub(lambda m: f"{m[1]} ({m[2]})", text)
    return _IDENTIFIER.sub(lambda m: NAMES.get(m[0], m[0].replace("_", " ")), text)


TICK_CHARS = 14
"""A word label on the x axis wraps to lines of this many characters, so that neighbours do not run together."""


LABEL_CHARS = (80, 36)
"""Characters a line of an x and a y axis label: a y label longer than its axis ran into the title above."""


def humanize(fig: Any) -> None:
    """Word every text of ``fig`` (a figure or subfigure) with :func:`display`, word tick labels included.

    Word labels on an x axis wrap to :data:`TICK_CHARS` characters a line.
    """
    from matplotlib.axes import Axes
    from matplotlib.category import StrCategoryFormatter
    from matplotlib.text import Text
    from matplotlib.ticker import FixedFormatter, FuncFormatter

    for ax in fig.findobj(Axes):
        for axis, wrap in ((ax.xaxis, TICK_CHARS), (ax.yaxis, 0)):
            formatter = axis.get_major_formatter()
            if isinstance(formatter, FixedFormatter | StrCategoryFormatter | FuncFormatter):
                axis.set_major_formatter(FuncFormatter(partial(_tick, formatter, wrap)))
        for label, chars in ((ax.xaxis.label, LABEL_CHARS[0]), (ax.yaxis.label, LABEL_CHARS[1])):
            label.set_text("\n".join(textwrap.wrap(display(label.get_text()), chars)))
    for text in fig.findobj(Text):
        worded = display(text.get_text())
        if worded != text.get_text():
            text.set_text(worded)


def _tick(formatter: Any, wrap: int, x: float, pos: int | None = None) -> str:
    """A word tick label worded, and wrapped to ``wrap`` characters a line when ``wrap``."""
    text = display(str(formatter(x, pos)))
    if not wrap:
        return text
    return "\n".join(part for line in text.splitlines() for part in textwrap.wrap(line, wrap) or [""])

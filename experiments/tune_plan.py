"""What a tuning run plays and what it concludes: the baseline, an enumerable search space, and the verdict.

- **Baseline**: the setting a designer starts from (the game's defaults, then the variant's and the fixed knobs)
  is always trial 0; a varied knob whose list or range leaves out its baseline value gets it added, so the
  rulebook's setting is measured on the same dice as every other and reported beside the best.
- **Enumeration**: when every varied knob takes finitely many values (a list, or a range of whole numbers) and
  their combinations number no more than the trials, each is played once (baseline first), none by chance.
- **Verdict**: a target is reached when its metric's 95% interval touches the target widened by its tolerance;
  the result names each target reached or missed, and a missed one the closest value found.
"""

from __future__ import annotations

import itertools
import math
import typing
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from boardlab.engines import core, get_game
from boardlab.experiments import variants

MAX_SPACE = 10_000
"""Settings beyond this many are not listed (``--trials`` is at most this, so such a space is never enumerated)."""


def _text(value: Any) -> str:
    """A knob's value as the text ``--set`` takes."""
    return variants.as_text(value) if not isinstance(value, float) else repr(value)


def baseline(
    game: str, knobs: Sequence[Any], settings: tuple[tuple[str, str], ...], variant: str | None
) -> dict[str, str]:
    """The varied knobs' values before tuning (defaults, then the variant's and ``settings``), as knob text.

    A listed knob's value is given as the listed text that means the same (``2,3,4`` for ``(2, 3, 4)``).
    """
    module = get_game(game).module
    fixed = {k.replace("-", "_"): v for k, v in (*(variants.settings_of(game, variant) or {}).items(), *settings)}
    params = module.Params().with_strings(fixed)
    hints = typing.get_type_hints(module.Params)
    out: dict[str, str] = {}
    for knob in knobs:
        value = getattr(params, knob.name)
        same = [v for v in knob.values if _parses_to(knob.name, v, hints[knob.name], value)]
        if same:
            out[knob.name] = same[0]
        elif knob.values or not knob.whole:
            out[knob.name] = _text(value)
        else:
            out[knob.name] = str(int(value))
    return out


def _parses_to(name: str, text: str, tp: Any, value: Any) -> bool:
    try:
        return bool(core.parse_value(name, text, tp) == value)
    except ValueError:
        return False


def including(knobs: Sequence[Any], setting: Mapping[str, str]) -> tuple[Any, ...]:
    """``knobs`` widened so each takes its value in ``setting`` (a listed value added last, a range stretched)."""
    out = []
    for knob in knobs:
        text = setting[knob.name]
        if knob.values:
            out.append(knob if text in knob.values else replace(knob, values=(*knob.values, text)))
        else:
            value = float(text)
            out.append(replace(knob, low=min(knob.low, value), high=max(knob.high, value)))
    return tuple(out)


def size(knobs: Sequence[Any]) -> float:
    """How many settings the knobs span (infinite when one is a range of reals)."""
    total = 1.0
    for knob in knobs:
        if knob.values:
            total *= len(knob.values)
        elif knob.whole:
            total *= int(knob.high) - int(knob.low) + 1
        else:
            return math.inf
    return total


def every_setting(knobs: Sequence[Any], first: Mapping[str, str]) -> list[dict[str, str]]:
    """Every setting of ``knobs`` (at most :data:`MAX_SPACE`), ``first`` first, then in the knobs' order."""
    if size(knobs) > MAX_SPACE:
        raise ValueError(f"more than {MAX_SPACE} settings")
    values = [knob.values or tuple(str(v) for v in range(int(knob.low), int(knob.high) + 1)) for knob in knobs]
    rest = [dict(zip([k.name for k in knobs], combo, strict=True)) for combo in itertools.product(*values)]
    return [dict(first), *(s for s in rest if s != dict(first))]


def verdict(metrics: Mapping[str, Mapping[str, Any]], targets: Sequence[Any]) -> list[dict[str, Any]]:
    """For each target: the metric's value and interval at a setting, and whether it reached the target."""
    out = []
    for target in targets:
        m = metrics[target.metric]
        low, high = m["ci"]
        reached = low <= target.high + target.tolerance and high >= target.low - target.tolerance
        out.append({"target": target.describe(), "metric": target.metric, "value": m["value"], "ci": [low, high],
                    "tolerance": target.tolerance, "reached": bool(reached)})  # fmt: skip
    return out

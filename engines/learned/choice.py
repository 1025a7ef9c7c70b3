"""The generic learned decision: per row, the legal candidate whose resulting position the model values most.

It needs only the decision-point contract (:class:`engines.core.DecisionPoint`) and the one hook a learned player
adds, :class:`Featured`. A game whose decisions are followed by chance (Pantolino's keeps) does better with its
own unit that takes the expectation over the dice exactly; this is the rule for decisions that lead straight to
a position, and the reference such a unit's last step must agree with. :func:`choose` is what a learned seat and
self-play call: it asks the model only about rows with a real choice (:func:`where_chosen`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np

from boardlab.engines.core import DecisionPoint
from boardlab.engines.expert import candidate_values
from boardlab.engines.learned.model import ValueModel


@runtime_checkable
class Featured(Protocol):
    """A decision point that can describe its rows' positions for a value model."""

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        """``(B, n_features)`` float32: each row's position as seat ``viewer[b]`` sees it (default: the deciding seat).

        A feature may use only what that seat can see: hidden information never enters, so that two positions
        the seat cannot tell apart get the same features (the expert's invariance rule).
        """
        ...


def model_values(point: DecisionPoint, model: ValueModel) -> np.ndarray:
    """``(B, A)``: the model's value of the deciding seat's position after each legal candidate; -inf if illegal."""
    legal = point.legal()
    rows, candidates = np.nonzero(legal)
    after = point.take(rows)
    after.apply(candidates)
    values = np.full(legal.shape, -np.inf)
    values[rows, candidates] = model.predict(after.features(point.seat[rows]))
    return values


def best_of(values: np.ndarray) -> np.ndarray:
    """``(B,)``: each row's best valued candidate; ties go to the highest-numbered one."""
    return values.shape[1] - 1 - values[:, ::-1].argmax(axis=1)


def best_candidates(point: DecisionPoint, model: ValueModel) -> np.ndarray:
    """``(B,)``: each row's legal candidate whose resulting position ``model`` values most for the deciding seat.

    Ties go to the highest-numbered candidate.
    """
    return best_of(model_values(point, model))


def searched_candidates(point: DecisionPoint, model: ValueModel, rollout: str, playouts: int) -> np.ndarray:
    """``(B,)``: each row's legal candidate of the highest search value; ties by the model, then the highest-numbered.

    The search values are :func:`engines.expert.candidate_values` (``playouts`` per candidate, ``rollout`` in every
    seat). Where nothing is hidden any more and ``rollout`` is deterministic, one playout is the exact value of a
    candidate under that rollout: a game's endgame can be played out instead of valued.
    """
    searched = candidate_values(point, rollout, playouts)
    top = searched == np.nanmax(searched, axis=1, keepdims=True)
    chosen = best_of(np.where(top, 0.0, -np.inf))
    tied = np.flatnonzero(top.sum(axis=1) >= 2)  # only these rows ask the model
    if len(tied):
        chosen[tied] = best_of(np.where(top[tied], model_values(point.take(tied), model), -np.inf))
    return chosen


def guarded_candidates(point: DecisionPoint, model: ValueModel, default: np.ndarray, margin: float) -> np.ndarray:
    """Each row's ``default`` candidate, or the best valued one where the model clearly prefers it.

    The best valued legal candidate (ties: the highest numbered, as :func:`best_candidates`) replaces ``default``
    where ``default`` is not legal (a restriction may forbid it) or where the model values the position after it
    more than ``margin`` above the position after ``default``.
    """
    legal = point.legal()
    values = model_values(point, model)
    best = best_of(values)
    index = np.arange(len(best))
    safe = np.clip(default, 0, legal.shape[1] - 1)
    keep = (default == safe) & legal[index, safe] & (values[index, best] - values[index, safe] <= margin)
    return np.where(keep, default, best)


def choose(
    point: DecisionPoint, model: ValueModel, default: Callable[[], np.ndarray] | None = None, margin: float = 0.0
) -> np.ndarray:
    """:func:`best_candidates`, asking the model only about rows with a real choice.

    With a ``margin`` above 0, each row's ``default()`` candidate instead, unless the model values another more than
    ``margin`` above it (:func:`guarded_candidates`). A row with one legal candidate takes it.
    """
    if margin > 0 and default is not None:
        return where_chosen(point, lambda sub, rows: guarded_candidates(sub, model, default()[rows], margin))
    return where_chosen(point, lambda sub, _: best_candidates(sub, model))


def where_chosen(point: DecisionPoint, pick: Callable[[DecisionPoint, np.ndarray], np.ndarray]) -> np.ndarray:
    """``(B,)``: each row's only legal candidate, or ``pick(sub, rows)``'s where ``rows`` have two or more.

    ``sub`` is ``point.take(rows)``; ``pick`` returns one candidate per row of it.
    """
    legal = point.legal()
    chosen = legal.argmax(axis=1)
    multi = np.flatnonzero(legal.sum(axis=1) >= 2)
    if len(multi):
        chosen[multi] = pick(point.take(multi), multi)
    return chosen

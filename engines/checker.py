"""The public game checker (like pgx's ``api_test`` or Gymnasium's ``check_env``): does a game honour the contract?

:func:`check_game` runs every check of :data:`CHECKS` on a game package (a registered one, or one from outside
before it registers) and raises :class:`CheckError` naming the game, the check and what is wrong. The checks
(``engines/README.md``, The contract):

- ``contract``: ``INFO``, a frozen ``Params`` whose knobs are documented and sourced, the policy registry, the
  metrics, variants that apply;
- ``columns``: for every policy, the standard outcome columns' shapes, dtypes and bounds, and each metric's;
  ``mid_score`` and ``lead_changes`` (drama and lead changes, optional) both or neither, and their shapes;
- ``batch``: for every policy that does not search, a batch of B games equals B batches of one on the same
  scripted stream;
- ``seeds``: the same seed plays the same games, another seed others;
- ``reference``: the reference engine plays the same games as ``play`` on the same scripted streams (the seats
  the game's record names for it, else those it benchmarks; every column the reference engine returns; floats
  to 1e-9, NaN equal to NaN).

- ``decisions``: the decision points met in a few games (read through the game's seat adapter, ``decisions.Seat``, the
  one every player decides through; a game without one has none checked): legal masks (every row has a candidate, and
  what each honest policy suggests is legal), copies (``take`` rows, ``determinise``, ``apply`` and ``play_out`` leave
  the original as it was; equal copies on equal streams play equal games), determinisation leaving the deciding seat's
  view unchanged (its legal moves, what every honest policy suggests, its ``features`` where the point has them) and
  playouts (``(B, P)`` winners and scores; a competitive game has a winner in every row).
- ``features``: where a game's decision points have ``features`` (the learned player's hook), an applied
  candidate describes the position it leads to: when the next decision of the same game is another seat's and
  comes with no chance drawn in between (a scripted stream's cursor did not move), that point's features, as the
  seat that decided sees them, equal the applied copy's (a seat's own next decision may follow choices no
  decision point shows, such as Paleolino's builds, so it is not compared). A learned player is trained on
  applied copies' features and values the positions it meets by them; two encodings of one position make it
  value them apart.

- ``learned`` and ``collapse`` (:mod:`engines.learned.checks`): a trained ``learned`` beats the game's first
  heuristic and ``random`` in a small seeded head to head with an interval (failing only when it loses or at best
  ties), and its training did not collapse (its games end before the turn cap as simpler players' do; the model's
  values of its self-play positions spread, neither all equal nor saturated). They play a model at hand, or one
  trained now when :func:`check_game` is asked to (``train``); with none they are skipped and say so.

The checks that play every policy (``columns``, ``batch``, ``decisions``) leave a learned player without a model
at hand out (:func:`untrained`), saying so, rather than train it unasked. Searching policies are checked at a
budget of 4 (the contract, not their strength); policies that cheat (their description says so) are left out of
the determinisation check. Each check plays a few games. The checks that
play take the params, seats and sizes a game's own tests want (``check_reference(module, params, seats)``).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from boardlab.engines.core import DecisionPoint, GameInfo, Metric, Params, Policy, ScriptedSource, StreamSource, mix64
from boardlab.engines.learned import checks as learned_checks
from boardlab.engines.record import record_of
from boardlab.engines.seating import seating_of

STREAM = 50_000  # uniforms per scripted game: more than any game draws
PROGRESS = ("mid_score", "lead_changes")  # the optional columns behind drama and lead changes


class CheckError(AssertionError):
    """A game breaks the contract: the message names the game, the check and the problem."""


def _require(ok: bool, game: str, check: str, problem: str) -> None:
    if not ok:
        raise CheckError(f"{game}: {check}: {problem}")


def seats_for(module: Any, policy: str) -> list[str]:
    """Every seat plays ``policy`` (an ``expert...`` at budget 4), at the smallest table of at least 2 if allowed."""
    name = f"{policy}:4" if policy.startswith("expert") else policy
    return [name] * max(module.INFO.min_players, 2 if module.INFO.max_players >= 2 else 1)


def check_contract(module: Any) -> None:
    """``INFO``, ``Params``, ``POLICIES``, ``METRICS`` and ``VARIANTS`` are declared as the contract says."""
    game = getattr(getattr(module, "INFO", None), "id", module.__name__)
    need = lambda ok, problem: _require(ok, game, "contract", problem)  # noqa: E731
    need(isinstance(module.INFO, GameInfo), "INFO is not a GameInfo")
    need(isinstance(module.INFO.chunk_games, int) and 1_000 <= module.INFO.chunk_games <= 50_000, "chunk_games")
    params = module.Params()
    need(dataclasses.is_dataclass(params), "Params is not a dataclass")
    try:
        params.__setattr__(dataclasses.fields(params)[0].name, None)
    except dataclasses.FrozenInstanceError:
        pass
    else:
        need(False, "Params is not frozen")
    need(all(k.doc and k.allowed for k in module.Params.knobs()), "a knob without a docstring or allowed range")
    undeclared = [k.name for k in module.Params.knobs() if not k.source]
    need(not undeclared, f"knobs whose default's source is not declared: {undeclared}")
    policies = module.POLICIES
    need(bool(policies) and all(isinstance(p, Policy) and p.description for p in policies.values()), "POLICIES")
    need(all(name == name.lower() and " " not in name for name in policies), "policy names must be kebab-case")
    need(all(isinstance(m, Metric) for m in module.METRICS.values()), "METRICS")
    for overrides in module.VARIANTS.values():
        params.with_strings(overrides)


def untrained(module: Any, train: bool = False) -> list[str]:
    """``["learned"]`` where the game's learned model is neither shipped nor cached (and ``train`` is off), else ``[]``.

    The checks that play every policy leave such a policy out, saying so, rather than train it unasked (or fail
    under ``BOARDLAB_TRAIN=0``); with ``train`` the model is trained now (:func:`engines.learned.checks.at_hand`).
    """
    if learned_checks.learned_player(module) is None:
        return []
    return [learned_checks.LEARNED] if isinstance(learned_checks.at_hand(module, train), str) else []


def _left_out(names: list[str]) -> str | None:
    return f"{', '.join(names)} left out: no model shipped or cached" if names else None


def check_columns(module: Any, n: int = 16, searched: int = 2, train: bool = False) -> str | None:
    """Every policy's outcome: the standard columns' shapes, dtypes and bounds, and each metric's length.

    ``n`` games a policy; ``searched`` for a policy that searches (it plays in chunks: seconds a game). A learned
    player without a model at hand is left out (:func:`untrained`; the note says so).
    """
    game = module.INFO.id
    missing = untrained(module, train)
    for policy in (p for p in module.POLICIES if p not in missing):
        seats = seats_for(module, policy)
        size = n if module.POLICIES[policy].chunk_games is None else min(n, searched)
        out = module.play(module.Params(), seats, size, np.random.default_rng(0))
        players = len(seats)
        need = lambda ok, problem, p=policy: _require(ok, game, "columns", f"{p}: {problem}")  # noqa: E731
        need(out["score"].shape == (size, players) and out["score"].dtype == np.int32, "score must be (n, P) int32")
        need(out["winner"].shape == (size,) and out["winner"].dtype == np.int8, "winner must be (n,) int8")
        need(out["winners"].shape == (size, players) and out["winners"].dtype == bool, "winners must be (n, P) bool")
        turns = out["turns"]
        need(turns.shape == (size,) and bool(np.all((turns > 0) & (turns <= module.INFO.turn_cap))), "turns cap")
        need(bool(np.all(out["winner"] >= -2) and np.all(out["winner"] < players)), "winner out of range")
        need(bool(np.all(out["winners"][out["winner"] >= 0].sum(axis=1) == 1)), "a sole winner with others")
        progress = [c for c in PROGRESS if c in out]
        need(len(progress) in (0, 2), f"{' and '.join(PROGRESS)} come together (drama needs both), not {progress}")
        if progress:
            need(out["mid_score"].shape == (size, players), "mid_score must be (n, P)")
            need(out["lead_changes"].shape == (size,) and bool(np.all(out["lead_changes"] >= 0)), "lead_changes")
        for column, metric in module.METRICS.items():
            need(len(out[column]) == size, f"metric {column} has another length")
            if metric.kind == "seat":
                need(out[column].shape == (size, players), f"seat metric {column} must be (n, P)")
    return _left_out(missing)


def honest(module: Any) -> list[str]:
    """The policies that neither search nor cheat (their description says so)."""
    return [n for n, p in module.POLICIES.items() if "cheat" not in p.description.lower() and p.chunk_games is None]


def check_batch(
    module: Any,
    seats: list[str] | None = None,
    params: Any = None,
    n: int = 6,
    seed: int = 1,
    length: int = STREAM,
    train: bool = False,
) -> str | None:
    """A batch of ``n`` games equals ``n`` batches of one on the same scripted stream.

    For ``seats`` when given, else for every policy that does not search in every seat (a search seeds itself
    from the game's index in the batch), but a learned player without a model at hand (:func:`untrained`).
    """
    params = module.Params() if params is None else params
    missing = [] if seats else untrained(module, train)
    searchless = [p for p, v in module.POLICIES.items() if v.chunk_games is None and p not in missing]
    for seating in [seats] if seats else [seats_for(module, p) for p in searchless]:
        source = ScriptedSource.from_seed(seed, n, length)
        together = module.play(params, seating, n, source)
        for g in range(n):
            alone = module.play(params, seating, 1, ScriptedSource(source.uniforms[g : g + 1]))
            for column, value in alone.items():
                same = np.array_equal(value[0], together[column][g], equal_nan=True)
                problem = f"{','.join(seating)}: game {g}'s {column} differs when played alone"
                _require(same, module.INFO.id, "batch", problem)
    return _left_out(missing)


def check_seeds(module: Any, n: int = 200) -> None:
    """The same seed plays the same games; another seed other games."""
    seats = seats_for(module, next(iter(module.POLICIES)))
    a, b, c = (module.play(module.Params(), seats, n, np.random.default_rng(s)) for s in (5, 5, 6))
    _require(all(np.array_equal(a[k], b[k], equal_nan=True) for k in a), module.INFO.id, "seeds", "not repeatable")
    _require(not np.array_equal(a["score"], c["score"]), module.INFO.id, "seeds", "another seed, the same games")


def check_reference(
    module: Any,
    params: Any = None,
    seats: list[str] | None = None,
    n: int = 4,
    seed: int = 3,
    length: int = STREAM,
    **options: Any,
) -> None:
    """The reference engine plays ``play``'s games on the same scripted streams (every column it returns).

    ``seats`` default to the record's ``reference_seats``, else its bench's (neither: nothing to check);
    ``options`` to the record's ``reference_options``. Each game's stream holds ``length`` uniforms.
    """
    record = record_of(module)
    seats = list(seats or record.reference_seats or (record.bench.seats if record.bench else ()))
    if not seats:  # no seats declared that the reference engine plays
        return
    reference = importlib.import_module(f"{module.__name__}.reference")
    params = module.Params() if params is None else params
    source = ScriptedSource.from_seed(seed, n, length)
    batched = module.play(params, seats, n, source, **(options or record.reference_options))
    for g in range(n):
        for column, value in reference.play_one(params, seats, source.one_game(g)).items():
            mine, theirs = np.asarray(batched[column][g]), np.asarray(value)
            floats = np.issubdtype(mine.dtype, np.floating) or np.issubdtype(theirs.dtype, np.floating)
            same = (
                np.allclose(mine, theirs, rtol=0, atol=1e-9, equal_nan=True) if floats else np.array_equal(mine, theirs)
            )
            problem = f"{','.join(seats)}: game {g}'s {column} differs from the reference engine's"
            _require(same, module.INFO.id, "reference", problem)


def decision_points(module: Any, policy: str | None = None, n: int = 4, seed: int = 7, per_kind: int = 2) -> list:
    """``(point, proposal)`` of the decisions met in ``n`` games, ``per_kind`` batches of each kind at most.

    Every seat plays ``policy`` (default: the ``ROLLOUT`` of the game's ``decisions`` module) through the game's
    seat adapter, the one every player decides through (:mod:`engines.seating`); a kind is the point's class and
    stage. Copies are kept (``take``), with what the policy chose. A game without a ``decisions`` module gives
    none; points that are not :class:`~engines.core.DecisionPoint` (a seat's own choices) are skipped.
    """
    try:
        seating = seating_of(module)
    except ModuleNotFoundError:
        return []
    names = seats_for(module, policy or seating.ROLLOUT)
    params = module.Params()
    found: dict[tuple[str, Any], list] = {}

    def keep(point: Any, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        chosen = np.asarray(propose())
        kind = found.setdefault((type(point).__name__, getattr(point, "stage", None)), [])
        if isinstance(point, DecisionPoint) and len(kind) < per_kind:
            kind.append((point.take(np.arange(len(games))), chosen.copy()))
        return chosen

    watched: dict[int, object] = {}
    impls = seating.instances(params, names, len(names))
    seats = [watched.setdefault(id(impl), seating.seat(impl, keep, False)) for impl in impls]
    seating.play(params, seats, n, ScriptedSource.from_seed(seed, n, STREAM))
    return [entry for kind in found.values() for entry in kind]


def fingerprint(value: Any, depth: int = 4) -> Any:
    """Every array (and plain value) a point holds, as bytes: equal fingerprints, equal positions."""
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, bool | int | float | str | bytes | np.generic) or value is None:
        return repr(value)
    if depth == 0 or isinstance(value, Params | Policy | type) or callable(value) or hasattr(value, "keys"):
        return type(value).__name__  # knobs and policy registries are frozen or shared, not the position
    if isinstance(value, list | tuple):
        return tuple(fingerprint(v, depth - 1) for v in value)
    names = getattr(value, "__dict__", None) or {k: getattr(value, k) for k in _slots(value) if hasattr(value, k)}
    return tuple((k, fingerprint(v, depth - 1)) for k, v in sorted(names.items()))


def _slots(value: Any) -> list[str]:
    return [name for cls in type(value).__mro__ for name in getattr(cls, "__slots__", ())]


def _streams(point: Any, salt: int) -> StreamSource:
    return StreamSource(mix64(np.asarray(point.key, dtype=np.uint64) ^ np.uint64(salt)))


def _view(point: Any, policies: list[str]) -> tuple:
    """What the deciding seat sees: its legal moves, what each honest policy suggests, its features if any."""
    features = point.features() if hasattr(point, "features") else None
    return fingerprint((point.legal(), [point.suggest(p) for p in policies], features))


def check_decisions(module: Any, train: bool = False) -> str | None:
    """Legal masks, copies, determinisation and playouts of the decision points met in a few games.

    What each honest policy suggests is checked, but a learned player's without a model at hand (:func:`untrained`).
    """
    game, cooperative = module.INFO.id, module.INFO.cooperative
    missing = untrained(module, train)
    policies = [p for p in honest(module) if p not in missing]
    for point, proposal in decision_points(module):
        kind = f"{type(point).__name__} point"
        need = lambda ok, problem, k=kind: _require(ok, game, "decisions", f"{k}: {problem}")  # noqa: E731
        legal = point.legal()
        rows = np.arange(len(legal))
        need(legal.dtype == bool and legal.ndim == 2 and len(point.seat) == len(point.key) == len(legal), "legal()")
        need(bool(legal.any(axis=1).all()), "a row with no legal candidate")
        need(bool(legal[rows, proposal].all()), "the policy's own choice is not legal")
        for policy in policies:
            need(bool(legal[rows, point.suggest(policy)].all()), f"suggest('{policy}') is not legal")
        before, view = fingerprint(point), _view(point, policies)
        copy = point.take(rows)
        copy.determinise(_streams(point, 1))
        need(_view(copy, policies) == view, "determinise changed what the deciding seat sees")
        copy.apply(proposal)
        winners, score = copy.play_out([policies[0]] * point.players, _streams(point, 2))
        need(fingerprint(point) == before, "a copy determinised, applied and played out changed the original")
        need(winners.shape == score.shape == (len(rows), point.players) and winners.dtype == bool, "play_out's shapes")
        need(cooperative or bool(winners.any(axis=1).all()), "a played-out competitive game without a winner")
        twins = point.take(np.repeat(rows[:1], 2))
        twins.apply(np.repeat(proposal[:1], 2))
        again = twins.play_out([policies[0]] * point.players, StreamSource(np.repeat(point.key[:1], 2)))
        need(all(np.array_equal(a[0], a[1]) for a in again), "equal copies on equal streams played different games")
    return _left_out(missing)


def check_features(module: Any, n: int = 4, seed: int = 11, batches: int = 60) -> None:
    """An applied candidate's features equal those of the decision it leads to when no chance comes between.

    ``n`` games with the game's ``ROLLOUT`` in every seat, through its seat adapter, the first ``batches``
    decision batches looked at (features can be costly); a game without a ``decisions`` module, or whose points
    have no ``features``, has nothing checked.
    """
    try:
        seating = seating_of(module)
    except ModuleNotFoundError:
        return
    game = module.INFO.id
    names = seats_for(module, seating.ROLLOUT)
    params = module.Params()
    source = ScriptedSource.from_seed(seed, n, STREAM)
    last: dict[int, tuple[int, int, np.ndarray, str]] = {}  # game -> (cursor, seat, applied features, kind)
    seen = [0]  # decision batches looked at

    def keep(point: Any, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        chosen = np.asarray(propose())
        if not (isinstance(point, DecisionPoint) and hasattr(point, "features")) or seen[0] >= batches:
            return chosen
        seen[0] += 1
        games = np.asarray(games)
        cursor = source.cursor[games].copy()
        kind = type(point).__name__
        follows = [
            r
            for r, g in enumerate(games)
            if g in last and last[int(g)][0] == cursor[r] and last[int(g)][1] != int(point.seat[r])
        ]
        if follows:
            viewers = np.array([last[int(games[r])][1] for r in follows])
            now = point.take(np.array(follows)).features(viewers)
            for i, r in enumerate(follows):
                _, seat, applied, before = last[int(games[r])]
                problem = (
                    f"{before} point: seat {seat}'s features after its applied candidate differ from those of the "
                    f"{kind} point it leads to (no chance in between): {applied.tolist()} against {now[i].tolist()}"
                )
                _require(np.array_equal(applied, now[i]), game, "features", problem)
        after = point.take(np.arange(len(games)))
        after.apply(chosen)
        applied = after.features(point.seat)
        for r, g in enumerate(games):
            last[int(g)] = (int(cursor[r]), int(point.seat[r]), applied[r].copy(), kind)
        return chosen

    watched: dict[int, object] = {}
    impls = seating.instances(params, names, len(names))
    seats = [watched.setdefault(id(impl), seating.seat(impl, keep, False)) for impl in impls]
    seating.play(params, seats, n, source)


def trained(check: Callable[[Any, bool], str | None], name: str) -> Callable[..., str | None]:
    """A check of :mod:`engines.learned.checks` as the checker runs it: its problem a :class:`CheckError`."""

    def run(module: Any, train: bool = False) -> str | None:
        try:
            return check(module, train)
        except learned_checks.Problem as problem:
            raise CheckError(f"{module.INFO.id}: {name}: {problem}") from None

    run.__doc__ = check.__doc__
    return run


check_learned = trained(learned_checks.check_learned, "learned")
check_collapse = trained(learned_checks.check_collapse, "collapse")

CHECKS: dict[str, Callable[..., str | None]] = {
    "contract": check_contract,
    "columns": check_columns,
    "batch": check_batch,
    "seeds": check_seeds,
    "reference": check_reference,
    "decisions": check_decisions,
    "features": check_features,
    "learned": check_learned,
    "collapse": check_collapse,
}
"""Every check, by name, in the order :func:`check_game` runs them."""
#: the checks that play a trained model (``train``: train one if none is at hand; else they leave it out)
TRAINED = ("columns", "batch", "decisions", "learned", "collapse")


def check_game(module: Any, only: tuple[str, ...] = (), train: bool = False) -> dict[str, str]:
    """Run every check (or those named in ``only``) on the game package ``module``; notes by check.

    The learned player's checks play a model at hand (shipped or cached), or, with ``train``, one trained now
    (as ``simulate train`` would, whatever ``BOARDLAB_TRAIN`` says); with none they are skipped, their note
    saying so (``"skipped: no model ..."``).

    Raises:
        CheckError: at the first problem, naming the game, the check and what is wrong.
    """
    notes = {}
    for name, check in CHECKS.items():
        if not only or name in only:
            note = check(module, train=train) if name in TRAINED else check(module)
            if note:
                notes[name] = note
    return notes

"""The contracts every game shares: metadata, parameters, policies, randomness and batch helpers.

A game package exposes ``INFO`` (a :class:`GameInfo`), ``Params`` (a frozen dataclass built on
:class:`Params`), ``POLICIES`` (name -> :class:`Policy`), ``VARIANTS`` (name -> knob overrides),
``METRICS`` (column name -> :class:`Metric`) and ``play``; its ``reference`` module plays one game at a
time in plain Python.

Randomness always comes from an explicit source: a :class:`RandomSource` wrapping a
``numpy.random.Generator`` for real runs, or a :class:`ScriptedSource` of pre-drawn uniforms, one stream per
game, so that the batched engine and the reference engine can be fed exactly the same chance events.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import numbers
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

Outcome = dict[str, np.ndarray]
"""Per-game result columns; the leading axis of every array is the game."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Metadata declared up front by every game."""

    id: str  #: registry id, kebab-case
    name: str  #: display name
    version: int  #: bumped whenever rules or random-number consumption change results
    min_players: int
    max_players: int
    chance: bool  #: whether dice, shuffles or other chance events are involved
    turn_cap: int  #: a game is stopped (and scored as it stands) after this many turns
    score_label: str  #: what a seat's score counts, e.g. "boots"
    #: games per chunk of a run unless told otherwise: enough that numpy's per-call cost is amortised, few
    #: enough that the slowest shipped policy plays a chunk in seconds (chunks are what cores share)
    chunk_games: int
    cooperative: bool = False  #: the table wins or loses together (winner -1 = all win, -2 = all lose)
    #: the outcome's ``turns`` column counts rounds (every seat moves in each), not each seat's turn apart
    turns_are_rounds: bool = False


@dataclass(frozen=True, slots=True)
class Metric:
    """How a game-specific outcome column is summarised and labelled.

    ``kind`` is ``"game"`` for one number per game, ``"seat"`` for one number per seat, and ``"counts"`` for a
    per-game histogram whose columns are summed over games (bin ``i`` labelled ``labels[i]``).
    """

    kind: Literal["game", "seat", "counts"]
    label: str
    labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Policy:
    """A named, vectorised decision rule; ``impl`` is game-specific and decides for a whole batch.

    A policy that takes an argument (``expert:64``) says what it means in ``argument`` and parses it with
    ``parse_arg`` (text or ``None`` for the default -> value, raising ``ValueError``); its ``impl`` is then
    called as ``impl(params, value)``. :func:`resolve_policies` binds the value and names the policy in full.
    """

    name: str
    description: str
    impl: Any
    argument: str = ""  #: what the text after ``name:`` means; empty when the policy takes none
    parse_arg: Any = None  #: ``(text | None) -> value``; ``None`` when the policy takes no argument
    arg: Any = None  #: the bound, parsed argument (set by :func:`resolve_policies`)
    chunk_games: int | None = None  #: a slow policy's cap on the games per chunk (so chunks stay seconds long)
    #: ``(bound policy, "a!b") -> restricted policy`` for ``name!a!b`` (:mod:`engines.restrict`); None: takes none
    restrict: Any = None
    #: ``(policies, "P") -> policy`` for ``exploit@P``, the exploiter of ``P`` (:mod:`engines.learned.exploit`);
    #: set on a game's ``learned`` policy, None elsewhere
    exploit: Any = None


@dataclass(frozen=True, slots=True)
class KnobInfo:
    """One tunable field of a ``Params`` class, as shown by ``simulate list``."""

    name: str
    default: Any
    type: str
    allowed: str
    doc: str
    source: str = ""  #: where the default comes from: "rulebook", "published: WHERE" or "ours: WHY"


KNOB_SOURCES = ("rulebook", "published:", "ours:")


def knob(default: Any, doc: str, allowed: str, source: str = "", added: bool = False) -> Any:
    """Declare a ``Params`` field with its docstring, a human-readable allowed range and its default's source.

    ``source`` says where the default comes from: ``"rulebook"`` (the game's own rules), ``"published: WHERE"``
    (another published source) or ``"ours: WHY"`` (a choice of this project, with the reason). An ``added`` knob
    (one added after keys were in use) is left out of :meth:`Params.as_dict` at its default, so the caches,
    shipped models, saved chunks and golden traces of the settings that existed before keep their keys.
    """
    if source and not source.startswith(KNOB_SOURCES):
        raise ValueError(f"a knob's source starts with one of {KNOB_SOURCES}, not {source!r}")
    return field(default=default, metadata={"doc": doc, "allowed": allowed, "source": source, "added": added})


class Params:
    """Base of every game's frozen parameter dataclass (subclasses are ``@dataclass(frozen=True, slots=True)``)."""

    __slots__ = ()

    @classmethod
    def knobs(cls) -> list[KnobInfo]:
        """Describe every knob: name, default, type, allowed values and docstring."""
        hints = typing.get_type_hints(cls)
        return [
            KnobInfo(
                f.name,
                f.default,
                _type_name(hints[f.name]),
                f.metadata.get("allowed", ""),
                f.metadata.get("doc", ""),
                f.metadata.get("source", ""),
            )
            for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        ]

    def as_dict(self) -> dict[str, Any]:
        """Every knob and its value, JSON-friendly (tuples become lists); an ``added`` knob only off its default."""
        return {
            f.name: _jsonable(getattr(self, f.name))
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
            if not (f.metadata.get("added") and getattr(self, f.name) == f.default)
        }

    def with_strings(self, settings: Mapping[str, str]) -> Params:
        """Return a copy with knobs set from ``name -> text`` pairs, parsing each by the field's type.

        Raises:
            ValueError: for an unknown knob (with a suggestion), text of the wrong type or a value out of range.
        """
        hints = typing.get_type_hints(type(self))
        names = [f.name for f in dataclasses.fields(self)]  # type: ignore[arg-type]
        changes: dict[str, Any] = {}
        for name, text in settings.items():
            key = name.replace("-", "_")
            if key not in names:
                raise ValueError(f"unknown knob '{name}'{did_you_mean(key, names)}")
            changes[key] = parse_value(key, text, hints[key])
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin is tuple:
        return f"tuple[{_type_name(typing.get_args(tp)[0])}, ...]"
    if origin is Literal:
        return "choice"
    return getattr(tp, "__name__", str(tp))


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


def parse_value(name: str, text: str, tp: Any) -> Any:
    """Parse the command-line text of knob ``name`` into its field type ``tp`` (bool, int, float, Literal, tuple)."""
    text = text.strip()
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if text.lower() in ("none", ""):
            return None
        return parse_value(name, text, args[0])
    if origin is tuple:
        inner = typing.get_args(tp)[0]
        inside = text.strip("()[] ")
        parts = [p.strip() for p in inside.replace(";", ",").split(",")] if inside else []
        if "" in parts:
            raise ValueError(f"{name}={text!r} has an empty value; separate the values with single ',' or ';'")
        return tuple(parse_value(name, p, inner) for p in parts)
    if origin is Literal:
        choices = [str(c) for c in typing.get_args(tp)]
        if text not in choices:
            close = difflib.get_close_matches(text, choices, n=1, cutoff=0.5)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ValueError(f"{name}={text!r} is not allowed; choose one of {', '.join(choices)}{hint}")
        return text
    if tp is bool:
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{name}={text!r} is not a boolean; use true or false")
    if tp is int:
        if (value := ascii_whole(text)) is None:
            raise ValueError(f"{name}={text!r} is not a whole number (ASCII digits 0-9)")
        return value
    if tp is float:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{name}={text!r} is not a number") from None
    return text


WHOLE = re.compile(r"[+-]?[0-9]+(_[0-9]+)*")


def ascii_whole(text: str) -> int | None:
    """``text`` as a whole number written in ASCII digits (``16``, ``-3``, ``1_000``), else None.

    Python's ``int`` also reads other scripts' digits (``１６``), which would make one value two names.
    """
    return int(text.strip()) if WHOLE.fullmatch(text.strip()) else None


def check_range(name: str, value: Any, lo: float, hi: float) -> None:
    """Raise ``ValueError`` naming the knob unless ``lo <= value <= hi`` (and ``value`` is a number)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
        raise ValueError(f"{name}={value!r} is out of range; allowed {lo}..{hi}")


def check_choice(name: str, value: Any, choices: Sequence[Any]) -> None:
    """Raise ``ValueError`` naming the knob unless ``value`` is one of ``choices`` (``1`` is not ``True`` here)."""
    if not any(value == c and isinstance(value, bool) == isinstance(c, bool) for c in choices):
        raise ValueError(f"{name}={value!r} is not allowed; choose one of {', '.join(map(str, choices))}")


def did_you_mean(word: str, candidates: Sequence[str]) -> str:
    """Return ``"; did you mean 'x'?"`` for the closest candidate, or a list of the candidates."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.5)
    if close:
        return f"; did you mean '{close[0]}'?"
    return f"; choose one of {', '.join(candidates)}" if candidates else ""


# --- randomness -------------------------------------------------------------------------------------------


class RandomSource:
    """Chance events drawn from a ``numpy.random.Generator`` (real runs)."""

    def __init__(self, rng: np.random.Generator) -> None:
        """Wrap ``rng``; the source owns no other state."""
        self.rng = rng

    @functools.cached_property
    def search_seed(self) -> int:
        """A seed for look-ahead searches during this run, independent of the chance stream.

        It is spawned from the generator's seed sequence (which draws nothing from the stream), so a run whose
        policies never search plays exactly the same games, and a search never sees the game's future dice.
        """
        if self.rng.bit_generator.seed_seq is None:
            return 0
        return int(self.rng.spawn(1)[0].integers(1 << 63))

    def draw(
        self, games: np.ndarray, high: int | np.ndarray, width: int = 1, used: np.ndarray | None = None
    ) -> np.ndarray:
        """Return ``(len(games), width)`` integers uniform in ``[0, high)`` (``high`` per game or shared).

        ``used`` (how many of each row the caller consumes) only matters to scripted sources.
        """
        high_arr = np.asarray(high)
        if high_arr.ndim:
            high_arr = high_arr[:, None]
        return self.rng.integers(0, high_arr, size=(len(games), width), dtype=np.int64)

    def uniform(self, games: np.ndarray, width: int = 1) -> np.ndarray:
        """Return ``(len(games), width)`` floats uniform in ``[0, 1)``."""
        return self.rng.random((len(games), width))


class UniformSource:
    """Chance read from uniforms per row: an integer in ``[0, high)`` is ``floor(u * high)``.

    Subclasses say where a row's uniforms come from (``_take``) and how far a request moves its cursor.
    """

    def _take(self, games: np.ndarray, width: int, used: np.ndarray | None) -> np.ndarray:
        raise NotImplementedError

    def draw(
        self, games: np.ndarray, high: int | np.ndarray, width: int = 1, used: np.ndarray | None = None
    ) -> np.ndarray:
        """Like :meth:`RandomSource.draw`; ``used`` (how many of each row the caller consumes) moves a cursor."""
        high_arr = np.asarray(high)
        if high_arr.ndim:
            high_arr = high_arr[:, None]
        return (self._take(games, width, used) * high_arr).astype(np.int64)

    def uniform(self, games: np.ndarray, width: int = 1) -> np.ndarray:
        """Like :meth:`RandomSource.uniform`, moving each row's cursor by ``width``."""
        return self._take(games, width, None)


class ScriptedSource(UniformSource):
    """Pre-drawn uniforms, one stream per game, consumed with a cursor per game.

    The batched engine asks for rows of values and says how many of each row it used; the reference engine
    reads the same stream one value at a time through :meth:`one_game`. An integer in ``[0, high)`` is
    ``floor(u * high)`` in both, so both engines see identical chance events.
    """

    def __init__(self, uniforms: np.ndarray) -> None:
        """Use ``uniforms`` (shape ``(n_games, length)``, values in ``[0, 1)``) as the streams."""
        self.uniforms = np.asarray(uniforms, dtype=np.float64)
        self.cursor = np.zeros(len(self.uniforms), dtype=np.int64)

    search_seed = 0  #: scripted games search with a fixed seed, so a test controls every random number

    @classmethod
    def from_seed(cls, seed: int, n_games: int, length: int) -> ScriptedSource:
        """Draw ``n_games`` streams of ``length`` uniforms from ``seed``."""
        return cls(np.random.default_rng(seed).random((n_games, length)))

    def _take(self, games: np.ndarray, width: int, used: np.ndarray | None) -> np.ndarray:
        games = np.asarray(games)
        cols = self.cursor[games][:, None] + np.arange(width)
        if cols.size and cols.max() >= self.uniforms.shape[1]:
            raise IndexError("scripted stream exhausted; draw longer streams")
        values = self.uniforms[games[:, None], cols]
        self.cursor[games] += width if used is None else np.asarray(used)
        return values

    def one_game(self, game: int) -> GameStream:
        """Return a reader of game ``game``'s stream for the reference engine."""
        return GameStream(self.uniforms[game])


class GameStream:
    """One game's pre-drawn uniforms, read one value at a time (reference engines)."""

    def __init__(self, uniforms: np.ndarray) -> None:
        """Read ``uniforms`` from the start."""
        self.values = [float(u) for u in uniforms]
        self.position = 0

    def integer(self, high: int) -> int:
        """Next value as an integer in ``[0, high)``."""
        u = self.values[self.position]
        self.position += 1
        return int(u * high)

    def uniform(self) -> float:
        """Next value as a float in ``[0, 1)``."""
        u = self.values[self.position]
        self.position += 1
        return u


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def mix64(x: np.ndarray | int) -> np.ndarray:
    """SplitMix64's finaliser, elementwise over ``uint64``: a fast, well-mixed hash of 64-bit integers."""
    z = np.asarray(x, dtype=np.uint64) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


class StreamSource(UniformSource):
    """Counter-based chance: row ``g``'s ``k``-th uniform is a hash of ``(keys[g], k)``.

    Rows with equal keys see identical chance events however many rows are played together and in whatever
    order, which is what common random numbers need: a search plays every candidate move of a position against
    the same streams. Every request advances a row's counter by its full width, whatever the caller uses (unlike
    :class:`ScriptedSource`), so copies that keep different dice still roll the same faces in every later roll.
    An integer in ``[0, high)`` is ``floor(u * high)``, as in :class:`ScriptedSource`.
    """

    search_seed = 0  #: playouts never search themselves

    def __init__(self, keys: np.ndarray) -> None:
        """One stream per row, named by ``keys`` (``uint64``)."""
        self.keys = np.asarray(keys, dtype=np.uint64)
        self.cursor = np.zeros(len(self.keys), dtype=np.uint64)

    def _take(self, games: np.ndarray, width: int, used: np.ndarray | None) -> np.ndarray:
        games = np.asarray(games)
        counters = self.cursor[games][:, None] + np.arange(width, dtype=np.uint64)
        bits = mix64(self.keys[games][:, None] ^ mix64(counters))
        self.cursor[games] += np.uint64(width)  # whatever is used: copies stay aligned (see the class docstring)
        return (bits >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


Source = RandomSource | ScriptedSource | StreamSource


def as_source(rng: np.random.Generator | Source) -> Source:
    """Accept a generator or an existing source."""
    if isinstance(rng, RandomSource | ScriptedSource | StreamSource):
        return rng
    if isinstance(rng, np.random.Generator):
        return RandomSource(rng)
    raise ValueError(f"rng={rng!r} must be a numpy Generator or a source, not {type(rng).__name__}")


# --- batches ----------------------------------------------------------------------------------------------


def rows_of(keep: np.ndarray | Sequence[int]) -> np.ndarray:
    """Row indices from ``keep``, a boolean mask or indices: what ``take`` wants (a mask would be read as 0s and 1s)."""
    keep = np.asarray(keep)
    return np.flatnonzero(keep) if keep.dtype == bool else keep


def rank_winners(score: np.ndarray, tiebreak: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Winners by highest ``score``, then highest ``tiebreak``; shared wins when still tied.

    Returns ``(winner, winners)``: ``winner`` is the seat (int8) or -1 for a shared win, ``winners`` a
    ``(games, seats)`` bool mask of everyone sharing first place.
    """
    best = score == score.max(axis=1, keepdims=True)
    if tiebreak is not None:
        masked = np.where(best, tiebreak, np.iinfo(np.int64).min)
        best &= masked == masked.max(axis=1, keepdims=True)
    single = best.sum(axis=1) == 1
    winner = np.where(single, best.argmax(axis=1), -1).astype(np.int8)
    return winner, best


EXPLOIT = "exploit"  #: ``exploit@P`` names the exploiter of ``P`` (see :attr:`Policy.exploit`)


def resolve_policies(policies: Mapping[str, Policy], names: Sequence[str]) -> list[Policy]:
    """Look up seat policies by name (``name`` or ``name:argument``, then ``!restriction``s), binding any argument.

    Raises:
        ValueError: for an unknown name (with a suggestion), an argument given to a policy that takes none, or an
            argument its policy rejects; a restriction of a policy that takes none, or one it does not know.
    """
    out = []
    for named in names:
        full, bang, restrictions = named.partition("!")
        if bang:
            (policy,) = resolve_policies(policies, [full])
            if policy.restrict is None:
                raise ValueError(f"policy '{policy.name}' takes no restriction (got '{named}')")
            out.append(policy.restrict(policy, restrictions))
            continue
        head, at, target = full.partition("@")
        if at and head == EXPLOIT:
            learned = policies.get("learned")
            if learned is None or learned.exploit is None:
                raise ValueError(f"policy '{full}' is not offered for this game (it needs its learned player)")
            out.append(learned.exploit(policies, target))
            continue
        name, colon, text = full.partition(":")
        if name not in policies:
            raise ValueError(f"unknown policy '{name}'{did_you_mean(name, list(policies))}")
        policy = policies[name]
        if policy.parse_arg is None:
            if colon:
                raise ValueError(f"policy '{name}' takes no argument (got '{full}')")
            out.append(policy)
            continue
        value = policy.parse_arg(text if colon else None)
        out.append(dataclasses.replace(policy, name=f"{name}:{text}" if colon else name, arg=value))
    return out


@functools.lru_cache(maxsize=64)
def instantiate(policy: Policy, params: Params) -> Any:
    """The policy's implementation for ``params``, built once per process so its caches outlive a batch."""
    if policy.parse_arg is not None:
        return policy.impl(params, policy.arg)
    return policy.impl(params)


def seat_policies_of(info: GameInfo, policies: Mapping[str, Policy], names: Sequence[str], params: Params) -> list[Any]:
    """One implementation per seat, after checking the player count and the names.

    Seats naming the same policy share one instance and its caches.
    """
    check_players(info, len(names))
    return policy_instances(policies, names, params)


def default_chunk(info: GameInfo, policies: Mapping[str, Policy], names: Sequence[str]) -> int:
    """Games per chunk when none is given: the game's own size, capped by any slow seat policy's."""
    caps = [p.chunk_games for p in resolve_policies(policies, names) if p.chunk_games is not None]
    return min([info.chunk_games, *caps])


def unprepared_policy(policies: Mapping[str, Policy]) -> str:
    """A policy with nothing to prepare (no table to build, no model to load or train).

    For zero-game plays that only check a setting's knobs or read its outcome's columns.
    """
    return next(name for name, policy in policies.items() if not hasattr(policy.impl, "prepare"))


def play_by_name(
    play_with: Callable[..., Outcome], info: GameInfo, policies: Mapping[str, Policy]
) -> Callable[..., Outcome]:
    """A game package's ``play(params, seat_policies, n_games, rng, **options)``.

    Seat ``i`` follows the policy named ``seat_policies[i]``, resolved here (so a rules module never imports its
    policy registry) and handed to the rules' ``play_with(params, impls, n_games, rng, **options)``.
    """

    def play(params: Params, seat_policies: Sequence[str], n_games: int, rng: Any, **options: Any) -> Outcome:
        if isinstance(n_games, bool) or not isinstance(n_games, int | np.integer) or n_games < 0:
            raise ValueError(f"n_games={n_games!r} must be a whole number of games, 0 or more")
        if isinstance(seat_policies, str):  # not read letter by letter, one seat a letter
            raise ValueError(f"seat_policies={seat_policies!r} must be a list of policy names, one per seat")
        return play_with(params, seat_policies_of(info, policies, seat_policies, params), n_games, rng, **options)

    play.__doc__ = play_by_name.__doc__
    return play


def policy_instances(policies: Mapping[str, Policy], names: Sequence[str], params: Params) -> list[Any]:
    """One implementation per name, built once per process (see :func:`instantiate`)."""
    return [instantiate(p, params) for p in resolve_policies(policies, names)]


def check_players(info: GameInfo, players: int) -> None:
    """Raise ``ValueError`` unless ``players`` is a whole number within the game's range."""
    if isinstance(players, bool) or not isinstance(players, numbers.Integral):
        raise ValueError(f"players={players!r} must be a whole number, not {type(players).__name__}")
    if not info.min_players <= players <= info.max_players:
        raise ValueError(
            f"players={players} is out of range for {info.id}; allowed {info.min_players}..{info.max_players}"
        )


# --- decision points --------------------------------------------------------------------------------------


@typing.runtime_checkable
class DecisionPoint(typing.Protocol):
    """A batch of positions, one row each, where one seat per row must choose among numbered candidates.

    What every game exposes so that any policy can look ahead (the models: pgx's legal-action mask and pure
    step, OpenSpiel's clone, legal actions and apply). Candidates are numbered ``0..A-1`` in a game-defined
    order; every row has at least one legal candidate. A point never holds randomness: chance after the
    decision comes from the source handed to :meth:`play_out`, so a copy can be played on any stream.
    """

    players: int
    cooperative: bool  #: the table wins or loses together
    seat: np.ndarray  #: ``(B,)`` the seat that decides in each row
    key: np.ndarray  #: ``(B,)`` uint64 naming each decision (run, game, turn, stage): seeds searches reproducibly

    def legal(self) -> np.ndarray:
        """``(B, A)`` mask of the legal candidates."""
        ...

    def suggest(self, policy: str) -> np.ndarray:
        """The candidate the named policy would choose in each row: ``(B,)``."""
        ...

    def take(self, rows: np.ndarray) -> DecisionPoint:
        """An independent copy of the given rows (rows may repeat), for look-ahead."""
        ...

    def determinise(self, source: Source) -> None:
        """Redraw, in place, whatever the deciding seat cannot see, consistently with what it knows.

        Games of perfect information (chance aside) do nothing: their unseen part is future chance, which
        :meth:`play_out` draws from its own source.
        """
        ...

    def apply(self, actions: np.ndarray) -> None:
        """Make each row's decision (``(B,)`` candidate numbers), in place."""
        ...

    def play_out(self, seat_policies: Sequence[str], source: Source) -> tuple[np.ndarray, np.ndarray]:
        """Play every row to the end from here, seat ``i`` following ``seat_policies[i]``.

        Returns ``(winners, score)``: the ``(B, players)`` mask of the seats that won (all of them for a
        cooperative win) and each seat's final score.
        """
        ...

"""Fitting a value model from self-play, game-agnostically: rounds of seeded chunks, then a deterministic fit.

A round plays its games in chunks; chunk ``i`` (numbered across rounds) draws from ``numpy.random.SeedSequence(seed,
spawn_key=(i,))``, so the samples do not depend on how chunks are spread over workers, and they are merged in chunk
order. Round 0 plays the game's baseline policy; every later round plays the learned policy of the model fitted so
far (each round's fit starts from the last one's weights). Each round first fits the returns, then (where the game
offers exact one-turn backups) refits, ``sweeps`` times of ``sweep_epochs`` each, on the backed-up values of the
same positions under the model just fitted (fitted value iteration; a game whose backups are costly spreads them
over the mapper). Expert iteration (Anthony, Tian and Barber 2017) may follow: ``search_rounds`` more rounds whose
games the model plays and whose targets a search gives, valuing the candidates it meets by playouts with the model
(:class:`Searcher`); each refits the model warm on those values. A network may end with ``anneal_epochs`` more
passes over every round's samples (their last targets) at a tenth of the learning rate: the steps of the full rate
leave its values noisy by more than the differences that decide close choices. Targets are one value per position
(the viewer's share) or one per seat (a multi-output fit). The fit is scikit-learn's ``MLPRegressor`` (Adam on
the squared error) with a fixed ``random_state``, or, for the n-tuple family (:mod:`engines.learned.ntuple`, the
game declaring its tuples), ridge regression on the tuples' sparse indicators solved exactly (each fit from
scratch; a round's sweeps share one factorisation of its positions); BLAS is limited to one thread, so the same
settings give the same model bytes on any machine layout.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, fields, is_dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardlab.engines.core import Params
from boardlab.engines.learned import ntuple
from boardlab.engines.learned.model import ValueModel

Model = ValueModel | ntuple.TupleModel  #: a value model of either family (both predict, predict_all, to_bytes)
MLP = "mlp"  #: the family of :class:`engines.learned.model.ValueModel`
#: a round's samples may hold at most this many bytes (ours): the backups and the fit need several times the
#: samples at their peak (2-player Pantolino: 4 to 7 times), so a training stays within a few times this
MAX_ROUND_BYTES = 2 << 30
LEARNING_RATE = 1e-3  #: Adam's step size in a network's fit (ours)
ANNEAL_RATE = LEARNING_RATE / 10  #: the step size of the closing passes (``Settings.anneal_epochs``) (ours)


class Sampler(Protocol):
    """What a game offers training: self-play positions, the win shares that followed, and one-turn backups."""

    def n_features(self, params: Params, players: int) -> int:
        """Features of one position."""
        ...

    def n_outputs(self, players: int) -> int:
        """Values a model predicts per position: 1 (the viewer's share) or one per seat (from the viewer)."""
        ...

    def samples(
        self, params: Params, players: int, model: Model | None, n_games: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, Any]:
        """Play ``n_games`` self-play games (the baseline when ``model`` is None, else the learned policy).

        Returns ``(features, targets, positions)``: one row per decision taken, the position it led to as the
        deciding seat sees it, the eventual shares of the win (``(N,)`` the viewer's, or ``(N, n_outputs)``
        every seat's from the viewer; or a better estimate, such as a search's), and the positions themselves
        in whatever form :meth:`backups` reads.
        """
        ...

    def backups(
        self, params: Params, players: int, model: Model, positions: list[Any], mapper: Mapper
    ) -> np.ndarray | None:
        """Better targets from ``model`` (e.g. one turn's exact expectation) for a round's positions, or ``None``.

        ``positions`` are the round's chunks', in order; the targets are their rows, concatenated. A game whose
        backups are costly runs them as jobs of ``mapper`` (in blocks of rows it chooses), so they share the workers.
        """
        ...


@dataclass(frozen=True)
class Settings:
    """How a model is trained; every field is part of the model's cache key."""

    games: int = 60_000  #: self-play games over all rounds (ours: enough that a 2-player model is stable)
    rounds: int = 3  #: round 0 plays the baseline, later rounds the model so far (ours)
    hidden: tuple[int, ...] = (64,)  #: hidden layer widths (ours)
    epochs: int = 12  #: passes over each round's samples when fitting its returns (ours)
    sweeps: int = 3  #: fits on one-turn backups after each round's fit on returns, where the game has them (ours)
    sweep_epochs: int = 12  #: passes over the samples per fit on backups (warm-started: a few suffice) (ours)
    seed: int = 0
    chunk_games: int = 5_000  #: games per seeded chunk
    family: str = MLP  #: the model family: ``mlp`` or ``ntuple`` (the game declares the tuples) (ours)
    ridge: float = 1.0  #: the n-tuple fit's L2 penalty on the weights (ours)
    search_rounds: int = 0  #: expert-iteration rounds after the self-play rounds (a :class:`Searcher`'s) (ours)
    search_games: int = 10_000  #: games per expert-iteration round (ours)
    search_playouts: int = 16  #: playouts per candidate in an expert-iteration round's search (ours)
    #: a game's exact teacher whose values are the targets (its sampler's, e.g. Pantolino's ``best-reply``); empty:
    #: self-play's returns and backups
    teacher: str = ""
    #: a network's closing passes over all rounds' samples at :data:`ANNEAL_RATE` (ours; 0: none)
    anneal_epochs: int = 0

    def as_key(self) -> dict[str, Any]:
        """JSON-friendly fields; keys leave out what is unused (so they are those from before such fields existed).

        An MLP's omit the n-tuple fields; a model without expert-iteration rounds omits their fields, one without a
        teacher the teacher, one without closing passes ``anneal_epochs``.
        """
        key = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}
        if self.family == MLP:
            del key["family"], key["ridge"]
        if not self.search_rounds:
            del key["search_rounds"], key["search_games"], key["search_playouts"]
        if not self.teacher:
            del key["teacher"]
        if not self.anneal_epochs:
            del key["anneal_epochs"]
        return key


@runtime_checkable
class Searcher(Protocol):
    """A sampler that also offers expert iteration's samples (:class:`engines.learned.searchplay.SearchPlay`)."""

    def search_samples(
        self, params: Params, players: int, model: Model, n_games: int, rng: np.random.Generator, playouts: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Play ``n_games`` with ``model``; positions met and their values by a search playing out with ``model``."""
        ...


Mapper = Callable[[Callable[..., Any], Sequence[tuple]], Iterable[Any]]
"""Runs ``function(*args)`` for each args tuple and yields the results in order (serial, joblib, ...)."""
Progress = Callable[[int, int], None]  # (games done, games in all)
RoundHook = Callable[[int, Any], None]  # (round number, the model fitted in it): what each round bought


def serial(function: Callable[..., Any], jobs: Sequence[tuple]) -> Iterable[Any]:
    """The in-process mapper."""
    return (function(*args) for args in jobs)


def play_chunk(
    sampler: Sampler, params: Params, players: int, model: Model | None, n_games: int, seed: int, index: int
) -> tuple[np.ndarray, np.ndarray, Any]:
    """One chunk's samples, from ``SeedSequence(seed, spawn_key=(index,))``."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))
    return sampler.samples(params, players, model, n_games, rng)


def search_chunk(
    sampler: Searcher, params: Params, players: int, model: Model, n_games: int, seed: int, index: int, playouts: int
) -> tuple[np.ndarray, np.ndarray]:
    """One expert-iteration chunk's samples, from ``SeedSequence(seed, spawn_key=(index,))``."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))
    return sampler.search_samples(params, players, model, n_games, rng, playouts)


def chunk_sizes(games: int, chunk: int) -> list[int]:
    """Split ``games`` into chunks of ``chunk`` (the last one smaller)."""
    return [min(chunk, games - lo) for lo in range(0, games, chunk)]


def train(
    sampler: Sampler,
    params: Params,
    players: int,
    settings: Settings,
    mapper: Mapper = serial,
    progress: Progress | None = None,
    tuples: ntuple.Spec | None = None,
    each_round: RoundHook | None = None,
) -> Model:
    """Fit a value model for ``params`` and ``players`` by ``settings.rounds`` rounds of self-play.

    Then ``settings.search_rounds`` rounds of expert iteration: games played by the model so far, the positions
    they meet valued by a search that plays out with that model, and the model refitted on those values (warm for
    the network; the n-tuple family's fit is from scratch, so only the round's search samples shape it). Then, for
    a network with ``settings.anneal_epochs``, its closing passes over every round's samples at
    :data:`ANNEAL_RATE`. The n-tuple family needs the game's ``tuples``; ``each_round`` sees each round's model
    (the closing passes' as one more round).

    Raises:
        ValueError: for an unknown family, the n-tuple family without tuples, or search rounds for a sampler
            that offers none.
    """
    fitter = fitter_for(settings, tuples)
    if settings.search_rounds and not isinstance(sampler, Searcher):
        raise ValueError("search_rounds needs a game whose self-play offers search samples")
    per_round = chunk_sizes(settings.games, -(-settings.games // settings.rounds))
    total = settings.games + settings.search_rounds * settings.search_games
    model, index, done = None, 0, 0
    kept: list[tuple[np.ndarray, np.ndarray]] = []  # every round's samples, for the closing passes

    def gathered(function: Callable[..., Any], jobs: list[tuple], sizes: list[int]) -> list[Any]:
        nonlocal done
        parts, held, played, positions = [], 0, 0, 0
        for part, n in zip(mapper(function, jobs), sizes, strict=True):
            parts.append(part)
            held, played, positions = held + held_bytes(part), played + n, positions + len(part[0])
            check_round_bytes(held, played, sum(sizes), positions)
            done += n
            if progress is not None:
                progress(done, total)
        return parts

    for number, games in enumerate(per_round):
        sizes = chunk_sizes(games, settings.chunk_games)
        jobs = [(sampler, params, players, model, n, settings.seed, index + i) for i, n in enumerate(sizes)]
        index += len(sizes)
        parts = gathered(play_chunk, jobs, sizes)
        features = np.concatenate([p[0] for p in parts])
        targets = np.concatenate([p[1] for p in parts])
        positions = [p[2] for p in parts]
        model = fitter(features, targets, settings.epochs)
        for _ in range(settings.sweeps):
            backed = sampler.backups(params, players, model, positions, mapper)
            if backed is None:
                break
            model, targets = fitter(features, backed, settings.sweep_epochs), backed
        if settings.anneal_epochs:
            kept.append((features, targets))
        if each_round is not None:
            each_round(number, model)
    for number in range(len(per_round), len(per_round) + settings.search_rounds):
        sizes = chunk_sizes(settings.search_games, settings.chunk_games)
        jobs = [
            (sampler, params, players, model, n, settings.seed, index + i, settings.search_playouts)
            for i, n in enumerate(sizes)
        ]
        index += len(sizes)
        parts = gathered(search_chunk, jobs, sizes)
        features, targets = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        model = fitter(features, targets, settings.epochs)
        if settings.anneal_epochs:
            kept.append((features, targets))
        if each_round is not None:
            each_round(number, model)
    if settings.anneal_epochs:
        features, targets = (np.concatenate(part) for part in zip(*kept, strict=True))
        kept.clear()  # only the merged copy is fitted: the rounds' own arrays, and the last round's chunks, go
        parts.clear()
        model = fitter(features, targets, settings.anneal_epochs, ANNEAL_RATE)
        if each_round is not None:
            each_round(len(per_round) + settings.search_rounds, model)
    return model


def held_bytes(part: Any) -> int:
    """Bytes of the numpy arrays ``part`` holds, in tuples, lists and dataclass fields (a chunk's samples).

    An array met twice (a game's features are both the samples' and its positions'), or a view of another, counts
    once: the bytes are those of the distinct buffers.
    """
    buffers: dict[int, int] = {}
    for array in _arrays(part):
        while isinstance(array.base, np.ndarray):
            array = array.base
        buffers[id(array)] = array.nbytes
    return sum(buffers.values())


def _arrays(part: Any) -> Iterator[np.ndarray]:
    """Every numpy array in ``part``, depth first (an array met twice is yielded twice)."""
    if isinstance(part, np.ndarray):
        yield part
    elif isinstance(part, tuple | list):
        for item in part:
            yield from _arrays(item)
    elif is_dataclass(part) and not isinstance(part, type):
        for field in fields(part):
            yield from _arrays(getattr(part, field.name))


def check_round_bytes(held: int, played: int, games: int, positions: int) -> None:
    """Refuse a round whose samples would pass :data:`MAX_ROUND_BYTES`, projected from its first ``played`` games.

    Checked as each chunk arrives, so a setting whose games run long (or a model that drags them out) stops in one
    line before the round's samples are merged, backed up and fitted, not when the machine runs out of memory.
    """
    projected = held * games // played
    if projected > MAX_ROUND_BYTES:
        raise ValueError(
            f"a training round would hold about {projected / 2**30:.1f} GiB of samples ({positions:,} positions in "
            f"its first {played:,} of {games:,} games; at most {MAX_ROUND_BYTES / 2**30:g} GiB, ours): train on fewer "
            "games (simulate train --games)"
        )


Fitter = Callable[..., Model]
"""``(features, targets, epochs[, rate]) -> model``: a family's fit; ``rate`` is a network's step size."""


def fitter_for(settings: Settings, tuples: ntuple.Spec | None) -> Fitter:
    """The family's :data:`Fitter` (a network's warm-started across calls).

    Raises:
        ValueError: for an unknown family, or the n-tuple family without tuples or with closing passes.
    """
    if settings.family == ntuple.FAMILY:
        if tuples is None:
            raise ValueError("the n-tuple family needs the game's tuples")
        if settings.anneal_epochs:
            raise ValueError("anneal_epochs needs the network family: the n-tuple fit is exact, with no step size")
        spec, problem = tuples, []

        def fit_tuples(features: np.ndarray, targets: np.ndarray, _: int) -> ntuple.TupleModel:
            if not problem or problem[0].features is not features:  # a round's sweeps refit the same positions
                problem[:] = [ntuple.LeastSquares(spec, features, settings.ridge)]
            return problem[0].fit(targets)

        return fit_tuples
    if settings.family != MLP:
        raise ValueError(f"family={settings.family!r} is not allowed; give {MLP} or {ntuple.FAMILY}")
    from sklearn.neural_network import MLPRegressor

    net = MLPRegressor(
        hidden_layer_sizes=settings.hidden,
        max_iter=settings.epochs,
        batch_size=512,
        learning_rate_init=LEARNING_RATE,
        random_state=settings.seed,
        warm_start=True,
        shuffle=True,
        tol=0.0,
        n_iter_no_change=settings.epochs + 1,
    )
    return lambda features, targets, epochs, rate=LEARNING_RATE: fit(net, features, targets, epochs, rate)


def fit(net: Any, features: np.ndarray, targets: np.ndarray, epochs: int, rate: float = LEARNING_RATE) -> ValueModel:
    """Go on fitting ``net`` (warm start) on these samples for ``epochs`` passes of step size ``rate``, one thread.

    Adam starts afresh each call; BLAS runs on one thread.
    """
    from threadpoolctl import threadpool_limits

    net.set_params(max_iter=epochs, n_iter_no_change=epochs + 1, learning_rate_init=rate)
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter reached is the plan, not a problem
        net.fit(features, targets)
    return ValueModel(
        tuple(w.astype(np.float32) for w in net.coefs_), tuple(b.astype(np.float32) for b in net.intercepts_)
    )

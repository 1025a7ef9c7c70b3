"""A digest of the code behind a seat's policy, so that a chunk played by other code is never taken for this one.

A policy's code is every module its implementation reaches: the modules defining the classes and functions in
its ``impl`` (through ``functools.partial`` arguments, bound arguments and nested policies, such as the expert's
rollout registry), then, module by module, the classes, functions and modules each one names at its top level,
within the game's own top-level package and :mod:`engines` (never the standard library or third-party
packages). The digest covers those modules' names and source text only: no paths, no object ids, no import
order, so every process, ``--jobs``, Dask worker and machine with the same code computes the same digest.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import sys
from collections.abc import Iterator, Mapping
from dataclasses import fields, is_dataclass
from types import FunctionType, MethodType, ModuleType
from typing import Any

OURS = "boardlab.engines"
"""The shared package whose modules count as policy code beside the game's own package."""


def _top(name: str) -> str:
    """The top-level package of module ``name`` (boardlab's layers count as their own: ``boardlab.engines``)."""
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] == "boardlab" else parts[0]


def _objects(value: Any, seen: set[int]) -> Iterator[Any]:
    """Classes and functions reachable from a policy's ``impl`` or bound argument."""
    if id(value) in seen or value is None or isinstance(value, str | bytes | int | float | bool):
        return
    seen.add(id(value))
    if isinstance(value, functools.partial):
        yield from _objects(value.func, seen)
        for item in (*value.args, *value.keywords.values()):
            yield from _objects(item, seen)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _objects(item, seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _objects(item, seen)
    elif isinstance(value, MethodType):
        yield value.__func__
    elif isinstance(value, type | FunctionType):
        yield value
    elif is_dataclass(value):  # a policy, a bound argument (a rollout, a restriction): its type and its fields
        yield type(value)
        for f in fields(value):
            yield from _objects(getattr(value, f.name), seen)
    elif callable(value):
        yield type(value)


def _modules_of(obj: Any) -> list[str]:
    """The modules defining ``obj`` (a class: with its bases)."""
    owners = obj.__mro__ if isinstance(obj, type) else (obj,)
    return [m for m in (getattr(o, "__module__", None) for o in owners) if isinstance(m, str)]


@functools.cache
def module_closure(name: str) -> frozenset[str]:
    """``name`` and every module of its own package or :mod:`engines` that it names at top level, transitively."""
    tops = {OURS, _top(name)}
    found: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in found or _top(current) not in tops or current not in sys.modules:
            continue
        found.add(current)
        module = sys.modules[current]
        package = current if hasattr(module, "__path__") else None
        for value in list(vars(module).values()):
            if isinstance(value, ModuleType):
                # a package's submodules appear as attributes once anything imports them: not its own reference
                if package is None or not value.__name__.startswith(package + "."):
                    todo.append(value.__name__)
            elif isinstance(value, type | FunctionType):
                todo += _modules_of(value)
    return frozenset(found)


@functools.cache
def module_digest(name: str) -> str:
    """SHA-256 of module ``name``'s source text (empty when its loader gives none)."""
    spec = importlib.util.find_spec(name)
    loader = spec.loader if spec is not None else None
    source = loader.get_source(name) if loader is not None and hasattr(loader, "get_source") else None
    return hashlib.sha256((source or "").encode()).hexdigest()


def policy_code(policy: Any, game_package: str) -> str:
    """A short digest of the code ``policy`` (a :class:`engines.core.Policy`) plays with, in ``game_package``."""
    tops = {OURS, _top(game_package)}
    roots = {m for obj in _objects(policy, set()) for m in _modules_of(obj) if _top(m) in tops}
    modules = sorted(set().union(*(module_closure(m) for m in roots)) if roots else set())
    text = "\n".join(f"{m} {module_digest(m)}" for m in modules)
    return hashlib.sha256(text.encode()).hexdigest()[:16]

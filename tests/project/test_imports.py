"""The import graph: no cycle anywhere, counting imports inside functions, and the layers' one-way rule."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engines", "experiments", "analysis")


def module_names() -> dict[str, Path]:
    """Every module of the project's packages: dotted name -> file."""
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(("boardlab", *(parts[:-1] if parts[-1] == "__init__" else parts)))] = path
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports, at the top or anywhere else (functions, ``try``, ``if``).

    ``from a.b import c`` imports module ``a.b.c`` when there is one, else (a name defined in) ``a.b``; the
    parent packages Python loads on the way are not counted, as no import statement names them.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}".rstrip(".")
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {m for m in found if m in modules and m != name}


def graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports."""
    modules = module_names()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_finder_sees_a_cycle_through_an_import_inside_a_function() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_imports_inside_functions_are_counted(tmp_path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from boardlab.engines import core\n    import boardlab.analysis.stats\n")
    modules = {"x.m": source, "boardlab.engines.core": source, "boardlab.analysis.stats": source}
    assert imports_of("x.m", source, modules) == {"boardlab.engines.core", "boardlab.analysis.stats"}


def test_no_module_of_the_project_imports_itself_back() -> None:
    assert cycles(graph()) == []


@pytest.mark.parametrize(
    ("layer", "forbidden"), [("engines", ("experiments", "analysis")), ("analysis", ("experiments",))]
)
def test_the_layers_import_one_way(layer: str, forbidden: tuple[str, ...]) -> None:
    wrong = {
        (name, other)
        for name, imported in graph().items()
        if name.split(".")[1] == layer
        for other in imported
        if other.split(".")[1] in forbidden
    }
    assert wrong == set()

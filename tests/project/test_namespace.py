"""One import name: boardlab. Its three layers live in the top-level folders but install only under ``boardlab``."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("engines", "experiments", "analysis")


def test_every_package_folder_is_installed_under_boardlab() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {
        "boardlab." + ".".join(init.parent.relative_to(ROOT).parts)
        for layer in LAYERS
        for init in (ROOT / layer).rglob("__init__.py")
    }
    assert folders | {"boardlab"} == listed


def test_no_file_imports_a_layer_by_its_bare_name() -> None:
    bare = []
    for path in ROOT.rglob("*.py"):
        if any(part.startswith(".") or part in {"build", "runs"} for part in path.relative_to(ROOT).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            bare += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in LAYERS]
    assert bare == []


def test_a_users_own_analysis_module_shadows_nothing(tmp_path: Path) -> None:
    for layer in LAYERS:
        (tmp_path / f"{layer}.py").write_text("raise RuntimeError('the user module was imported')\n")
    program = (
        "from boardlab.experiments.run import RunSpec, local_runner\n"
        "result = local_runner().play([RunSpec('pantolino', ('turn-optimal', 'random'), 200, seed=1)])[0]\n"
        "print(len(result.seat_table()))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "2"

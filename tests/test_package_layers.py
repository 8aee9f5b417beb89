"""The import rules between the packages, read from the source with `ast` (nothing is run).

The runtime (`rules`, `vision`, `rounds`, `server`, `tournament`, `dominocam`) never imports
what makes data or measures (`dominosynth`, `dominotrain`, `measure`), so a wheel installed
without the extras runs; the studies (`studies`, not installed) sit on top and nothing
imports them. The allowed imports form no cycle between packages, and no package's modules
import each other in a circle. Every import counts, also one inside a function.
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES: dict[str, Path] = {
    "rules": REPO / "rules",
    "vision": REPO / "vision",
    "rounds": REPO / "rounds",
    "server": REPO / "server",
    "tournament": REPO / "tournament",
    "dominocam": REPO / "dominocam",
    "dominosynth": REPO / "datasets" / "dominosynth",
    "measure": REPO / "measure",
    "dominotrain": REPO / "models" / "dominotrain",
    "studies": REPO / "studies",
}
# Modules of `dominocam` that import no other first-party package but `rules`, shared by
# every layer: the error type and the command-line arguments.
SHARED = {"dominocam.errors", "dominocam.arguments"}
# Which first-party packages each package may import (besides itself and SHARED).
ALLOWED: dict[str, set[str]] = {
    "rules": set(),
    "vision": {"rules"},
    # The round's lifecycle, one implementation over a storage interface (no database).
    "rounds": {"rules", "vision"},
    "server": {"rules", "vision", "rounds", "dominocam"},
    # Tournament mode reuses the dashboard's web pieces; its `feed` renders synthetic frames.
    "tournament": {"rules", "vision", "rounds", "server", "dominocam", "dominosynth"},
    "dominocam": {"rules", "vision"},
    "dominosynth": {"rules", "vision"},
    "measure": {"rules", "vision", "dominosynth"},
    "dominotrain": {"rules", "vision", "dominosynth", "measure"},
    "studies": {"rules", "vision", "dominosynth", "measure"},
}
# Third-party modules a package must never import: the training stack everywhere but
# dominotrain, the web stack outside server, and YAML (the synth and train extras' only)
# in the runtime.
TRAINING = {"torch", "torchvision", "ultralytics", "onnxslim"}
FORBIDDEN: dict[str, set[str]] = {
    "rules": TRAINING | {"flask", "yaml", "numpy", "cv2", "onnxruntime", "matplotlib"},
    "vision": TRAINING | {"flask", "yaml", "matplotlib"},
    "rounds": TRAINING
    | {"flask", "yaml", "matplotlib", "cv2", "onnxruntime", "sqlite3", "psycopg", "redis"},
    "server": TRAINING | {"yaml", "matplotlib", "psycopg", "redis", "celery"},
    "tournament": TRAINING | {"matplotlib"},
    "dominocam": TRAINING | {"flask", "yaml", "matplotlib"},
    "dominosynth": TRAINING | {"flask", "matplotlib"},
    "measure": TRAINING | {"flask", "yaml"},
    "dominotrain": {"flask"},
    "studies": TRAINING | {"flask"},
}


def imports(folder: Path) -> Iterator[tuple[str, str]]:
    """(file, imported module) for every absolute import in the package at `folder`."""
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                yield str(path.relative_to(folder.parent)), name


def test_every_package_is_checked() -> None:
    assert set(ALLOWED) == set(FORBIDDEN) == set(PACKAGES)
    for folder in PACKAGES.values():
        assert (folder / "__init__.py").is_file(), folder
    # Every top-level folder holding Python code is one of them, or not a package.
    not_packages = {"tests", "benchmarks", "scripts", "examples", "docs", "datasets", "models"}
    for folder in sorted(REPO.iterdir()):
        if folder.is_dir() and folder.name not in not_packages and any(folder.glob("*.py")):
            assert folder in PACKAGES.values(), folder


def test_the_layers_form_no_cycle() -> None:
    """What each package may import is a one-way graph: no two packages import each other,
    directly or round about (`server` once imported `tournament.cli` for `serve
    --tournament`, which `tournament.cli` now adds to the command itself)."""
    try:
        list(graphlib.TopologicalSorter(ALLOWED).static_order())
    except graphlib.CycleError as error:
        pytest.fail(f"layer cycle: {' -> '.join(error.args[1])}")


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_a_package_imports_only_the_layers_below_it(package: str) -> None:
    wrong = [
        f"{where}: {name}"
        for where, name in imports(PACKAGES[package])
        if (top := name.split(".")[0]) in PACKAGES
        and top != package
        and top not in ALLOWED[package]
        and name not in SHARED
    ]
    assert wrong == []


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_a_package_imports_no_library_it_must_not_need(package: str) -> None:
    wrong = [
        f"{where}: {name}"
        for where, name in imports(PACKAGES[package])
        if name.split(".")[0] in FORBIDDEN[package]
    ]
    assert wrong == []


# Packages whose modules import each other in a circle, until that is undone: `server`'s
# modules import names from `server/__init__.py`, which imports them (issue 35).
MODULE_CYCLES_LEFT = {"server"}


def module_graph(package: str) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports (`from pkg import mod` counts as
    importing `pkg.mod` when that is a module)."""
    folder = PACKAGES[package]
    files = {}
    for path in sorted(folder.rglob("*.py")):
        parts = [package, *path.relative_to(folder).with_suffix("").parts]
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        graph[module] = {name for name in names if name in files and name != module}
    return graph


@pytest.mark.parametrize("package", sorted(set(PACKAGES) - MODULE_CYCLES_LEFT))
def test_the_modules_of_a_package_import_each_other_one_way(package: str) -> None:
    """No circle of imports inside a package (`measure.calibrate` and `measure.evaluate`
    once imported each other)."""
    graph = module_graph(package)
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        pytest.fail(f"import cycle: {' -> '.join(error.args[1])}")


def test_nothing_imports_the_studies() -> None:
    """The studies are not installed (pyproject.toml lists no `studies`): a package that
    imported one would break in the wheel."""
    assert [package for package, allowed in ALLOWED.items() if "studies" in allowed] == []


def test_the_shared_modules_import_only_rules() -> None:
    for module in SHARED:
        path = REPO / (module.replace(".", "/") + ".py")
        tree = ast.parse(path.read_text())
        found = {
            node.module.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        } | {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        assert found & set(PACKAGES) <= {"rules", "dominocam"}, module


def test_an_import_inside_a_function_is_found(tmp_path: Path) -> None:
    """What the rules read: a `vision` module importing dominosynth lazily is seen."""
    fake = tmp_path / "vision"
    fake.mkdir()
    (fake / "__init__.py").write_text("import numpy as np\n")
    (fake / "bad.py").write_text("def f():\n    from dominosynth.generate import Job\n")
    assert sorted(imports(fake)) == [
        ("vision/__init__.py", "numpy"),
        ("vision/bad.py", "dominosynth.generate"),
    ]
    assert "dominosynth" not in ALLOWED["vision"]

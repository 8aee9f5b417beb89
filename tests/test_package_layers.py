"""The import rules between the packages, read from the source with `ast` (nothing is run).

The house has a ground floor and a top floor, both in `dominocam`. The ground is every
module of `dominocam` but the console script (`errors`, `i18n`, `arguments`): it imports no
other first-party package, and every package may import it. The top is the console script
(`dominocam.cli`, `dominocam.__main__`): it may import every package (each layer's `cli`
module, named in `COMMAND_MODULES`), and nothing imports it. Between them, the layers.

The runtime (`rules`, `vision`, `rounds`, `server`, `tournament`, `dominocam`) never imports
what makes data or measures (`dominosynth`, `dominotrain`, `measure`), so a wheel installed
without the extras runs; the studies (`studies`, not installed) sit on top and nothing
imports them. The allowed imports form no cycle between packages, and no package's modules
import each other in a circle. Every import counts, also one inside a function.

The rooms between the floors are installed as `dominocam.rules`, `dominocam.vision`, ...
(their folders at the top level; pyproject.toml maps them): here each is named by its
folder, `dominocam.rules.hold` read as `rules.hold`, and no code imports a bare `rules`.
"""

from __future__ import annotations

import ast
import graphlib
import re
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
# The ground floor is the package `dominocam` but these modules, the top floor: the console
# script, which adds every layer's subcommands.
GROUND = "dominocam"
TOP = {"dominocam.cli", "dominocam.__main__"}
# Which first-party packages each package may import (besides itself and the ground). The
# key `dominocam` is the ground, which imports no other first-party package.
ALLOWED: dict[str, set[str]] = {
    "rules": set(),
    "vision": {"rules"},
    # The round: its lifecycle over a storage interface (no database), Scenes to game
    # state, and `dominocam round`.
    "rounds": {"rules", "vision"},
    "server": {"rules", "vision", "rounds"},
    # Tournament mode reuses the dashboard's web pieces; its `feed` renders synthetic frames.
    "tournament": {"rules", "vision", "rounds", "server", "dominosynth"},
    "dominocam": set(),
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


# The packages installed under `dominocam.` from a top-level folder of the same name.
ROOMS = ("rules", "vision", "rounds", "server", "measure", "tournament")


def room_name(name: str) -> str:
    """An imported name as this test names it: `dominocam.rules.hold` -> `rules.hold`;
    `dominocam.i18n` and every other name unchanged."""
    head, _, rest = name.partition(".")
    if head == GROUND and rest.split(".")[0] in ROOMS:
        return rest
    return name


def module_of(file: str) -> str:
    """`dominocam/cli.py` -> `dominocam.cli`; `rules/__init__.py` -> `rules`."""
    parts = file.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(path: Path) -> Iterator[str]:
    """The module of every absolute import in the file at `path`, as written."""
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def imports(folder: Path) -> Iterator[tuple[str, str]]:
    """(file, imported module) for every absolute import in the package at `folder`."""
    for path in sorted(folder.rglob("*.py")):
        for name in imported_names(path):
            yield str(path.relative_to(folder.parent)), room_name(name)


def test_every_package_is_checked() -> None:
    assert set(ALLOWED) == set(FORBIDDEN) == set(PACKAGES)
    for folder in PACKAGES.values():
        assert (folder / "__init__.py").is_file(), folder
    # Every top-level folder holding Python code is one of them, or not a package.
    not_packages = {"tests", "benchmarks", "scripts", "examples", "docs", "datasets", "models"}
    for folder in sorted(REPO.iterdir()):
        if folder.is_dir() and folder.name not in not_packages and any(folder.glob("*.py")):
            assert folder in PACKAGES.values(), folder


def floors() -> dict[str, set[str]]:
    """The whole house as a graph: ALLOWED, with every layer standing on the ground and the
    top (`dominocam.cli`) standing on every package but the studies."""
    graph = {
        package: allowed | ({GROUND} if package != GROUND else set())
        for package, allowed in ALLOWED.items()
    }
    graph["top"] = set(PACKAGES) - {"studies"}
    return graph


def test_the_layers_form_no_cycle() -> None:
    """What each package may import is a one-way graph: no two packages import each other,
    directly or round about (`server` once imported `dominocam.tournament.cli` for `serve
    --tournament`, which `dominocam.tournament.cli` now adds to the command itself)."""
    try:
        list(graphlib.TopologicalSorter(floors()).static_order())
    except graphlib.CycleError as error:
        pytest.fail(f"layer cycle: {' -> '.join(error.args[1])}")


def test_a_cycle_through_the_ground_is_found() -> None:
    """The cycle check sees the ground: a ground that imported a layer would stand on it."""
    graph = floors()
    graph[GROUND] = {"rules"}
    with pytest.raises(graphlib.CycleError):
        list(graphlib.TopologicalSorter(graph).static_order())


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_a_package_imports_only_the_layers_below_it(package: str) -> None:
    """Each module imports its own package, the ground and the layers ALLOWED; the top
    (`dominocam.cli`, `__main__`) imports any package but the studies."""
    wrong = [
        f"{where}: {name}"
        for where, name in imports(PACKAGES[package])
        if (top := name.split(".")[0]) in PACKAGES
        and top != package
        and top != GROUND
        and top not in (floors()["top"] if module_of(where) in TOP else ALLOWED[package])
    ]
    assert wrong == []


def test_the_ground_imports_no_other_package() -> None:
    """`dominocam.errors`, `dominocam.i18n`, `dominocam.arguments`: only the standard library
    and each other (what the rules know, such as the tile sets, a caller passes in)."""
    ground = list(imports(PACKAGES[GROUND]))
    assert {module_of(where) for where, _name in ground} >= {
        "dominocam.errors",
        "dominocam.i18n",
        "dominocam.arguments",
    }
    wrong = [
        f"{where}: {name}"
        for where, name in ground
        if module_of(where) not in TOP
        and (name.split(".")[0] in set(PACKAGES) - {GROUND} or name in TOP)
    ]
    assert wrong == []


def test_nothing_imports_the_top() -> None:
    """The console script is above every package: no module but the top imports it
    (`python -m server.cli` once did; `python -m dominocam serve` is that command)."""
    wrong = []
    for folder in PACKAGES.values():
        for path in sorted(folder.rglob("*.py")):
            where = str(path.relative_to(folder.parent))
            if module_of(where) in TOP:
                continue
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if isinstance(node, ast.Import):
                    names = {alias.name for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
                else:
                    continue
                wrong += [f"{where}: {name}" for name in sorted(names & TOP)]
    assert wrong == []


def command_modules() -> tuple[str, ...]:
    """`dominocam.cli.COMMAND_MODULES`, read from the source."""
    for node in ast.parse((PACKAGES[GROUND] / "cli.py").read_text()).body:
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == "COMMAND_MODULES"
            and node.value is not None
        ):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("dominocam/cli.py defines no COMMAND_MODULES")


def test_every_command_module_exists_and_registers() -> None:
    """Each entry of COMMAND_MODULES names a module of a package (not of the studies) that
    defines `register(subparsers)` at its top level."""
    modules = command_modules()
    assert "dominocam.rounds.cli" in modules and len(set(modules)) == len(modules)
    for module in modules:
        package, *rest = room_name(module).split(".")
        assert package in floors()["top"], module
        path = PACKAGES[package].joinpath(*rest).with_suffix(".py")
        assert path.is_file(), module
        tree = ast.parse(path.read_text())
        assert "register" in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}, module


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_a_package_imports_no_library_it_must_not_need(package: str) -> None:
    wrong = [
        f"{where}: {name}"
        for where, name in imports(PACKAGES[package])
        if name.split(".")[0] in FORBIDDEN[package]
    ]
    assert wrong == []


def module_graph(package: str, folder: Path | None = None) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports. `from pkg import mod` imports
    `pkg.mod` when that is a module, and `pkg` (its `__init__`) only for a name defined
    there: loading `pkg.mod` runs `pkg/__init__.py` whichever way it is written, so that is
    no edge of its own."""
    folder = PACKAGES[package] if folder is None else folder
    files = {}
    for path in sorted(folder.rglob("*.py")):
        parts = [package, *path.relative_to(folder).with_suffix("").parts]
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names |= {room_name(alias.name) for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported = room_name(node.module)
                wanted = {f"{imported}.{a.name}" for a in node.names}
                names |= wanted if wanted <= set(files) else wanted | {imported}
        graph[module] = {name for name in names if name in files and name != module}
    return graph


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_the_modules_of_a_package_import_each_other_one_way(package: str) -> None:
    """No circle of imports inside a package (`dominocam.measure.calibrate` and
    `dominocam.measure.evaluate` once imported each other)."""
    graph = module_graph(package)
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        pytest.fail(f"import cycle: {' -> '.join(error.args[1])}")


def test_a_name_from_a_package_init_is_an_import_of_it(tmp_path: Path) -> None:
    """`from pkg import create_app` in a module that `pkg/__init__.py` imports is a circle;
    `from pkg import storage` (a module) is an import of `pkg.storage` alone."""
    fake = tmp_path / "server"
    fake.mkdir()
    (fake / "__init__.py").write_text("def create_app():\n    from dominocam.server import api\n")
    (fake / "storage.py").write_text("")
    (fake / "api.py").write_text("from dominocam.server import storage\n")
    assert module_graph("server", fake) == {
        "server": {"server.api"},
        "server.storage": set(),
        "server.api": {"server.storage"},
    }
    (fake / "api.py").write_text("from dominocam.server import create_app, storage\n")
    assert module_graph("server", fake)["server.api"] == {"server", "server.storage"}


def test_nothing_imports_the_studies() -> None:
    """The studies are not installed (pyproject.toml lists no `studies`): a package that
    imported one would break in the wheel."""
    assert [package for package, allowed in ALLOWED.items() if "studies" in allowed] == []


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


def test_every_import_of_a_room_uses_its_installed_name() -> None:
    """`from dominocam.rules import hold`, never the bare folder name: run from a checkout
    the bare name would still import (the repository is on the path), as a second copy of
    the module that the installed wheel does not have. The tests, studies, benchmarks and
    scripts are held to it too."""
    folders = [*PACKAGES.values(), *(REPO / name for name in ("tests", "benchmarks", "scripts"))]
    wrong = []
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            where = path.relative_to(REPO)
            wrong += [f"{where}: {n}" for n in imported_names(path) if n.split(".")[0] in ROOMS]
            wrong += [
                f"{path.relative_to(REPO)}: {n} (in code text)" for n in code_text_imports(path)
            ]
    assert wrong == []


def code_text_imports(path: Path) -> list[str]:
    """Bare room names imported by Python code written in a string (the code a test runs
    with `python -c`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for match in re.finditer(r"(?:^|[;\n]|\bfrom)\s*import\s+([\w., ]+)", node.value):
                names = [n.strip().split(" ")[0] for n in match.group(1).split(",")]
                found += [n for n in names if n.split(".")[0] in ROOMS]
            found += [
                m.group(1)
                for m in re.finditer(r"\bfrom\s+([\w.]+)\s+import\b", node.value)
                if m.group(1).split(".")[0] in ROOMS
            ]
    return found

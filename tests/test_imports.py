"""Imports sit at the top of their module; the few inside a function are named here, with
why (docs/design.md, "Imports"). Read from the source with `ast` (nothing is run).

An import inside a function hides a dependency, so it is allowed only where a measured cost
or an optional extra says so:

* a command module (`dominocam.cli.COMMAND_MODULES`) may import the project lazily: its
  `register(subparsers)` runs for every `dominocam --help`, which must load no heavy
  library (tests/vision/test_read_cli.py, tests/tournament/test_config.py check two);
* elsewhere only the first-party imports in `FIRST_PARTY_LAZY`, each with its reason;
* a third-party library only if it is in `LAZY_LIBRARIES` (heavy, or an optional extra's);
  the standard library never.

Every installed package is read; the studies (one-off scripts, not installed) are not.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FOLDERS = (
    "dominocam",
    "rules",
    "vision",
    "rounds",
    "server",
    "tournament",
    "measure",
    "datasets/dominosynth",
    "models/dominotrain",
)
FIRST_PARTY = {"dominocam", "dominosynth", "dominotrain", "dominomodels"}

# Outside the command modules: (file, function, imported module) -> why it stays lazy.
# Times are one library's `import` in a fresh interpreter (docs/design.md, "Imports").
_PACKAGE_INIT = (
    "server/__init__.py runs for every `dominocam.server.X` import (the console script's "
    "`serve`, the tournament): at its top these would load the whole dashboard into each, "
    "OpenCV and flask_babel included"
)
_NO_OPENCV = (
    "loaded by processes that never read a photo (the tournament's web processes, the "
    "dashboard before its first photo): vision.reading brings OpenCV (150 ms, 30 MiB)"
)
FIRST_PARTY_LAZY: dict[tuple[str, str, str], str] = {
    ("server/__init__.py", "create_app", "dominocam.server.camera"): _PACKAGE_INIT,
    ("server/__init__.py", "create_app", "dominocam.server.demo"): _PACKAGE_INIT,
    ("server/__init__.py", "create_app", "dominocam.server"): _PACKAGE_INIT,
    ("server/__init__.py", "_public_state", "dominocam.server"): _PACKAGE_INIT,
    ("server/__init__.py", "_register_errors", "dominocam.server.auth"): _PACKAGE_INIT,
    ("server/__init__.py", "_register_errors", "dominocam.server.engine"): _PACKAGE_INIT,
    ("server/__init__.py", "_register_errors", "dominocam.server.events"): _PACKAGE_INIT,
    ("server/__init__.py", "_register_errors", "dominocam.server.game"): _PACKAGE_INIT,
    ("server/__init__.py", "_register_errors", "dominocam.server.serving"): _PACKAGE_INIT,
    ("server/__init__.py", "_register_errors", "dominocam.server.uploads"): _PACKAGE_INIT,
    ("server/camera.py", "tracking_reader.reader", "dominocam.vision.reading"): _NO_OPENCV,
    ("server/camera.py", "tracking_reader.reader", "dominocam.vision.track"): _NO_OPENCV,
    ("server/engine.py", "reading_game", "dominocam.vision.reading"): _NO_OPENCV,
    ("server/engine.py", "photo_reader", "dominocam.vision.reading"): _NO_OPENCV,
    ("tournament/worker.py", "context", "dominocam.vision.reading"): _NO_OPENCV,
    ("tournament/worker.py", "table_tracker", "dominocam.vision.reading"): _NO_OPENCV,
    ("tournament/launch.py", "_launch", "dominocam.tournament"): (
        "imported by the tournament's command module: the event store needs psycopg, the "
        "tournament extra's, which `dominocam --help` must not load"
    ),
    ("measure/bench.py", "bench_config", "dominosynth.config"): (
        "`dominocam bench PHOTO` never loads the generator (tests/measure/test_bench.py)"
    ),
    ("measure/bench.py", "bench_table", "dominosynth.generate"): (
        "`dominocam bench PHOTO` never loads the generator (tests/measure/test_bench.py)"
    ),
}

# Third-party libraries that may be imported inside a function, and why.
LAZY_LIBRARIES: dict[str, str] = {
    "numpy": "187 ms: kept out of the command modules' `register`",
    "cv2": "150 ms, 30 MiB: kept out of `--help` and of processes that never read a photo",
    "onnxruntime": "209 ms, 35 MiB: loaded when a model is opened, never by `--help`",
    "scipy": "scipy.optimize 800 ms, scipy.spatial 420 ms: only for the assignments and one "
    "k-d tree query, not for every module that loads vision.geometry or vision.decode",
    "tqdm": "53 ms: the command modules' progress bars",
    "waitress": "server.serving is loaded by `--help`; the tournament's test checks it",
    "babel": "the ground floor (dominocam.i18n) imports only the standard library; babel "
    "formats a number in a language other than English",
    "yaml": "the synth and tournament extras' (pyyaml)",
    "skimage": "the synth extra's (scikit-image's sample photographs)",
    "celery": "the tournament extra's",
    "redis": "the tournament extra's",
    "psycopg": "the tournament extra's",
    "torch": "the train extra's",
    "torchvision": "the train extra's",
    "ultralytics": "the train extra's",
    "onnx": "the train and dev extras'",
    "onnxslim": "the train extra's",
    "polars": "optional for ultralytics (dominotrain.offline checks it)",
    "matplotlib": "the train extra's",
}


def command_modules() -> set[str]:
    """The files of `dominocam.cli.COMMAND_MODULES`, read from the source."""
    for node in ast.parse((REPO / "dominocam" / "cli.py").read_text()).body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "COMMAND_MODULES":
            assert node.value is not None
            names = ast.literal_eval(node.value)
            break
    else:
        raise AssertionError("dominocam/cli.py defines no COMMAND_MODULES")
    files = set()
    for name in names:
        head, *rest = name.split(".")
        if head == "dominosynth":
            folder = ["datasets", "dominosynth"]
        elif head == "dominotrain":
            folder = ["models", "dominotrain"]
        else:
            folder, rest = rest[:1], rest[1:]
        files.add("/".join([*folder, *rest]) + ".py")
    return files


def lazy_imports(root: Path, folders: tuple[str, ...]) -> Iterator[tuple[str, str, str]]:
    """(file, function, imported module) for every import inside a function or method."""
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root)
            if folder == "dominocam" and len(relative.parts) > 2:
                continue  # dominocam/rules -> ../rules: read in its own folder
            tree = ast.parse(path.read_text(), filename=str(path))
            yield from _inside(tree, "", str(relative))


def _inside(node: ast.AST, function: str, file: str) -> Iterator[tuple[str, str, str]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _inside(child, f"{function}.{child.name}".lstrip("."), file)
            continue
        if function and isinstance(child, ast.Import):
            yield from ((file, function, alias.name) for alias in child.names)
        elif function and isinstance(child, ast.ImportFrom):
            yield file, function, "." * child.level + (child.module or "")
        yield from _inside(child, function, file)


def unallowed(lazy: Iterator[tuple[str, str, str]], commands: set[str]) -> list[str]:
    """The lazy imports the rule of the module docstring does not allow."""
    wrong = []
    for file, function, module in lazy:
        top = module.split(".")[0]
        if top in FIRST_PARTY or not top:
            if file in commands or (file, function, module) in FIRST_PARTY_LAZY:
                continue
        elif top in LAZY_LIBRARIES:
            continue
        wrong.append(f"{file}: {function} imports {module}")
    return wrong


def test_imports_inside_functions_are_only_the_allowed_ones() -> None:
    assert unallowed(lazy_imports(REPO, FOLDERS), command_modules()) == []


def test_every_allowed_lazy_import_is_still_there() -> None:
    """The allow-list names no import that has moved to its module's top (keep it short)."""
    found = set(lazy_imports(REPO, FOLDERS))
    assert [key for key in FIRST_PARTY_LAZY if key not in found] == []


def test_the_command_modules_are_found() -> None:
    commands = command_modules()
    assert {"vision/cli.py", "datasets/dominosynth/cli.py", "measure/calibrate.py"} <= commands
    assert all((REPO / file).is_file() for file in commands)


def test_a_planted_lazy_import_is_refused(tmp_path: Path) -> None:
    """A first-party module, the standard library, or a light library imported inside a
    function of a module that is no command is refused; the same in a command module, or a
    heavy library anywhere, is not."""
    (tmp_path / "vision").mkdir()
    (tmp_path / "vision" / "cli.py").write_text(
        "def run():\n    from dominocam.vision.reading import PhotoReader\n"
    )
    (tmp_path / "vision" / "bad.py").write_text(
        "import numpy\n\n"
        "class A:\n"
        "    def m(self):\n"
        "        from dominocam.vision.scene import Scene\n"
        "        import json\n"
        "        import segno\n"
        "        import cv2\n"
    )
    lazy = list(lazy_imports(tmp_path, ("vision",)))
    assert ("vision/bad.py", "m", "json") in lazy
    assert unallowed(iter(lazy), {"vision/cli.py"}) == [
        "vision/bad.py: m imports dominocam.vision.scene",
        "vision/bad.py: m imports json",
        "vision/bad.py: m imports segno",
    ]

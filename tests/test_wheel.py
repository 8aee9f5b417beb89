"""The wheel works: built from the project, installed into a fresh virtual environment, and
run from another folder, it reads a bundled picture and serves the login page.

This is the check that the package data (models, templates, static files) is shipped and
found through importlib.resources rather than through the checkout. Slow (it installs the
runtime dependencies into a new environment, from pip's cache or index), so `make
test-slow` and CI run it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PICTURE = REPO / "tests" / "assets" / "bundled" / "default-s22-003.jpg"
INSTALL_TIMEOUT_S = 900
SERVER_START_S = 60

# Each installed package and the folder of the repository it is built from (pyproject.toml).
ROOMS = ("rules", "vision", "rounds", "server", "measure", "tournament")
PACKAGE_FOLDERS = {
    "dominocam": "dominocam",
    **{f"dominocam.{room}": room for room in ROOMS},
    "dominocam.server.game": "server/game",
    "dominocam.tournament.web": "tournament/web",
    "dominosynth": "datasets/dominosynth",
    "dominotrain": "models/dominotrain",
    "dominomodels": "models",
}

pytestmark = pytest.mark.slow


# Left out of the copy the wheel is built from: what is not the project's source. A build
# in the checkout itself would reuse its build/ folder, where a deleted module lingers.
NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    ".venv*",
    "build",
    "dist",
    "runs",
    "instance",
    ".yolo",
    "*.pt",
    "__pycache__",
    "*.egg-info",
    ".*_cache",
    ".hypothesis",
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built from a clean copy of the working tree without build
    isolation (setuptools is in the dev extra, so nothing is downloaded)."""
    source = tmp_path_factory.mktemp("source") / "dominocam"
    shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"),
            *("-w", str(out), str(source)),
        ],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (built,) = out.glob("dominocam-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `bin/` folder of a fresh virtual environment with the wheel installed."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return venv / "bin"


def test_the_wheel_holds_the_package_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for model in sorted((REPO / "models").glob("*.onnx")):
        assert f"dominomodels/{model.name}" in names
        assert f"dominomodels/{model.stem}.md" in names
    assert "dominomodels/calibration.json" in names  # read beside the detector
    for package in ("server", "tournament"):
        for folder in ("templates", "static"):
            inside = f"dominocam/{package}/{folder}/"
            shipped = {n for n in names if n.startswith(inside)}
            on_disk = {f"{inside}{p.name}" for p in (REPO / package / folder).iterdir()}
            assert shipped == on_disk
    assert "dominotrain/yolov8-cls-narrow.yaml" in names
    catalogues = sorted((REPO / "dominocam" / "locale").rglob("*.mo"))
    assert len(catalogues) == 4  # hu, it, vi, es (dominocam/i18n.py reads them at run time)
    for mo in catalogues:
        assert mo.relative_to(REPO).as_posix() in names
    for package, folder in PACKAGE_FOLDERS.items():
        # The modules of this package itself; its sub-packages are checked as packages.
        prefix = package.replace(".", "/") + "/"
        shipped = {
            n
            for n in names
            if n.startswith(prefix) and n.endswith(".py") and "/" not in n[len(prefix) :]
        }
        assert shipped == {f"{prefix}{p.name}" for p in (REPO / folder).glob("*.py")}
    not_product = ("tests/", "studies/", "dominomodels/dominotrain/")
    assert not [n for n in names if n.startswith(not_product)]
    # Only the product's own names at the top (issue 35): no generic `rules` or `server`.
    top_level = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top_level == {"dominocam", "dominosynth", "dominotrain", "dominomodels"}
    assert not [n for n in names if n.endswith("/standin.py")]  # the tests' ONNX stand-ins


def test_the_installed_wheel_reads_a_bundled_picture(installed: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(installed / "dominocam"), "read", str(PICTURE), "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k != "DOMINOCAM_MODELS"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    scene = json.loads(done.stdout)
    truth = json.loads(PICTURE.with_suffix(".json").read_text())
    assert len(scene["tiles"]) >= len(truth["tiles"]) // 2  # the bundled detector found tiles
    assert any(tile.get("pips") for tile in scene["tiles"])  # and the reader read some
    # with the bundled calibration: each tile has its probability and may be doubtful
    assert all("probability" in tile and "doubtful" in tile for tile in scene["tiles"])


def test_the_installed_wheel_rules_in_hungarian(installed: Path, tmp_path: Path) -> None:
    state = REPO / "examples" / "states" / "design-example.json"
    done = subprocess.run(
        [str(installed / "dominocam"), "rules", "check", str(state), "--lang", "hu"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Ítélet: BLOKKOLT." in done.stdout


def test_the_installed_runtime_needs_no_yaml(installed: Path, tmp_path: Path) -> None:
    code = "import dominocam.cli, dominocam.vision.pipeline, dominocam.server, yaml"
    done = subprocess.run([str(installed / "python"), "-c", code], cwd=tmp_path, timeout=120)
    assert done.returncode != 0  # pyyaml is not a runtime dependency
    code = (
        "import dominocam.cli, dominocam.vision.pipeline, dominocam.server; "
        "dominocam.cli.build_parser()"
    )
    done = subprocess.run(
        [str(installed / "python"), "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_the_installed_product_is_imported_through_its_own_names(
    installed: Path, tmp_path: Path
) -> None:
    """Every room imports as `dominocam.<room>` from outside the checkout; no bare name is
    installed."""
    code = (
        "import importlib, importlib.util\n"
        f"for room in {ROOMS!r}:\n"
        "    importlib.import_module('dominocam.' + room)\n"
        "    assert importlib.util.find_spec(room) is None, room\n"
    )
    done = subprocess.run(
        [str(installed / "python"), "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_installed_wheel_serves_the_login_page(installed: Path, tmp_path: Path) -> None:
    port = _free_port()
    env = dict(os.environ, DOMINOCAM_UPLOAD_FOLDER=str(tmp_path / "uploads"))
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [
                *(str(installed / "dominocam"), "serve", "--host", "127.0.0.1"),
                *("--port", str(port), "--db", str(tmp_path / "db.sqlite3"), "--no-demo"),
            ],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        page = _get_when_up(f"http://127.0.0.1:{port}/login", server)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert page.status == 200, log.read_text()
    assert "<form" in page.body and "dominocam" in page.body.lower()
    assert page.css.status == 200  # the static files are shipped too


class _Page:
    def __init__(self, status: int, body: str, css: _Page | None = None) -> None:
        self.status, self.body, self.css = status, body, css


def _fetch(url: str) -> _Page:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return _Page(answer.status, answer.read().decode("utf-8", "replace"))
    except urllib.error.HTTPError as error:
        return _Page(error.code, error.read().decode("utf-8", "replace"))


def _get_when_up(url: str, server: subprocess.Popen) -> _Page:
    """The login page (and its stylesheet) once the server answers, within SERVER_START_S."""
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"`dominocam serve` exited with status {server.returncode}")
        try:
            page = _fetch(url)
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.3)
            continue
        page.css = _fetch(url.rsplit("/", 1)[0] + "/static/app.css")
        return page
    pytest.fail(f"`dominocam serve` did not answer within {SERVER_START_S} s")

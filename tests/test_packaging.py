"""pyproject.toml lists every package and ships the data the product reads (fast checks;
tests/test_wheel.py builds and installs the wheel itself)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
SETUPTOOLS = PROJECT["tool"]["setuptools"]
# Not packages of the wheel: the tests, build outputs, and the one-off studies (run from a
# checkout as `python -m studies.NAME`, never installed; docs/design.md, "Layers").
SKIPPED = {".venv", "tests", "build", "runs", ".git", "studies"}


def package_folder(name: str) -> Path:
    """The folder setuptools takes a package from: its own mapping, else its nearest mapped
    parent's folder and the rest of the name (`dominotrain` -> models/dominotrain), else the
    name's path; a link (dominocam/rules -> ../rules) is followed."""
    mapped = SETUPTOOLS.get("package-dir", {})
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        parent = ".".join(parts[:end])
        if parent in mapped:
            return (REPO / mapped[parent] / "/".join(parts[end:])).resolve()
    return (REPO / name.replace(".", "/")).resolve()


# The product's own installed names (issue 35): everything under `dominocam.`, beside the
# three uniquely named packages of the data generator, the training and the bundled models.
OWN_TOP_LEVEL = {"dominocam", "dominosynth", "dominotrain", "dominomodels"}


def test_every_installed_name_is_the_products_own() -> None:
    """No generic top-level package (`rules` collides with a well-known Django package): the
    rooms are installed as `dominocam.rules`, `dominocam.vision`, ..., their folders at the
    top level, each reached from dominocam/ by a relative link (which a clone keeps)."""
    assert {name.split(".")[0] for name in SETUPTOOLS["packages"]} == OWN_TOP_LEVEL
    for room in ("rules", "vision", "rounds", "server", "measure", "tournament"):
        link = REPO / "dominocam" / room
        assert link.is_symlink() and link.readlink() == Path("..", room), room
        assert package_folder(f"dominocam.{room}") == REPO / room
        assert f"dominocam.{room}" in SETUPTOOLS["packages"]


def test_every_folder_with_an_init_is_a_listed_package() -> None:
    on_disk = {
        path.parent  # rglob does not enter dominocam/'s links: each room is found once
        for path in REPO.rglob("__init__.py")
        if not SKIPPED & set(path.relative_to(REPO).parts)
    }
    listed = {package_folder(name) for name in SETUPTOOLS["packages"]}
    assert listed == on_disk


def test_the_bundled_models_and_cards_are_package_data() -> None:
    data = SETUPTOOLS["package-data"]
    models = package_folder("dominomodels")
    assert models == REPO / "models"
    assert {"*.onnx", "*.md", "calibration.json"} <= set(data["dominomodels"])
    assert (models / "calibration.json").is_file()  # read beside the detector at run time
    assert sorted(models.glob("*.onnx"))  # the detector and reader at least
    for model in models.glob("*.onnx"):
        assert model.with_suffix(".md").is_file(), f"{model.name} has no card"


@pytest.mark.parametrize("package", ["dominocam.server", "dominocam.tournament"])
def test_the_templates_and_static_files_are_package_data(package: str) -> None:
    patterns = SETUPTOOLS["package-data"][package]
    for folder in ("templates", "static"):
        files = sorted((package_folder(package) / folder).iterdir())
        assert files
        assert all(any(f.match(f"*/{p}") for p in patterns) for f in files), folder


def test_yaml_is_an_extra_not_a_runtime_dependency() -> None:
    runtime = " ".join(PROJECT["project"]["dependencies"]).lower()
    extras = PROJECT["project"]["optional-dependencies"]
    assert "yaml" not in runtime
    assert any("pyyaml" in dep.lower() for dep in extras["synth"])
    assert "dominocam[synth]" in extras["train"]


def test_no_two_test_modules_share_a_name() -> None:
    """The test folders are not packages, so pytest imports each test file by its bare name:
    two `test_ledger.py` in two folders stop the whole run at collection."""
    tests = Path(__file__).resolve().parent
    names = [p.name for p in tests.rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []


def test_the_studies_and_the_test_stand_ins_are_not_installed() -> None:
    """The one-off studies and the tests' ONNX stand-ins (tests/helpers/standin.py) are not
    the product: no listed package holds them."""
    assert not [name for name in SETUPTOOLS["packages"] if name.split(".")[0] == "studies"]
    for name in SETUPTOOLS["packages"]:
        assert not (package_folder(name) / "standin.py").exists(), name

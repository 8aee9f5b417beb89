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
    return REPO / SETUPTOOLS.get("package-dir", {}).get(name, name.replace(".", "/"))


def test_every_folder_with_an_init_is_a_listed_package() -> None:
    on_disk = {
        path.parent
        for path in REPO.rglob("__init__.py")
        if not SKIPPED & set(path.relative_to(REPO).parts)
    }
    listed = {package_folder(name) for name in SETUPTOOLS["packages"]}
    assert listed == on_disk


def test_the_bundled_models_and_cards_are_package_data() -> None:
    data = SETUPTOOLS["package-data"]
    models = package_folder("dominomodels")
    assert models == REPO / "models"
    assert {"*.onnx", "*.md"} <= set(data["dominomodels"])
    assert sorted(models.glob("*.onnx"))  # the detector and reader at least
    for model in models.glob("*.onnx"):
        assert model.with_suffix(".md").is_file(), f"{model.name} has no card"


@pytest.mark.parametrize("package", ["server", "tournament"])
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

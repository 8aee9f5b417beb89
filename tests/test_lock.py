"""The lock installs the same packages on every machine the README promises (Linux on x86-64
and arm64, CPython 3.11 to 3.13), from itself alone.

`uv.lock` is the resolution; `requirements/*.txt` are its exports, one per set of packages a
Makefile target installs, each file pinned and hashed (pip's hash-checking mode). The fast
tests read the files; the slow one installs the product into an empty environment with pip
allowed to see only the files the lock names.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import canonicalize_name, parse_wheel_filename

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "uv.lock"
REQUIREMENTS = REPO / "requirements"
EXPORTS = ("run", "dev", "train", "tournament", "lock")
PROMISED_PYTHONS = ((3, 11), (3, 12), (3, 13))
PROMISED_MACHINES = ("x86_64", "aarch64")
# The oldest glibc among the Linux releases still supported in 2026 (Debian 12 has 2.36,
# Ubuntu 22.04 2.35, RHEL 9 2.34): a wheel needing a newer one would not install there.
GLIBC = (2, 34)
PICTURE = REPO / "tests" / "assets" / "bundled" / "default-s22-003.jpg"
INSTALL_TIMEOUT_S = 1200


@dataclass(frozen=True)
class Pin:
    """One line of an exported file: `name==version ; marker` and its hashes."""

    name: str
    version: str
    marker: Marker | None
    hashes: frozenset[str]


def pins(export: str) -> list[Pin]:
    """The pinned requirements of `requirements/<export>.txt`, continuation lines joined."""
    text = (REQUIREMENTS / f"{export}.txt").read_text()
    logical = re.sub(r"\\\n\s*", " ", text)
    found = []
    for line in logical.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        spec, *hashes = line.split(" --hash=")
        requirement = Requirement(spec)
        (version,) = (s.version for s in requirement.specifier if s.operator == "==")
        found.append(
            Pin(
                canonicalize_name(requirement.name),
                version,
                requirement.marker,
                frozenset(h.strip() for h in hashes),
            )
        )
    return found


def locked_packages() -> dict[tuple[str, str], dict]:
    """uv.lock's packages by (name, version)."""
    lock = tomllib.loads(LOCK.read_text())
    return {(canonicalize_name(p["name"]), p["version"]): p for p in lock["package"]}


def environment(python: tuple[int, int], machine: str) -> dict[str, str]:
    """The marker environment of CPython `python` on Linux `machine`."""
    version = f"{python[0]}.{python[1]}"
    return {
        "python_version": version,
        "python_full_version": f"{version}.0",
        "platform_machine": machine,
        "sys_platform": "linux",
        "platform_system": "Linux",
        "os_name": "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "extra": "",
    }


def installable_tags(python: tuple[int, int], machine: str) -> set[Tag]:
    """The wheel tags pip accepts on CPython `python`, Linux `machine`, glibc `GLIBC`."""
    legacy = ("manylinux2014", "manylinux2010", "manylinux1")  # = 2_17, 2_12, 2_5
    platforms = [
        *(f"manylinux_{GLIBC[0]}_{minor}_{machine}" for minor in range(GLIBC[1], 4, -1)),
        *(f"{alias}_{machine}" for alias in legacy),
    ]
    return set(cpython_tags(python, platforms=platforms)) | set(
        compatible_tags(python, platforms=platforms)
    )


def applies(pin: Pin, python: tuple[int, int], machine: str) -> bool:
    return pin.marker is None or pin.marker.evaluate(environment(python, machine))


def wheel_hashes(package: dict) -> Iterator[tuple[str, str]]:
    """(file name, sha256:...) of each wheel the lock records for `package`."""
    for wheel in package.get("wheels", []):
        yield wheel["url"].rsplit("/", 1)[-1], wheel["hash"]


@pytest.mark.parametrize("export", EXPORTS)
def test_every_exported_package_is_pinned_with_a_hash(export: str) -> None:
    found = pins(export)
    assert found
    assert all(pin.hashes for pin in found)
    assert all(h.startswith("sha256:") for pin in found for h in pin.hashes)


@pytest.mark.parametrize("export", EXPORTS)
def test_the_exports_are_the_lock(export: str) -> None:
    packages = locked_packages()
    for pin in pins(export):
        package = packages[(pin.name, pin.version)]
        files = {digest for _, digest in wheel_hashes(package)}
        if "sdist" in package:
            files.add(package["sdist"]["hash"])
        assert pin.hashes <= files, f"{pin.name}=={pin.version}: make lock"


def test_the_lock_satisfies_every_range_of_pyproject() -> None:
    """A range changed in pyproject.toml without `make lock` fails here."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = [*project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        declared += extra
    versions: dict[str, set[str]] = {}
    for name, version in locked_packages():
        versions.setdefault(name, set()).add(version)
    for line in declared:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        if name == "dominocam":
            continue
        assert name in versions, f"{name} is in pyproject.toml but not in uv.lock: make lock"
        assert any(requirement.specifier.contains(v, prereleases=True) for v in versions[name]), (
            f"no locked {name} satisfies {requirement.specifier}: make lock"
        )


@pytest.mark.parametrize("machine", PROMISED_MACHINES)
@pytest.mark.parametrize("python", PROMISED_PYTHONS, ids=lambda v: f"py{v[0]}{v[1]}")
@pytest.mark.parametrize("export", EXPORTS)
def test_every_promised_machine_gets_a_wheel_of_each_locked_package(
    export: str, python: tuple[int, int], machine: str
) -> None:
    """The Makefile installs wheels only (an sdist would build with unlocked tools), so each
    package that applies on a promised machine needs a wheel that installs there."""
    packages = locked_packages()
    tags = installable_tags(python, machine)
    chosen = [pin for pin in pins(export) if applies(pin, python, machine)]
    assert {"numpy", "onnxruntime", "opencv-python-headless", "setuptools"} <= {
        pin.name for pin in chosen
    } or export == "lock"
    for pin in chosen:
        wheels = dict(wheel_hashes(packages[(pin.name, pin.version)]))
        fitting = [
            name
            for name, digest in wheels.items()
            if digest in pin.hashes and tags & set(parse_wheel_filename(name)[3])
        ]
        assert fitting, f"{pin.name}=={pin.version} has no wheel for {python} on {machine}"


def test_one_version_of_each_package_per_machine() -> None:
    for python in PROMISED_PYTHONS:
        for machine in PROMISED_MACHINES:
            chosen = [pin.name for pin in pins("train") if applies(pin, python, machine)]
            assert len(chosen) == len(set(chosen))


def pythons() -> Iterator[tuple[tuple[int, int], str]]:
    """The promised CPython versions this machine has: (version, interpreter path)."""
    for version in PROMISED_PYTHONS:
        name = f"python{version[0]}.{version[1]}"
        candidates = [
            *sorted((Path.home() / ".pyenv" / "versions").glob(f"{version[0]}.{version[1]}.*")),
        ]
        executables = [str(c / "bin" / name) for c in candidates] + [f"/usr/bin/{name}"]
        for executable in executables:
            if Path(executable).is_file():
                yield version, executable
                break


def run(*command: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "DOMINOCAM_"))}
    done = subprocess.run(
        [str(c) for c in command],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        cwd=cwd,
        env=env,
    )
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.slow
@pytest.mark.parametrize(
    "interpreter", [p for _, p in pythons()], ids=[f"py{v[0]}{v[1]}" for v, _ in pythons()]
)
def test_the_lock_alone_installs_the_product(interpreter: str, tmp_path: Path) -> None:
    """Download exactly what `requirements/run.txt` names (hash-checked wheels) into a
    folder, then install the product into an empty environment with that folder as its only
    index, as `make run` installs it; the installed command reads a bundled picture."""
    venv, wheelhouse = tmp_path / "venv", tmp_path / "wheelhouse"
    run(interpreter, "-m", "venv", venv)
    pip = (venv / "bin" / "python", "-m", "pip", "--disable-pip-version-check")
    locked = ("--require-hashes", "--only-binary", ":all:", "-r", REQUIREMENTS / "run.txt")
    run(*pip, "download", "-q", "-d", wheelhouse, *locked)
    offline = ("--no-index", "--find-links", wheelhouse)
    run(*pip, "install", "-q", *offline, *locked)
    run(*pip, "install", "-q", *offline, "--no-deps", "--no-build-isolation", "-e", REPO)
    run(*pip, "check")
    done = run(venv / "bin" / "dominocam", "read", PICTURE, "--json", cwd=tmp_path)
    scene = json.loads(done.stdout)
    assert any(tile.get("pips") for tile in scene["tiles"])
    assert installed_pins(venv) == {
        (pin.name, pin.version)
        for pin in pins("run")
        if applies(pin, interpreter_version(venv), os.uname().machine)
    }


def interpreter_version(venv: Path) -> tuple[int, int]:
    done = run(venv / "bin" / "python", "-c", "import sys; print(*sys.version_info[:2])")
    major, minor = done.stdout.split()
    return int(major), int(minor)


def installed_pins(venv: Path) -> set[tuple[str, str]]:
    """(name, version) of every distribution in `venv` but pip and the project."""
    done = run(venv / "bin" / "python", "-m", "pip", "list", "--format", "json")
    return {
        (canonicalize_name(d["name"]), d["version"])
        for d in json.loads(done.stdout)
        if canonicalize_name(d["name"]) not in {"pip", "dominocam"}
    }

"""The instance folder (config.py, the database, the photos) is the user's data folder by
default, outside the code and its virtual environment; an explicit one wins; a database an
earlier version kept beside the code is reported, never lost."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from server_factories import ADMIN_TOKEN, serve_without_listening

from dominocam import server
from dominocam.cli import main as dominocam_main
from dominocam.server import create_app

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the XDG folders are Linux's convention"
)


@pytest.fixture
def home(monkeypatch, tmp_path) -> Path:
    """A temporary home folder, with no instance folder chosen explicitly."""
    monkeypatch.delenv("DOMINOCAM_INSTANCE", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    # Flask's instance folder beside the code, where earlier versions kept the database.
    monkeypatch.setattr(server.Flask, "auto_find_instance_path", lambda app: str(tmp_path / "old"))
    return tmp_path / "home"


def _app(**config):
    return create_app({"TESTING": True, "ADMIN_TOKEN": ADMIN_TOKEN, **config})


@linux_only
def test_the_default_instance_is_the_xdg_data_folder(home, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    app = _app()
    folder = tmp_path / "xdg" / "dominocam"
    assert app.config["INSTANCE"] == app.instance_path == str(folder)
    assert app.config["DATABASE"] == str(folder / "dominocam.sqlite3")
    assert app.config["UPLOAD_FOLDER"] == str(folder / "uploads")
    assert (folder / "dominocam.sqlite3").is_file()


@linux_only
def test_without_xdg_data_home_it_is_under_the_home_folder(home) -> None:
    folder = home / ".local" / "share" / "dominocam"
    assert server.instance_folder(None) == folder
    assert _app().config["DATABASE"] == str(folder / "dominocam.sqlite3")


def test_the_environment_and_the_test_dict_choose_another_folder(
    home, monkeypatch, tmp_path
) -> None:
    monkeypatch.setenv("DOMINOCAM_INSTANCE", str(tmp_path / "from-env"))
    assert _app().config["DATABASE"] == str(tmp_path / "from-env" / "dominocam.sqlite3")
    app = _app(INSTANCE=str(tmp_path / "from-dict"))
    assert app.config["DATABASE"] == str(tmp_path / "from-dict" / "dominocam.sqlite3")
    assert not (home / ".local").exists()


def test_the_layers_are_read_from_the_instance_folder(home, monkeypatch, tmp_path) -> None:
    folder = tmp_path / "instance"
    folder.mkdir()
    (folder / "config.py").write_text("GUESS_LIMIT = 7\nPHOTO_WAIT_S = 9.0\nSSE_POLL_S = 4.0\n")
    monkeypatch.setenv("DOMINOCAM_INSTANCE", str(folder))
    monkeypatch.setenv("DOMINOCAM_PHOTO_WAIT_S", "11.0")
    config = _app(SSE_POLL_S=0.5).config
    # defaults -> instance file -> DOMINOCAM_* environment -> test dict
    assert (config["GUESS_LIMIT"], config["PHOTO_WAIT_S"], config["SSE_POLL_S"]) == (7, 11.0, 0.5)


def test_dominocam_serve_instance_wins_over_the_environment(
    home, monkeypatch, tmp_path, capsys
) -> None:
    serve_without_listening(monkeypatch)
    monkeypatch.setenv("DOMINOCAM_INSTANCE", str(tmp_path / "from-env"))
    code = dominocam_main(["serve", "--no-demo", "--instance", str(tmp_path / "given")])
    assert code == 0
    assert (tmp_path / "given" / "dominocam.sqlite3").is_file()
    assert not (tmp_path / "from-env").exists()
    assert str(tmp_path / "given" / "dominocam.sqlite3") in capsys.readouterr().out


@pytest.mark.parametrize("name", ["dominocam.sqlite3", "config.py"])
def test_an_earlier_instance_with_data_is_found(tmp_path, name: str) -> None:
    earlier, in_use = tmp_path / "old", tmp_path / "new"
    earlier.mkdir()
    assert server.earlier_instance(in_use, earlier) is None  # empty
    (earlier / name).write_text("")
    assert server.earlier_instance(in_use, earlier) == earlier
    assert server.earlier_instance(earlier, earlier) is None  # the one in use


def test_serve_says_where_an_earlier_database_is_and_leaves_it(
    home, monkeypatch, tmp_path, capsys
) -> None:
    serve_without_listening(monkeypatch)
    old = tmp_path / "old"
    old.mkdir()
    (old / "dominocam.sqlite3").write_bytes(b"earlier games")
    assert dominocam_main(["serve", "--no-demo"]) == 0
    err = capsys.readouterr().err
    assert f"WARNING: an earlier version kept its games and settings in {old};" in err
    assert f"--instance {old}" in err
    assert (old / "dominocam.sqlite3").read_bytes() == b"earlier games"


def test_an_explicit_instance_is_not_warned_about(home, monkeypatch, tmp_path, capsys) -> None:
    serve_without_listening(monkeypatch)
    old = tmp_path / "old"
    old.mkdir()
    (old / "dominocam.sqlite3").write_bytes(b"")
    assert dominocam_main(["serve", "--no-demo", "--instance", str(tmp_path / "mine")]) == 0
    assert "earlier version" not in capsys.readouterr().err

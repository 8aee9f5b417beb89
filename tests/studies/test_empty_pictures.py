"""studies.empty_pictures: bad input is one line and exit 2."""

from __future__ import annotations

from studies.empty_pictures import main


def test_a_folder_without_pictures_is_refused(tmp_path, capsys):
    assert main(["--synth", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dominocam: error: no pictures") and err.count("\n") == 1

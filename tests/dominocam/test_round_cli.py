"""`dominocam round` through the real console script, on Scene JSON made from hand-placed
tiles (no detector model is needed for Scene JSON)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).with_name("dominocam")
W = 40.0  # tile width in px; tiles are 80 px long


def run(*args: str) -> subprocess.CompletedProcess[str]:
    assert SCRIPT.exists(), f"console script missing: {SCRIPT} (run make test)"
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=120, cwd=REPO
    )


def tile(
    tid: int, x: float, y: float, degrees: float, halves: tuple[int, int], face: str = "up"
) -> dict[str, Any]:
    """Scene JSON of a tile centred at (x, y) whose half 0 (showing halves[0]) points along
    `degrees`; corners turned so that corners[0]-[1] is at the end of the smaller value."""
    a = math.radians(degrees)
    ax, ay = math.cos(a), math.sin(a)
    nx, ny = -ay, ax
    e0 = (x + ax * W, y + ay * W)
    e1 = (x - ax * W, y - ay * W)
    corners = [
        [e0[0] + nx * W / 2, e0[1] + ny * W / 2],
        [e0[0] - nx * W / 2, e0[1] - ny * W / 2],
        [e1[0] - nx * W / 2, e1[1] - ny * W / 2],
        [e1[0] + nx * W / 2, e1[1] + ny * W / 2],
    ]
    if face == "down":
        return {"id": tid, "face": "down", "pips": None, "corners": corners, "confidence": 0.9}
    if halves[0] > halves[1]:
        corners = corners[2:] + corners[:2]
        halves = (halves[1], halves[0])
    return {
        "id": tid,
        "face": "up",
        "pips": list(halves),
        "corners": corners,
        "confidence": 0.95,
        "pip_confidence": [0.99, 0.99],
    }


def chain(values: list[int], gap: float = 4.0, y: float = 240.0, skip: int | None = None):
    """Tiles left to right, each showing values[i] on its left and values[i+1] on its right
    (tile `skip` left out, as if the detector missed it)."""
    step = 2 * W + gap
    tiles = []
    for i in range(len(values) - 1):
        if i == skip:
            continue
        tiles.append(tile(len(tiles), 100 + i * step, y, 180.0, (values[i], values[i + 1])))
    return tiles


def scene(tiles: list[dict[str, Any]], width: int = 800, height: int = 480) -> dict[str, Any]:
    for i, t in enumerate(tiles):
        t["id"] = i
    return {"image": {"width": width, "height": height}, "tiles": tiles, "warnings": []}


def hand(*tiles: tuple[int, int]) -> dict[str, Any]:
    return scene([tile(i, 100 + 90 * i, 100, 90, t) for i, t in enumerate(tiles)])


def write(tmp_path: Path, name: str, data: dict[str, Any]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def round_json(tmp_path: Path, table: dict, hands: dict[str, dict], *extra: str) -> dict:
    args = ["round", "--table-json", write(tmp_path, "table.json", table), "--json"]
    for name, data in hands.items():
        args += ["--hand", f"{name}={write(tmp_path, f'{name}.json', data)}"]
    result = run(*args, *extra)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_blocked_line_game_from_scene_json(tmp_path: Path) -> None:
    table = scene(chain([0, 1, 2, 3]))  # open ends 0 and 3
    out = round_json(
        tmp_path, table, {"Ana": hand((5, 6)), "Ben": hand((4, 4))}, "--variant", "block"
    )
    assert out["status"] == "blocked"
    assert out["verdict"]["blocked"] is True
    assert out["verdict"]["winner"] == "Ben"
    assert out["confidence"] == 1.0 and out["doubts"] == []
    assert sorted(line["open_end"] for line in out["state"]["layout"]["lines"]) == [0, 3]
    assert [p["name"] for p in out["state"]["players"]] == ["Ana", "Ben"]


def test_a_playable_tile_means_not_blocked(tmp_path: Path) -> None:
    table = scene(chain([0, 1, 2, 3]))
    out = round_json(
        tmp_path, table, {"Ana": hand((3, 6)), "Ben": hand((4, 4))}, "--variant", "block"
    )
    assert out["status"] == "not blocked"
    assert {"player": "Ana", "tile": [3, 6]}.items() <= out["verdict"]["playable"][0].items()


def test_a_missed_tile_makes_a_blocked_verdict_uncertain(tmp_path: Path) -> None:
    # 0-1 1-2 [2-3 missed] 3-4 4-5: the photo shows ends 0, 2, 3, 5.
    table = scene(chain([0, 1, 2, 3, 4, 5], skip=2))
    hands = {"Ana": hand((6, 6)), "Ben": hand((6, 1))}
    out = round_json(tmp_path, table, hands, "--variant", "block")
    assert out["verdict"]["blocked"] is True  # for the tiles it sees ...
    assert out["status"] == "uncertain"  # ... but the photo left doubts
    assert out["doubts"] and out["confidence"] < 1
    args = ["round", "--table-json", str(tmp_path / "table.json"), "--variant", "block"]
    args += ["--hand", f"Ana={tmp_path / 'Ana.json'}", "--hand", f"Ben={tmp_path / 'Ben.json'}"]
    text = run(*args)
    assert text.returncode == 0, text.stderr
    assert "uncertain:" in text.stdout
    assert "Verdict: BLOCKED." not in text.stdout  # never a bare BLOCKED


@pytest.mark.parametrize("blocked", [True, False])
def test_a_scene_that_needs_review_is_never_ruled_silently(tmp_path: Path, blocked: bool) -> None:
    # The reading marked tile 2-3 doubtful: blocked or not, the round says "uncertain" and
    # names it, and the ruling for the tiles as read comes only after the reasons.
    table = scene(chain([0, 1, 2, 3]))
    table["tiles"][2]["doubtful"] = True
    table["tiles"][2]["probability"] = 0.41
    table["needs_review"] = True
    table["warnings"] = ["Tile 2-3 (#2) may be misread (it could be 2-2): please check it"]
    hands = {"Ana": hand((5, 6) if blocked else (3, 6)), "Ben": hand((4, 4))}
    out = round_json(tmp_path, table, hands, "--variant", "block")
    assert out["verdict"]["blocked"] is blocked
    assert out["status"] == "uncertain" and out["needs_review"] is True
    assert out["doubtful"] == {"table": ["2-3 (#2)"], "hands": {"Ana": [], "Ben": []}}
    args = ["round", "--table-json", str(tmp_path / "table.json"), "--variant", "block"]
    args += ["--hand", f"Ana={tmp_path / 'Ana.json'}", "--hand", f"Ben={tmp_path / 'Ben.json'}"]
    text = run(*args)
    assert text.returncode == 0, text.stderr
    first = text.stdout.splitlines()[0]
    assert first.startswith("Verdict: uncertain") and "2-3 (#2)" in first
    assert "it could be 2-2" in text.stdout


def test_a_doubtful_tile_in_a_hand_makes_the_round_uncertain(tmp_path: Path) -> None:
    ana = hand((5, 6))
    ana["tiles"][0]["doubtful"] = True
    out = round_json(
        tmp_path,
        scene(chain([0, 1, 2, 3])),
        {"Ana": ana, "Ben": hand((4, 4))},
        "--variant",
        "block",
    )
    assert out["status"] == "uncertain"
    assert out["doubtful"]["hands"]["Ana"] == ["5-6 (#0)"]


def test_a_scene_without_review_is_ruled_as_before(tmp_path: Path) -> None:
    table = scene(chain([0, 1, 2, 3]))
    table["needs_review"] = False
    for t in table["tiles"]:
        t["probability"], t["doubtful"] = 0.99, False
    out = round_json(
        tmp_path, table, {"Ana": hand((5, 6)), "Ben": hand((4, 4))}, "--variant", "block"
    )
    assert out["status"] == "blocked" and out["needs_review"] is False


def test_a_tile_cut_by_the_border_at_an_open_end_is_a_doubt(tmp_path: Path) -> None:
    tiles = chain([0, 1, 2])
    table = scene(tiles, width=220)  # the 1-2 ends at x 224: cut by the border
    out = round_json(
        tmp_path, table, {"Ana": hand((5, 6)), "Ben": hand((4, 4))}, "--variant", "block"
    )
    assert out["status"] == "uncertain"
    assert any("border" in d for d in out["doubts"])


def test_spinner_arms_not_played_are_left_to_the_rules(tmp_path: Path) -> None:
    spinner = tile(0, 300, 240, 90, (6, 6))
    arm = tile(1, 300 - 20 - 3 - 40, 240, 180, (1, 6))
    table = scene([spinner, arm])
    out = round_json(
        tmp_path, table, {"Ana": hand((2, 3)), "Ben": hand((4, 5))}, "--variant", "all-fives"
    )
    layout = out["state"]["layout"]
    assert layout["spinner"] == [6, 6]
    assert [line["open_end"] for line in layout["lines"]] == [1]
    assert out["status"] == "blocked"
    values = sorted(end["value"] for end in out["verdict"]["open_ends"])
    assert 1 in values and 6 in values


def test_mexican_trains_are_public_and_noted(tmp_path: Path) -> None:
    engine = tile(0, 300, 240, 90, (12, 12))
    train = tile(1, 300 + 20 + 3 + 40, 240, 180, (12, 5))
    table = scene([engine, train])
    out = round_json(
        tmp_path,
        table,
        {"Ana": hand((7, 8)), "Ben": hand((9, 10))},
        "--variant",
        "mexican-train",
        "--engine",
        "12",
    )
    ends = sorted(line["open_end"] for line in out["state"]["layout"]["lines"])
    assert ends == [5, 12, 12]  # Ana's, Ben's and the public train: one started
    assert any("train owners" in n for n in out["notes"])


def mexican_table() -> dict:
    engine = tile(0, 300, 240, 90, (12, 12))
    train = tile(1, 300 + 20 + 3 + 40, 240, 180, (12, 5))
    return scene([engine, train])


@pytest.mark.parametrize(
    ("owners", "status"),
    [
        ([], "not blocked"),  # taken as public: Ben may play 5-6 on it
        (["--train", "Ana=12-5"], "blocked"),  # Ana's own train: Ben may not
        (["--train", "Ana=5-12", "--marked", "Ana"], "not blocked"),  # marked: open to all
        (["--train", "public=12-5"], "not blocked"),
    ],
)
def test_train_owners_decide_who_may_play_on_a_train(
    tmp_path: Path, owners: list[str], status: str
) -> None:
    hands = {"Ana": hand((7, 8)), "Ben": hand((5, 6))}
    out = round_json(
        tmp_path, mexican_table(), hands, "--variant", "mexican-train", "--engine", "12", *owners
    )
    assert out["status"] == status
    if owners:
        assert out["state"]["layout"]["engine"] == [12, 12]
        assert not any("train owners are not read" in n for n in out["notes"])


def test_an_owner_for_a_train_not_on_the_table_is_one_line_and_exit_2(tmp_path: Path) -> None:
    table = write(tmp_path, "table.json", mexican_table())
    result = run(
        "round",
        "--table-json",
        table,
        "--variant",
        "mexican-train",
        "--engine",
        "12",
        "--hand",
        f"Ana={write(tmp_path, 'a.json', hand((1, 1)))}",
        "--train",
        "Ana=12-7",
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no train on the table starts with 7-12" in lines[0]
    assert "trains start with 5-12" in lines[0]


def test_boneyard_defaults_to_the_face_down_tiles_of_the_table(tmp_path: Path) -> None:
    pile = [tile(9, 500 + 90 * i, 400, 90, (0, 0), face="down") for i in range(3)]
    tiles = [*chain([0, 1, 2]), *pile]
    out = round_json(
        tmp_path, scene(tiles), {"Ana": hand((5, 6)), "Ben": hand((4, 4))}, "--variant", "draw"
    )
    assert out["state"]["boneyard"] == 3
    assert out["status"] == "not blocked"  # tiles may still be drawn
    assert any("face-down" in n for n in out["notes"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hand", "Ana"], "NAME=PHOTO"),
        (["--hand", "Ana=missing.json", "--hand", "Ben=missing.json"], "no such file"),
        (["--variant", "no-such-game"], "variant"),
        (["--train", "Zed=1-2"], "not a player"),
        (["--train", "Ana=12"], "NAME=12-5"),
        (["--marked", "Zed"], "not a player"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    table = write(tmp_path, "table.json", scene(chain([0, 1, 2])))
    base = ["round", "--table-json", table]
    if "--variant" not in args:
        base += ["--variant", "block"]
    if "--hand" not in args:
        base += ["--hand", f"Ana={write(tmp_path, 'a.json', hand((1, 1)))}"]
    result = run(*base, *args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_malformed_scene_json_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "table.json"
    bad.write_text("{not json")
    result = run("round", "--table-json", str(bad), "--variant", "block", "--hand", f"Ana={bad}")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_photo_without_a_detector_model_is_one_line_and_exit_2(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), np.zeros((64, 64, 3), np.uint8))
    hand_file = write(tmp_path, "a.json", hand((1, 1)))
    result = run(
        "round",
        "--table",
        str(photo),
        "--variant",
        "block",
        "--hand",
        f"Ana={hand_file}",
        "--detector",
        str(tmp_path / "none.onnx"),
    )
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "detector" in result.stderr


def test_the_ruling_of_a_round_in_another_language(tmp_path: Path) -> None:
    # The uncertain case of test_a_missed_tile_makes_a_blocked_verdict_uncertain, in Italian.
    table = write(tmp_path, "table.json", scene(chain([0, 1, 2, 3, 4, 5], skip=2)))
    args = ["round", "--table-json", table, "--variant", "block", "--lang", "it"]
    args += ["--hand", f"Ana={write(tmp_path, 'Ana.json', hand((6, 6)))}"]
    args += ["--hand", f"Ben={write(tmp_path, 'Ben.json', hand((6, 1)))}"]
    result = run(*args)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Verdetto: incerto: BLOCCATA per le tessere che si vedono nelle foto" in out
    assert "Verdetto: BLOCCATA." not in out  # never a bare BLOCKED, in any language
    assert "(affidabilità 0,49)" in out  # the decimal comma of Italian
    assert "Se le foto mostrano tutto: Entrambe le condizioni sono soddisfatte" in out
    assert "Note:\n  - come mazzo sono state prese le 0 tessere coperte" in out
    as_json = run(*[a for a in args if a not in ("--lang", "it")], "--json", "--lang", "it")
    assert json.loads(as_json.stdout)["notes"][0].startswith("boneyard taken as the 0")


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_round_errors_are_one_line_in_the_chosen_language(tmp_path: Path, extra: list[str]) -> None:
    table = write(tmp_path, "table.json", scene(chain([0, 1, 2, 3])))
    args = ["round", "--table-json", table, "--variant", "block", "--lang", "vi", *extra]
    result = run(*args, "--hand", "Ana")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "dominocam: error: --hand phải có dạng TÊN=ẢNH, nhưng nhận được 'Ana'\n"


@pytest.mark.parametrize(
    ("language", "head", "reason"),
    [
        (
            "hu",
            "Ítélet: bizonytalan: a fotókat ellenőrizni kell",
            "az asztal: A(z) 2-3 kő (#2) lehet, hogy rosszul olvasott (lehet 2-2 is)",
        ),
        (
            "it",
            "Verdetto: incerto: le foto vanno controllate",
            "il tavolo: La tessera 2-3 (#2) potrebbe essere letta male (potrebbe essere 2-2)",
        ),
        (
            "vi",
            "Phán quyết: chưa chắc chắn: cần kiểm tra ảnh",
            "bàn: Quân 2-3 (#2) có thể bị đọc sai (có thể là 2-2)",
        ),
        (
            "es",
            "Veredicto: dudoso: hay que revisar las fotos",
            "la mesa: La ficha 2-3 (#2) puede estar mal leída (podría ser 2-2)",
        ),
    ],
)
def test_the_needs_review_lines_come_in_the_chosen_language(
    tmp_path: Path, language: str, head: str, reason: str
) -> None:
    # The Scene's warning is English (machine output); `--lang` shows it in the language.
    table = scene(chain([0, 1, 2, 3]))
    table["tiles"][2]["doubtful"] = True
    table["needs_review"] = True
    table["warnings"] = ["Tile 2-3 (#2) may be misread (it could be 2-2): please check it"]
    hands = {"Ana": hand((5, 6)), "Ben": hand((4, 4))}
    out = round_json(tmp_path, table, hands, "--variant", "block", "--lang", language)
    # --json stays English whatever the language.
    assert out["warnings"]["table"] == table["warnings"]
    args = ["round", "--table-json", str(tmp_path / "table.json"), "--variant", "block"]
    args += ["--hand", f"Ana={tmp_path / 'Ana.json'}", "--hand", f"Ben={tmp_path / 'Ben.json'}"]
    text = run(*args, "--lang", language)
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith(head), text.stdout
    assert reason in text.stdout, text.stdout
    assert "may be misread" not in text.stdout and "please check" not in text.stdout

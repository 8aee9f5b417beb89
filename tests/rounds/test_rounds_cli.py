"""`dominocam round` through the real console script, on Scene JSON made from hand-placed
tiles (no detector model is needed for Scene JSON).

The ledger comes first (issue 32): a round whose tiles do not add up to the set is held.
So the rounds here add up: a Block round of two holds the rest of its 14 dealt tiles in the
hands (`ANA_REST`, `BEN_HOLDS`), and a toy round with a tile or two per hand is dealt short
with `--hand-size`, its other tiles sleeping. The ledger's own cases are at the end."""

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


def round_text(tmp_path: Path, table: dict, hands: dict[str, dict], *extra: str) -> str:
    args = ["round", "--table-json", write(tmp_path, "table.json", table)]
    for name, data in hands.items():
        args += ["--hand", f"{name}={write(tmp_path, f'{name}.json', data)}"]
    result = run(*args, *extra)
    assert result.returncode == 0, result.stderr
    return result.stdout


# A Block round of two, dealt 7 each, with 0-1 1-2 2-3 on the table (ends 0 and 3): the 11
# tiles still held, none with a 0 or a 3. Ana's first tile is given by each test.
ANA_REST = ((6, 6), (5, 5), (4, 6), (2, 6), (1, 6))
BEN_HOLDS = ((4, 4), (1, 1), (2, 2), (1, 4), (1, 5))


def block_hands(ana_first: tuple[int, int] = (5, 6)) -> dict[str, dict]:
    return {"Ana": hand(ana_first, *ANA_REST), "Ben": hand(*BEN_HOLDS)}


def test_a_blocked_line_game_from_scene_json(tmp_path: Path) -> None:
    table = scene(chain([0, 1, 2, 3]))  # open ends 0 and 3
    out = round_json(tmp_path, table, block_hands(), "--variant", "block")
    assert out["status"] == "blocked" and out["hold"] == []
    assert out["ledger"]["adds_up"] and out["ledger"]["closes"]
    assert out["verdict"]["blocked"] is True
    assert out["verdict"]["winner"] == "Ben"
    assert out["confidence"] == 1.0 and out["doubts"] == []
    assert sorted(line["open_end"] for line in out["state"]["layout"]["lines"]) == [0, 3]
    assert [p["name"] for p in out["state"]["players"]] == ["Ana", "Ben"]


def test_a_playable_tile_means_not_blocked(tmp_path: Path) -> None:
    table = scene(chain([0, 1, 2, 3]))
    out = round_json(tmp_path, table, block_hands((3, 6)), "--variant", "block")
    assert out["status"] == "not blocked"
    assert {"player": "Ana", "tile": [3, 6]}.items() <= out["verdict"]["playable"][0].items()


def test_a_missed_tile_makes_a_blocked_verdict_uncertain(tmp_path: Path) -> None:
    # 0-1 1-2 [2-3 missed] 3-4 4-5: the photo shows ends 0, 2, 3, 5.
    table = scene(chain([0, 1, 2, 3, 4, 5], skip=2))
    hands = {"Ana": hand((6, 6)), "Ben": hand((6, 1))}
    out = round_json(tmp_path, table, hands, "--variant", "block", "--hand-size", "3")
    assert out["ledger"]["adds_up"]  # 4 tiles seen on the table, 2 in hands: 3 dealt each
    assert out["verdict"]["blocked"] is True  # for the tiles it sees ...
    assert out["status"] == "uncertain"  # ... but the photo left doubts
    assert out["doubts"] and out["confidence"] < 1
    args = ["round", "--table-json", str(tmp_path / "table.json"), "--variant", "block"]
    args += ["--hand", f"Ana={tmp_path / 'Ana.json'}", "--hand", f"Ben={tmp_path / 'Ben.json'}"]
    text = run(*args, "--hand-size", "3")
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
    hands = block_hands((5, 6) if blocked else (3, 6))
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
    hands = block_hands()
    hands["Ana"]["tiles"][0]["doubtful"] = True
    out = round_json(tmp_path, scene(chain([0, 1, 2, 3])), hands, "--variant", "block")
    assert out["status"] == "uncertain"
    assert out["doubtful"]["hands"]["Ana"] == ["5-6 (#0)"]


def test_a_doubtful_tile_in_another_hand_holds_a_domino(tmp_path: Path) -> None:
    # The guard against a misread no count can see (studies.round_simulation models it):
    # every count known, Ana went out, and Ben's 4-4 may be misread: the domino waits for a
    # person, though the ledger closes and `dominocam.rules.hold` has nothing to say.
    table = scene(chain([0, 1, 2]))
    ben = hand((4, 4), (5, 5))
    args = ("--variant", "draw", "--hand-size", "2", "--boneyard", "24")
    out = round_json(tmp_path, table, {"Ana": scene([]), "Ben": ben}, *args)
    assert out["status"] == "not blocked" and out["verdict"]["went_out"] == ["Ana"]
    ben["tiles"][0]["doubtful"] = True
    out = round_json(tmp_path, table, {"Ana": scene([]), "Ben": ben}, *args)
    assert out["status"] == "uncertain" and out["needs_review"] is True
    assert out["ledger"]["closes"] and out["hold"] == []
    text = round_text(tmp_path, table, {"Ana": scene([]), "Ben": ben}, *args)
    assert text.startswith(
        "Verdict: uncertain: the photos need a check before this ruling counts "
        "(doubtful: Ben's hand: 4-4 (#0))"
    )


def test_a_scene_without_review_is_ruled_as_before(tmp_path: Path) -> None:
    table = scene(chain([0, 1, 2, 3]))
    table["needs_review"] = False
    for t in table["tiles"]:
        t["probability"], t["doubtful"] = 0.99, False
    out = round_json(tmp_path, table, block_hands(), "--variant", "block")
    assert out["status"] == "blocked" and out["needs_review"] is False


def test_a_tile_cut_by_the_border_at_an_open_end_is_a_doubt(tmp_path: Path) -> None:
    tiles = chain([0, 1, 2])
    table = scene(tiles, width=220)  # the 1-2 ends at x 224: cut by the border
    hands = {"Ana": hand((5, 6)), "Ben": hand((4, 4))}
    out = round_json(tmp_path, table, hands, "--variant", "block", "--hand-size", "2")
    assert out["ledger"]["adds_up"]
    assert out["status"] == "uncertain"
    assert any("border" in d for d in out["doubts"])


def test_spinner_arms_not_played_are_left_to_the_rules(tmp_path: Path) -> None:
    spinner = tile(0, 300, 240, 90, (6, 6))
    arm = tile(1, 300 - 20 - 3 - 40, 240, 180, (1, 6))
    table = scene([spinner, arm])
    hands = {"Ana": hand((2, 3)), "Ben": hand((4, 5))}
    out = round_json(tmp_path, table, hands, "--variant", "all-fives", "--hand-size", "2")
    layout = out["state"]["layout"]
    assert layout["spinner"] == [6, 6]
    assert [line["open_end"] for line in layout["lines"]] == [1]
    # Nobody can play, but All Fives draws and nobody counted the boneyard: not ruled.
    assert out["verdict"]["blocked"] is True  # for the tiles as read, the boneyard empty
    assert out["status"] == "uncertain" and out["hold"] == ["boneyard-unknown"]
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
        "--hand-size",
        "2",
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
        # Ana's own train: Ben may not; nobody can play, but the boneyard is not counted.
        (["--train", "Ana=12-5"], "uncertain"),
        (["--train", "Ana=5-12", "--marked", "Ana"], "not blocked"),  # marked: open to all
        (["--train", "public=12-5"], "not blocked"),
    ],
)
def test_train_owners_decide_who_may_play_on_a_train(
    tmp_path: Path, owners: list[str], status: str
) -> None:
    hands = {"Ana": hand((7, 8)), "Ben": hand((5, 6))}
    args = ["--variant", "mexican-train", "--engine", "12", "--hand-size", "2", *owners]
    out = round_json(tmp_path, mexican_table(), hands, *args)
    assert out["status"] == status
    assert out["ledger"]["adds_up"]
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


def pile(count: int) -> list[dict[str, Any]]:
    """`count` face-down tiles in rows of 8 below the line of play."""
    return [
        tile(9, 100 + 50 * (i % 8), 420 + 90 * (i // 8), 90, (0, 0), face="down")
        for i in range(count)
    ]


def draw_table_with_a_pile() -> dict[str, Any]:
    """A Draw table dealt 2 each (`--hand-size 2`): 0-1 1-2 played (ends 0 and 2), and 24
    face-down tiles in three rows below: the whole boneyard."""
    return scene([*chain([0, 1, 2]), *pile(24)], height=720)


def test_a_block_over_face_down_tiles_nobody_placed_waits_for_the_host(tmp_path: Path) -> None:
    # Block never draws, but 14 face-down tiles in view could hide a tile a hand photo missed.
    table = scene([*chain([0, 1, 2, 3]), *pile(14)], height=720)
    out = round_json(tmp_path, table, block_hands(), "--variant", "block")
    assert out["status"] == "uncertain" and out["hold"] == ["counts-open"]
    assert out["verdict"]["blocked"] is True
    text = round_text(tmp_path, table, block_hands(), "--variant", "block")
    assert "Verdict: BLOCKED." not in text
    assert "the table photo shows 14 face-down tiles nobody placed: give --boneyard-in-view" in text
    out = round_json(tmp_path, table, block_hands(), "--variant", "block", "--boneyard-in-view")
    assert out["status"] == "blocked" and out["ledger"]["closes"]
    assert out["ledger"]["sleeping"]["source"] == "counted"


def test_an_empty_hand_with_the_boneyard_unknown_waits_for_the_count(tmp_path: Path) -> None:
    # Ana played her two tiles, or a hand photo missed her last one: a domino either way.
    table = scene(chain([0, 1, 2]))
    hands = {"Ana": scene([]), "Ben": hand((4, 4), (5, 5))}
    args = ("--variant", "draw", "--hand-size", "2")
    out = round_json(tmp_path, table, hands, *args)
    assert out["verdict"]["went_out"] == ["Ana"]
    # A domino's condition needs no boneyard, but its counts stay open without one.
    assert out["status"] == "uncertain" and out["hold"] == ["counts-open"]
    text = round_text(tmp_path, table, hands, *args)
    assert text.startswith("Verdict: uncertain: the photos show a hand with no tile left")
    assert "nobody counted the boneyard, so a tile left out of a hand could lie there" in text
    out = round_json(tmp_path, table, hands, *args, "--boneyard", "24")
    assert out["status"] == "not blocked" and out["hold"] == []


def test_the_face_down_tiles_are_the_boneyard_only_when_the_host_says_so(tmp_path: Path) -> None:
    hands = {"Ana": hand((5, 6)), "Ben": hand((4, 4))}  # nobody can play on 0 or 2
    args = ("--variant", "draw", "--hand-size", "2")
    out = round_json(tmp_path, draw_table_with_a_pile(), hands, *args)
    assert out["state"]["boneyard"] == 0  # a stand-in, never ruled on
    assert out["status"] == "uncertain" and out["hold"] == ["boneyard-unknown"]
    assert out["ledger"]["boneyard"]["source"] == "unknown"
    assert any("--boneyard-in-view" in n for n in out["notes"])

    out = round_json(tmp_path, draw_table_with_a_pile(), hands, *args, "--boneyard-in-view")
    assert out["state"]["boneyard"] == 24
    assert out["status"] == "not blocked"  # tiles may still be drawn
    assert out["ledger"]["boneyard"] == {
        "known": True,
        "count": 24,
        "source": "counted",
        "at_least": 24,
        "at_most": 24,
    }
    assert out["ledger"]["closes"] and out["notes"] == []


def test_an_entered_boneyard_the_photo_contradicts_is_held(tmp_path: Path) -> None:
    hands = {"Ana": hand((5, 6)), "Ben": hand((4, 4))}
    args = ("--variant", "draw", "--hand-size", "2", "--boneyard-in-view", "--boneyard", "0")
    out = round_json(tmp_path, draw_table_with_a_pile(), hands, *args)
    assert out["status"] == "uncertain" and out["hold"] == ["does-not-add-up"]
    # The host's count comes first, so the 24 tiles of the pile are then nowhere.
    assert out["ledger_problems"] == [
        "The boneyard was given as 0 tiles, but 24 lie face down as the stock.",
        "28 tiles in the set, 4 seen: 0-0, 0-2, 0-3, 0-4, 0-5, 0-6, 1-1, 1-3, 1-4, 1-5 and 14 "
        "more are nowhere.",
    ]


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
    args += ["--hand-size", "3"]
    result = run(*args, "--ledger")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Verdetto: incerto: BLOCCATA per le tessere che si vedono nelle foto" in out
    assert "Verdetto: BLOCCATA." not in out  # never a bare BLOCKED, in any language
    assert "(affidabilità 0,49)" in out  # the decimal comma of Italian
    assert "Se le foto mostrano tutto: Entrambe le condizioni sono soddisfatte" in out
    assert "Tutte le 28 tessere sono al loro posto." in out  # the ledger, in Italian
    as_json = run(*[a for a in args if a not in ("--lang", "it")], "--json", "--lang", "it")
    assert json.loads(as_json.stdout)["ledger"]["adds_up"] is True


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
            "az asztal: Nézd meg a(z) 2-3 követ (középen): lehet, hogy valójában 2-2.",
        ),
        (
            "it",
            "Verdetto: incerto: le foto vanno controllate",
            "il tavolo: Controlla la tessera 2-3 al centro: potrebbe essere la 2-2.",
        ),
        (
            "vi",
            "Phán quyết: chưa chắc chắn: cần kiểm tra ảnh",
            "bàn: Hãy kiểm tra quân 2-3 ở giữa: có thể đó là quân 2-2.",
        ),
        (
            "es",
            "Veredicto: dudoso: hay que revisar las fotos",
            "la mesa: Revisa la ficha 2-3 en el centro: puede ser la 2-2.",
        ),
    ],
)
def test_the_needs_review_lines_come_in_the_chosen_language(
    tmp_path: Path, language: str, head: str, reason: str
) -> None:
    # The Scene's warning is English (machine output) with its code beside it (`notes`);
    # `--lang` writes a player's sentence from the code in the language (issue 34).
    from dominocam.vision import messages
    from dominocam.vision.notes import note, notes_json

    table = scene(chain([0, 1, 2, 3]))
    table["tiles"][2]["doubtful"] = True
    table["needs_review"] = True
    misread = note(messages.MAY_BE_MISREAD_COULD_BE, tile=(2, 3), id=2, other=(2, 2))
    table["warnings"] = [str(misread)]
    table["notes"] = notes_json([misread.with_params(place="middle")])
    out = round_json(tmp_path, table, block_hands(), "--variant", "block", "--lang", language)
    # --json stays English whatever the language.
    assert out["warnings"]["table"] == table["warnings"]
    args = ["round", "--table-json", str(tmp_path / "table.json"), "--variant", "block"]
    args += ["--hand", f"Ana={tmp_path / 'Ana.json'}", "--hand", f"Ben={tmp_path / 'Ben.json'}"]
    text = run(*args, "--lang", language)
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith(head), text.stdout
    assert reason in text.stdout, text.stdout
    assert "may be misread" not in text.stdout and "please check" not in text.stdout


# --- the ledger (issue 32) ----------------------------------------------------------------------


def train(direction: int, halves: list[tuple[int, int]], x: float = 600, y: float = 300):
    """Tiles of a train leaving an engine at (x, y) to the right (+1) or the left (-1), each
    tile's first half towards the engine."""
    step = 2 * W + 4
    return [
        tile(0, x + direction * (63 + i * step), y, 180.0 if direction > 0 else 0.0, pips)
        for i, pips in enumerate(halves)
    ]


def mexican_round() -> tuple[dict[str, Any], dict[str, dict]]:
    """A whole Mexican Train round on a double-6 set, blocked with the boneyard empty: Ana's
    train 6-0 0-1 1-6 6-2 2-4 (end 4), Ben's 6-3 3-5 5-6 6-4 4-0 (end 0), the Mexican train
    not started (6). Ana holds no 4 and no 6, Ben no 0 and no 6; 11 + 8 + 9 = 28 tiles."""
    engine = tile(0, 600, 300, 90, (6, 6))
    ana_train = train(+1, [(6, 0), (0, 1), (1, 6), (6, 2), (2, 4)])
    ben_train = train(-1, [(6, 3), (3, 5), (5, 6), (6, 4), (4, 0)])
    table = scene([engine, *ana_train, *ben_train], width=1200, height=600)
    hands = {
        "Ana": hand((0, 0), (0, 2), (0, 3), (0, 5), (1, 1), (1, 2), (1, 3), (1, 5)),
        "Ben": hand((1, 4), (3, 4), (4, 4), (4, 5), (2, 2), (2, 3), (2, 5), (3, 3), (5, 5)),
    }
    return table, hands


MEXICAN_ARGS = (
    *("--variant", "mexican-train", "--set", "6", "--engine", "6", "--hand-size", "7"),
    *("--train", "Ana=6-0", "--train", "Ben=6-3"),
)


def test_mexican_train_without_a_boneyard_count_is_never_blocked(tmp_path: Path) -> None:
    table, hands = mexican_round()
    out = round_json(tmp_path, table, hands, *MEXICAN_ARGS)
    assert out["status"] == "uncertain" and out["hold"] == ["boneyard-unknown"]
    assert out["ledger"]["adds_up"] and not out["ledger"]["closes"]
    assert out["ledger"]["boneyard"]["source"] == "derived"  # shown, never ruled on
    text = round_text(tmp_path, table, hands, *MEXICAN_ARGS)
    assert "Verdict: BLOCKED." not in text
    assert "Verdict: uncertain: nobody can play the tiles as read" in text
    assert "run again with --boneyard N" in text
    assert "Condition 2, boneyard exhausted: NOT KNOWN." in text


@pytest.mark.parametrize("boneyard", [["--boneyard", "0"], ["--boneyard-in-view"]])
def test_mexican_train_with_the_boneyard_known_empty_is_ruled(
    tmp_path: Path, boneyard: list[str]
) -> None:
    table, hands = mexican_round()
    out = round_json(tmp_path, table, hands, *MEXICAN_ARGS, *boneyard)
    assert out["status"] == "blocked" and out["hold"] == []
    assert out["verdict"]["points"] == {"Ana": 25, "Ben": 61}
    assert out["ledger"]["adds_up"] and out["ledger"]["closes"]
    assert out["ledger"]["boneyard"]["count"] == 0
    assert out["ledger"]["problems"] == [] and out["ledger_problems"] == []


def test_the_ledger_grid(tmp_path: Path) -> None:
    table, hands = mexican_round()
    text = round_text(tmp_path, table, hands, *MEXICAN_ARGS, "--boneyard", "0", "--ledger")
    ledger = text[text.index("Ledger:") :].splitlines()
    assert ledger == [
        "Ledger: double-6 set, 28 tiles; tile a-b at row a, column b.",
        "   0 1 2 3 4 5 6",
        " 0 A T A A T A T",
        " 1   A A A 2 A T",
        " 2     2 2 T 2 T",
        " 3       2 2 T T",
        " 4         2 2 T",
        " 5           2 T",
        " 6             T",
        # Ben's B would be the boneyard's: he is his seat number.
        "T table, A Ana, 2 Ben, B boneyard, . not seen (hidden), ! read twice, ? nowhere",
        "Boneyard: 0 (entered)",
        "All 28 tiles accounted for.",
    ]


def test_a_tile_on_the_table_and_in_a_hand_is_held_and_named(tmp_path: Path) -> None:
    table, hands = mexican_round()
    hands["Ben"]["tiles"][0]["pips"] = [2, 4]  # his 1-4 read as the 2-4 at Ana's train's end
    out = round_json(tmp_path, table, hands, *MEXICAN_ARGS, "--boneyard", "0")
    assert out["status"] == "uncertain" and out["hold"] == ["does-not-add-up"]
    assert out["ledger_problems"] == [
        "2-4 is in two places: on the table and in Ben's hand.",
        "28 tiles in the set, 27 seen: 1-4 is nowhere.",
    ]
    assert [p["code"] for p in out["ledger"]["problems"]] == ["tile-twice", "tile-nowhere"]
    assert out["verdict"]["blocked"] is True  # for the tiles as read, below the problems
    text = round_text(tmp_path, table, hands, *MEXICAN_ARGS, "--boneyard", "0", "--ledger")
    assert text.startswith(
        "Verdict: uncertain: the tiles do not add up; check them before any ruling counts:\n"
        "  - 2-4 is in two places: on the table and in Ben's hand.\n"
        "  - 28 tiles in the set, 27 seen: 1-4 is nowhere.\n"
        "For the tiles as read:\n"
    )
    assert "Verdict: BLOCKED." not in text
    assert " 1   A A A ? A T" in text and " 2     2 2 ! 2 T" in text


def partnership_round() -> tuple[dict[str, Any], dict[str, dict]]:
    """A Latin partnership round (all 28 tiles dealt, 7 each): 0-1 1-2 2-3 on the table and
    the other 25 in four hands, Caro's last."""
    played = [(0, 1), (1, 2), (2, 3)]
    rest = [(a, b) for a in range(7) for b in range(a, 7) if (a, b) not in played]
    names = ("Ana", "Ben", "Dan", "Caro")
    cuts = (0, 6, 12, 18, 25)
    hands = {name: hand(*rest[cuts[i] : cuts[i + 1]]) for i, name in enumerate(names)}
    return scene(chain([0, 1, 2, 3])), hands


def test_all_tiles_dealt_close_without_a_boneyard(tmp_path: Path) -> None:
    table, hands = partnership_round()
    out = round_json(tmp_path, table, hands, "--variant", "partnership")
    assert out["ledger"]["adds_up"] and out["ledger"]["closes"] and out["hold"] == []
    assert out["status"] == "not blocked"  # Ana holds 0-0


def test_a_misread_into_a_played_tile_names_both_tiles(tmp_path: Path) -> None:
    table, hands = partnership_round()
    caro = hands["Caro"]["tiles"]
    four_six = next(i for i, t in enumerate(caro) if t["pips"] == [4, 6])
    caro[four_six]["pips"] = [2, 3]  # her 4-6 read as the 2-3 on the table
    out = round_json(tmp_path, table, hands, "--variant", "partnership")
    assert out["status"] == "uncertain"
    assert out["ledger_problems"] == [
        "2-3 is in two places: on the table and in Caro's hand.",
        "28 tiles in the set, 27 seen: 4-6 is nowhere.",
    ]


def test_a_tile_in_two_hands_is_held_without_a_ruling(tmp_path: Path) -> None:
    table, hands = partnership_round()
    hands["Ben"]["tiles"][0]["pips"] = [0, 0]  # his 1-1 read as Ana's 0-0
    out = round_json(tmp_path, table, hands, "--variant", "partnership")
    assert out["status"] == "uncertain" and out["verdict"] is None
    assert out["ledger_problems"] == [
        "0-0 is in two places: in Ana's hand and in Ben's hand.",
        "28 tiles in the set, 27 seen: 1-1 is nowhere.",
    ]
    text = round_text(tmp_path, table, hands, "--variant", "partnership")
    assert "The readings cannot be judged: tile 0-0 is held twice" in text


def test_a_hand_size_the_set_cannot_deal_is_one_line_and_exit_2(tmp_path: Path) -> None:
    table, hands = partnership_round()
    args = ["round", "--table-json", write(tmp_path, "table.json", table), "--variant", "block"]
    for name, data in hands.items():
        args += ["--hand", f"{name}={write(tmp_path, f'{name}.json', data)}"]
    result = run(*args, "--hand-size", "8")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "more than the 28 of a double-6 set" in result.stderr

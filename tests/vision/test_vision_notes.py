"""dominocam.vision.notes: each warning is a code with typed parameters, its English text written
from its template (what the Scene's `warnings` held before codes), a player's sentence and the
host's details made from the code in each language; the JSON carries both, and nothing reads
a warning's text back."""

from __future__ import annotations

import json
import string
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_confidence import SQUARE, committed
from test_confidence import up as up_read
from test_joint_decode import up

from dominocam.i18n import LANGUAGES, use_language
from dominocam.rules.places import PLACE_CODES
from dominocam.vision import messages, notes
from dominocam.vision.confidence import review_scene
from dominocam.vision.decode import joint_decode
from dominocam.vision.layout import LayoutConfig, layout_scene
from dominocam.vision.notes import KINDS, Note, detail_text, note, player_text
from dominocam.vision.scene import RejectedBox, Scene, SceneTile

REPO = Path(__file__).resolve().parents[2]
OTHER_LANGUAGES = [code for code in LANGUAGES if code != "en"]


def _sample(kind: notes.Kind) -> dict[str, object]:
    """Distinct parameters for each field of a kind's template: tile ids, tile values as
    pairs, floats where the template writes decimals, a nested reason for `why`."""
    params: dict[str, object] = {}
    for i, (_text, name, spec, _conv) in enumerate(string.Formatter().parse(kind.template)):
        if name is None or name in params:
            continue
        if name == "why":
            params[name] = note(messages.COLLIDED, reading=(4, 5))
        elif name in kind.values:
            params[name] = (i + 2, i + 3)
        elif name in ("tiles",):
            params[name] = [i + 20, i + 21]
        elif spec and spec.endswith("f"):
            params[name] = 0.25 + i / 100
        elif name == "kind":
            params[name] = "spinner"
        else:
            params[name] = i + 20
    return params


def _english(kind: notes.Kind, params: dict[str, object]) -> str:
    """The text as the producers wrote it before codes: `template.format` with values
    written "a-b" and lists "a, b"."""
    values = {
        k: "-".join(map(str, v)) if k in kind.values else ", ".join(map(str, v))
        for k, v in params.items()
        if isinstance(v, tuple | list)
    }
    return kind.template.format(**{**params, **values})


@pytest.mark.parametrize("code", sorted(KINDS))
def test_each_code_writes_the_english_text_of_its_template(code: str) -> None:
    kind = KINDS[code]
    params = _sample(kind)
    made = note(kind.template, **params)
    assert made.code == code
    assert str(made) == _english(kind, params)
    # JSON and back: the same code, parameters and text.
    data = json.loads(json.dumps(made.to_dict()))
    assert data["code"] == code and data["text"] == str(made)
    back = Note.from_dict(data)
    assert back == made and back.code == code and back.to_dict() == made.to_dict()


@pytest.mark.parametrize("language", OTHER_LANGUAGES)
@pytest.mark.parametrize("code", sorted(c for c in KINDS if KINDS[c].player is not None))
def test_each_code_has_a_players_sentence_in_each_language(code: str, language: str) -> None:
    kind = KINDS[code]
    params = _sample(kind)
    made = note(kind.template, **params).with_params(place="bottom-right")
    english = player_text(made)
    with use_language(language):
        shown = player_text(made)
        details = detail_text(made)
    assert shown != english, f"{language}: not translated: {english}"
    assert details != str(made), f"{language}: details not translated: {made}"
    # A player reads no tile number and no probability: values only, and where.
    assert "#" not in shown and "p=" not in shown and "p>=" not in shown
    for name, value in params.items():
        if name in kind.values and name in {kind_field for _f, kind_field in kind.fields} | {
            f for _t, f, _s, _c in string.Formatter().parse(kind.player or "") if f
        }:
            assert "-".join(map(str, value)) in shown  # type: ignore[call-overload]


def test_a_changed_read_tells_the_player_what_to_check_and_the_host_the_numbers() -> None:
    """The issue's case: "tile 7 read 0-1 (p=0.71) changed to 0-0: a touching half must match
    tile 4 (p=0.99 against 0.00 for 0-1)" reached a player as it is."""
    why = note(messages.MUST_MATCH_TILE, tiles=[4])
    changed = note(
        messages.READ_CHANGED_TOGETHER,
        tile=7, first=(0, 1), p_first=0.71, chosen=(0, 0), why=why, p=0.99, p_other=0.0,
    ).with_params(place="bottom-right")  # fmt: skip
    assert str(changed) == (
        "tile 7 read 0-1 (p=0.71) changed to 0-0: a touching half must match tile 4; with the "
        "halves it touches, 0-0 is the likelier (p=0.99 against 0.00 for 0-1)"
    )
    assert player_text(changed) == "Check the 0-0 at the bottom right: it may be a 0-1."
    assert detail_text(changed) == str(changed)
    with use_language("it"):
        assert "0,99" in detail_text(changed) and "0,71" in detail_text(changed)
        assert "0-0" in player_text(changed) and "0,99" not in player_text(changed)
    assert changed.to_dict()["params"] == {
        "tile": 7,
        "first": [0, 1],
        "p_first": 0.71,
        "chosen": [0, 0],
        "why": {"code": "must_match_tile", "params": {"tiles": [4]}, "text": str(why)},
        "p": 0.99,
        "p_other": 0.0,
        "place": "bottom-right",
    }


def test_a_box_left_out_is_said_by_where_it_lies_not_its_pixels() -> None:
    box = note(messages.BOX_MAY_BE_A_TILE, x=234.0, y=71.0, p=0.49)
    assert str(box).startswith("A box at (234, 71) was left out")
    placed = notes.placed(box, {}, 640, 480)
    assert placed.params["place"] == "top"
    assert player_text(placed) == (
        "Look at the top: something there was taken for no tile, but it may be one."
    )
    assert "(p=0.49)" in detail_text(placed)


def test_a_cut_tile_is_said_one_way_whoever_found_it() -> None:
    border = note(messages.CUT_BY_BORDER, tile=0).with_params(place="left")
    face_down = note(messages.FACE_DOWN_CUT_BY_EDGE, id=0).with_params(place="left")
    assert str(border) != str(face_down)  # the reader's own texts differ...
    for language in LANGUAGES:
        with use_language(language):
            assert player_text(border) == player_text(face_down)  # ...a player reads one


def test_a_warning_without_a_code_is_shown_as_its_text() -> None:
    with use_language("hu"):
        assert player_text("a note from an older Scene") == "a note from an older Scene"
        assert detail_text("a note from an older Scene") == "a note from an older Scene"


def test_place_of_by_thirds_and_its_words() -> None:
    assert notes.place_of((310, 5), 320, 240) == "top-right"
    assert notes.place_of((160, 120), 320, 240) == "middle"
    assert notes.place_of((320, 240), 320, 240) == "bottom-right"
    assert notes.place_words("bottom-left") == "at the bottom left"
    assert notes.place_words(None) == "in the photo"
    with use_language("es"):
        assert notes.place_words("top") != "at the top"


def test_renumbering_moves_the_ids_and_drops_a_note_on_a_tile_gone() -> None:
    back = note(messages.BACK_BOTH_HALVES, tile=3, p=0.9)
    moved = notes.renumbered(back, {3: 1})
    assert moved is not None and moved.params["tile"] == 1 and str(moved).startswith("tile 1:")
    assert notes.renumbered(back, {2: 1}) is None
    changed = note(
        messages.READ_CHANGED, tile=2, first=(1, 2), p_first=0.6, chosen=(1, 1), p=0.3,
        why=note(messages.WENT_TO_TILE, reading=(1, 2), holder=5),
    )  # fmt: skip
    moved = notes.renumbered(changed, {2: 0, 5: 4})
    assert moved is not None and "went to tile 4" in moved and moved.params["tile"] == 0


# --- the producers give codes -------------------------------------------------------------


def test_joint_decoding_gives_codes() -> None:
    tiles = [up(0, {2: 0.9}, {5: 0.95}), up(1, {6: 0.55, 5: 0.4}, {9: 0.9})]
    _out, warnings = joint_decode(tiles, 12, adjacency_constraints=[((0, 1), (1, 0))])
    (changed,) = warnings
    assert isinstance(changed, Note) and changed.code == "read_changed_together"
    assert changed.params["first"] == [6, 9] and changed.params["chosen"] == [5, 9]
    assert changed.params["why"].code == "must_match_tile"
    many = [up(i, {0: 0.9}, {0: 0.9}) for i in range(29)]
    _out, warnings = joint_decode(many, 6)
    assert [w.code for w in warnings if isinstance(w, Note)] == ["too_many_tiles"]


def test_the_review_gives_codes_with_places() -> None:
    cut = SceneTile(
        1, "up", SQUARE + np.array([0, 100]), 0.99, (2, 2), (0.99, 0.99), probability=0.99
    )
    doubtful = replace(
        up_read(0, 5, 6, p=0.55), pips=(5, 6), pip_confidence=(0.55, 0.55), probability=0.4,
        doubtful=True,
    )  # fmt: skip
    scene = Scene(640, 480, [doubtful, cut])
    scene = replace(scene, rejected=[RejectedBox(SQUARE + 300, 0.1, "up", (1, 1))])
    reviewed = review_scene(scene, committed(), 12, rejected_p_tile=[0.45])
    codes = {w.code: w for w in reviewed.notes if isinstance(w, Note)}
    assert {"may_be_misread_could_be", "cut_by_edge", "box_may_be_a_tile"} <= set(codes)
    assert codes["cut_by_edge"].params["place"] == "top-left"
    assert codes["box_may_be_a_tile"].params["place"] == "bottom"
    assert player_text(codes["may_be_misread_could_be"]).startswith("Check the 5-6 at the top")


def test_the_layout_gives_codes() -> None:
    # A line with a tile missed: a group played apart, a tile beyond an open end.
    tiles = []
    for i in [0, 1, 3, 4]:  # 0-1 1-2 (2-3 missed) 3-4 4-5, left to right, 4 px apart
        x = 100 + 84 * i
        corners = np.array([[x - 40, 220], [x - 40, 260], [x + 40, 260], [x + 40, 220]], float)
        tiles.append(SceneTile(len(tiles), "up", corners, 0.95, (i, i + 1), (0.99, 0.99)))
    laid = layout_scene(Scene(900, 600, tiles), LayoutConfig(kind="line"))
    assert all(isinstance(w, Note) for w in laid.warnings)
    assert all(isinstance(d, Note) for d in laid.layout.doubts)
    assert {d.code for d in laid.layout.doubts} == {"played_apart", "tile_beyond_end"}
    apart = next(d for d in laid.to_dict()["layout"]["notes"] if d["code"] == "played_apart")
    assert apart["params"]["tiles"] == [2, 3] and apart["params"]["place"] in PLACE_CODES


# --- the Scene JSON -----------------------------------------------------------------------


def test_the_scene_json_carries_notes_beside_the_warnings_and_reads_old_json() -> None:
    tile = SceneTile(0, "up", SQUARE + np.array([600, 400]), 0.99, (1, 2), (0.99, 0.99))
    cut = note(messages.CUT_BY_BORDER, tile=0)
    scene = Scene(640, 480, [tile], warnings=[cut, "a note from elsewhere"])
    data = json.loads(scene.to_json())
    assert data["warnings"] == ["tile 0 is cut by the image border", "a note from elsewhere"]
    assert data["notes"] == [
        {
            "code": "cut_by_border",
            "params": {"tile": 0, "place": "bottom-right"},
            "text": "tile 0 is cut by the image border",
        },
        {"code": None, "params": {}, "text": "a note from elsewhere"},
    ]
    back = Scene.from_dict(data)
    assert isinstance(back.warnings[0], Note) and back.warnings[0].code == "cut_by_border"
    assert back.to_dict() == data
    old = dict(data)
    del old["notes"]
    legacy = Scene.from_dict(old)
    assert legacy.warnings == data["warnings"]
    assert not any(isinstance(w, Note) for w in legacy.warnings)
    assert [n["code"] for n in legacy.to_dict()["notes"]] == [None, None]


# --- nothing reads a warning's English back ------------------------------------------------


def test_nothing_parses_a_warnings_text_back() -> None:
    assert not hasattr(messages, "shown") and not hasattr(messages, "TEMPLATES")
    # No patterns are left in vision.messages (the camera events are codes too).
    source = (REPO / "vision" / "messages.py").read_text()
    assert "re.compile" not in source and "shown_from" not in source
    for path in [
        "rounds/scene_state.py",
        "rounds/cli.py",
        "server/game/review.py",
        "server/table_scene.py",
        "vision/cli.py",
        "vision/notes.py",
        "vision/pipeline.py",
    ]:
        text = (REPO / path).read_text()
        assert "re.compile" not in text and "messages.match" not in text, path
        assert "shown_warning(" not in text and "DOUBT_MARKERS" not in text, path
        assert '"please check" in' not in text and '"not read" in' not in text, path


def test_a_text_added_without_its_note_leaves_the_others_their_codes() -> None:
    cut = note(messages.CUT_BY_BORDER, tile=0)
    texts = [str(cut), "tile 2-2 is in two hands"]  # the server appended a rules error
    read = notes.with_notes(texts, notes.notes_json([cut]))
    assert isinstance(read[0], Note) and read[0].code == "cut_by_border"
    assert not isinstance(read[1], Note)
    # A note whose text is not the warning's is not taken for it.
    assert not isinstance(notes.with_notes(["edited"], notes.notes_json([cut]))[0], Note)


def test_every_warning_template_has_one_code() -> None:
    templates = [k.template for k in KINDS.values()]
    assert sorted(templates) == sorted(messages.ALL) and len(set(templates)) == len(templates)
    assert notes.ASK_CODES.issubset(KINDS) and notes.DOUBT_CODES.issubset(KINDS)

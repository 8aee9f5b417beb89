"""`studies.review_reasons`: what sends a Scene to review, counted by kind of reason."""

from __future__ import annotations

from dominocam.vision import messages
from dominocam.vision.notes import note
from dominocam.vision.scene import Scene, SceneLayout
from studies.review_reasons import kind_of, tally

MISREAD = note(messages.MAY_BE_MISREAD_COULD_BE, tile=(5, 6), id=3, other=(5, 5))
BEYOND = note(messages.TILE_BEYOND_END, beyond=9, tile=4)
CUT = note(messages.CUT_BY_BORDER, tile=2)  # context, not a reason to ask


def scene(warnings: list[str], doubts: list[str] = (), review: bool = True) -> Scene:
    return Scene(
        640, 480, [], warnings=warnings, needs_review=review, layout=SceneLayout(doubts=doubts)
    )


def test_reasons_are_counted_by_kind_and_the_layout_by_its_doubts():
    found = tally(
        [
            scene([MISREAD, CUT]),
            scene([CUT, BEYOND, note(messages.LAYOUT_DOUBTS)], [BEYOND]),
            scene([MISREAD, BEYOND, note(messages.LAYOUT_DOUBTS)], [BEYOND]),
            scene([MISREAD], review=False),  # read without review: not counted
        ]
    )
    assert found["photos"] == 4 and found["need_review"] == 3
    misread, beyond = kind_of(MISREAD), "layout: " + kind_of(BEYOND)
    assert found["reasons"] == {
        misread: {"photos": 2, "only_reason": 1},
        beyond: {"photos": 2, "only_reason": 1},
    }


def test_a_kind_shows_the_message_with_its_fields_hidden():
    assert kind_of(MISREAD) == "Tile # (##) may be misread (it could be #): please check it"
    assert len(kind_of(BEYOND, width=30)) == 30 and kind_of(BEYOND, width=30).endswith("...")

"""The reader's warnings reach people as words made from their codes (issue 34): a player
reads what to check, the tile by its value and place, in the request's language; the host's
correction screen may open the reader's own account (tile numbers, probabilities); the
Scene JSON keeps its English `warnings` with the codes beside them (`notes`)."""

from __future__ import annotations

from typing import Any

import pytest
from server_factories import ADMIN
from test_server_review import UnsureReader, _ready


class CodedReader(UnsureReader):
    """`UnsureReader` whose table warning is the reader's own: tile 1 read 3-6 and changed
    to 3-5 by the half it touches (issue 34's "tile 7 read 0-1 (p=0.71) changed to 0-0")."""

    def __call__(self, pixels: Any, kind: str, set_max: int) -> dict[str, Any]:
        from dominocam.vision import messages
        from dominocam.vision.notes import note
        from dominocam.vision.scene import Scene

        scene = super().__call__(pixels, kind, set_max)
        if kind != "table" or not self.unsure:
            return scene
        changed = note(
            messages.READ_CHANGED_TOGETHER,
            tile=1, first=(3, 6), p_first=0.71, chosen=(3, 5), p=0.99, p_other=0.0,
            why=note(messages.MUST_MATCH_TILE, tiles=[0]),
        )  # fmt: skip
        read = Scene.from_dict({**scene, "warnings": []})
        read.warnings = [changed]
        return read.to_dict()


@pytest.fixture
def app(make_app):
    return make_app(SCENE_PROVIDER=CodedReader())


def test_a_player_reads_what_to_check_and_the_host_may_open_the_numbers(
    client, game, links
) -> None:
    base = _ready(client, game, links)
    stored = client.get("/api/state").json["round"]["table"]["scene"]
    (entry,) = stored["notes"]
    assert entry["code"] == "read_changed_together" and entry["params"]["place"] == "top-left"
    assert entry["text"] == stored["warnings"][0]  # the English text stays beside its code
    # A player's refusal, in the request's language: the tile by value and place, no numbers.
    r = client.post(f"/api/hand/{links['Ana']}/block-check?lang=es")
    assert r.status_code == 409
    error = r.json["error"]
    assert "Revisa la ficha 3-5 arriba a la izquierda: puede ser la 3-6." in error
    assert "p=" not in error and "0,99" not in error and "ficha 1" not in error
    r = client.post(f"/api/hand/{links['Ana']}/block-check")
    assert "Check the 3-5 at the top left: it may be a 3-6." in r.json["error"]
    shown = client.get("/api/state?lang=it").json["round"]["table"]["warnings_shown"]
    assert shown == ["Controlla la tessera 3-5 in alto a sinistra: potrebbe essere la 3-6."]
    # The host's correction screen: the same sentence, and the reader's own account.
    review = client.get(f"{base}/review?lang=es", headers=ADMIN).json
    assert review["warnings_shown"] == [
        "Revisa la ficha 3-5 arriba a la izquierda: puede ser la 3-6."
    ]
    (details,) = review["warnings_details"]
    assert "0,71" in details and "0,99" in details and "ficha 1" in details
    assert "0,99" not in " ".join(review["warnings_shown"])

"""Issue 34, point 4: the phone page fits its task on a 390x844 phone in every language.

After a hand photo is read, "Confirm my hand" is on the first screen without scrolling; the
count pill ("3 pips · 2 tiles") stays on one line; once the host changes a confirmed hand the
phone no longer shows the photo's old reading beside the new list, and says the host changed
it; the page names the variant by its name, never by its code.
"""

from __future__ import annotations

import io

import pytest
from server_factories import ADMIN, ThreadedServer, fake_scene, jpeg_bytes
from test_server_browser import PHONE, TIMEOUT_MS

from dominocam.i18n import use_language
from dominocam.server.setup_words import variant_title

LANGUAGES = ("en", "hu", "it", "vi", "es")


def _game(client, variant: str = "mexican-train") -> tuple[int, dict[str, str], dict[str, int]]:
    r = client.post(
        "/api/games", json={"name": "Night", "variant": variant, "players": ["Ana", "Ben"]},
        headers=ADMIN,
    )  # fmt: skip
    assert r.status_code == 201, r.json
    gid = r.json["game"]["id"]
    players = client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]
    return gid, {p["name"]: p["token"] for p in players}, {p["name"]: p["id"] for p in players}


def _photo_confirmed(client, token: str) -> None:
    """The stand-in reader reads every hand photo as 1-2 0-0 (fake_scene); Ana confirms it."""
    r = client.post(
        f"/api/hand/{token}/photo",
        data={"photo": (io.BytesIO(jpeg_bytes(300, 600)), "hand.jpg")},
        content_type="multipart/form-data",
    )
    assert r.status_code == 201, r.json
    r = client.put(f"/api/hand/{token}/tiles", json={"tiles": [[1, 2], [0, 0]]})
    assert r.status_code == 200, r.json


def test_a_hand_the_host_changed_no_longer_shows_the_photos_reading(client) -> None:
    """Today's failure: the view kept the photo's Scene (1-2 0-0) beside the host's list and
    said nothing of the change (`photo_replaced` did not exist)."""
    gid, links, ids = _game(client)
    _photo_confirmed(client, links["Ana"])
    me = client.get(f"/api/hand/{links['Ana']}").json["me"]
    assert me["photo_replaced"] is None  # the reading is the hand
    r = client.put(
        f"/api/games/{gid}/rounds/current/hands/{ids['Ana']}",
        json={"tiles": [[1, 2], [0, 5]]},
        headers=ADMIN,
    )
    assert r.status_code == 200, r.json
    me = client.get(f"/api/hand/{links['Ana']}").json["me"]
    assert me["hand"] == [[1, 2], [0, 5]]
    assert me["photo_replaced"] == "host"
    # Ana corrects it herself: her own list replaces the reading.
    r = client.put(f"/api/hand/{links['Ana']}/tiles", json={"tiles": [[1, 2], [0, 6]]})
    assert r.status_code == 200, r.json
    assert client.get(f"/api/hand/{links['Ana']}").json["me"]["photo_replaced"] == "player"


@pytest.mark.slow
def test_the_phone_page_fits_a_390x844_screen_in_every_language(
    browser, make_app, tmp_path
) -> None:
    """Today's failure: "Confirm my hand" lay 1178 to 1309 px down (below the fold) after a
    photo, the pill wrapped onto two lines in Italian and Vietnamese, and the photo kept its
    old labels (1-2, 0-0) after the host's change."""
    from playwright.sync_api import expect

    photo = tmp_path / "hand.jpg"
    photo.write_bytes(jpeg_bytes(300, 600))  # a portrait photo, as a phone takes it
    app = make_app(SCENE_PROVIDER=fake_scene, SSE_MAX_S=30.0)
    client = app.test_client()
    server = ThreadedServer(app)
    errors: list[str] = []
    try:
        expect.set_options(timeout=TIMEOUT_MS)
        for language in LANGUAGES:
            gid, links, ids = _game(client)
            phone = browser.new_context(**PHONE, locale=language).new_page()
            phone.set_default_timeout(TIMEOUT_MS)
            phone.on("pageerror", lambda error: errors.append(str(error)))
            phone.goto(f"{server.url}/hand/{links['Ana']}")
            with use_language(language):
                title = variant_title("mexican-train")
            expect(phone.locator("#round-info")).to_contain_text(title)
            expect(phone.locator("#round-info")).not_to_contain_text("mexican-train")

            phone.set_input_files("#hand-file", str(photo))
            expect(phone.locator("li.hand-tile")).to_have_count(2)
            expect(phone.locator("#scene-wrap g.labels text")).to_have_count(2)
            save = phone.locator("#save").bounding_box()
            assert save and save["y"] >= 0 and save["y"] + save["height"] <= 844, (language, save)
            assert phone.locator("#save").is_enabled()
            pill = phone.evaluate(
                "() => { const p = document.getElementById('total'); "
                "return [p.getBoundingClientRect().height, "
                "parseFloat(getComputedStyle(p).fontSize)]; }"
            )
            assert pill[0] < 1.9 * pill[1], (language, pill)  # one line of text

            phone.click("#save")
            expect(phone.locator("#save-msg.ok")).to_be_visible()
            expect(phone.locator("#photo-replaced")).to_be_hidden()
            r = client.put(
                f"/api/games/{gid}/rounds/current/hands/{ids['Ana']}",
                json={"tiles": [[1, 2], [0, 5]]},
                headers=ADMIN,
            )
            assert r.status_code == 200, r.json
            expect(phone.locator("#photo-replaced")).to_be_visible()
            expect(phone.locator("#scene-wrap img")).to_be_visible()  # the photo stays
            expect(phone.locator("#scene-wrap g.labels")).to_have_count(0)  # its reading not
            values = phone.locator("li.hand-tile select").evaluate_all(
                "els => els.map(e => +e.value)"
            )
            assert values == [1, 2, 0, 5], (language, values)
            phone.context.close()
    finally:
        server.close()
    assert not errors, errors

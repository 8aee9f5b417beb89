"""The phone page and the overlays in Debian's chromium, on a real web process."""

from __future__ import annotations

import json
import uuid

import pytest

pytest.importorskip("celery", reason="needs the `tournament` extra (make test-tournament)")
pytest.importorskip("waitress", reason="needs the `tournament` extra (make test-tournament)")

from tournament_factories import WebProcess, free_port

pytestmark = pytest.mark.tournament

TIMEOUT_MS = 20000
NAME = "<b>Zed</b>"  # markup in a name must show as text


@pytest.fixture
def page(browser):
    context = browser.new_context()
    yield context.new_page()
    context.close()


def test_phone_page_and_overlays_follow_the_table(
    page, make_event, redis_client, tmp_path, urls
) -> None:
    """A player saves their hand on the phone page; the table's overlay shows tile counts
    (never tiles), the open ends of a Scene published for the table, and the round's points
    once it ends; the event's overlay shows the standings."""
    from dominocam.tournament import frames

    data = {
        "event": f"pages-{uuid.uuid4().hex[:8]}",
        "variant": "block",
        "players": ["Ana", NAME],
        "tables": [{"id": "t1", "name": "Table 1", "seats": ["Ana", NAME]}],
    }
    config, tokens = make_event(data)
    path = tmp_path / "event.json"
    path.write_text(json.dumps(config.to_json()))
    web = WebProcess(urls, path, free_port(), tmp_path / "web.log")
    web.start()
    try:
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{web.url}/hand/{tokens.players['Ana']}")
        page.wait_for_function("() => document.getElementById('title').textContent.includes('Ana')")
        page.fill("#tiles", "0-1")
        page.click("#save")
        page.wait_for_function(
            "() => document.getElementById('message').textContent.includes('Saved')"
        )
        page.wait_for_function("() => document.getElementById('hand').textContent === 'Saved: 0-1'")

        overlay = page.context.new_page()
        overlay.set_default_timeout(TIMEOUT_MS)
        overlay.goto(f"{web.url}/tables/t1/overlay")
        overlay.wait_for_function(
            "() => document.getElementById('seats').textContent.includes('Ana: 1 tile')"
        )
        assert f"{NAME}: no hand yet" in overlay.text_content("#seats")
        assert overlay.locator("#seats b").count() == 0  # the name stayed text

        scene = {"layout": {"open_ends": [5, 4]}, "face_down": 2, "tiles": []}
        message = {"kind": "scene", "table": "t1", "seq": 1, "scene": scene}
        redis_client.publish(frames.channel(tokens.event_id, "t1"), json.dumps(message))
        overlay.wait_for_function(
            "() => document.getElementById('ends').textContent.includes('Open ends: 5, 4')"
        )
        assert "face down: 2" in overlay.text_content("#ends")

        put = page.request.put(
            f"{web.url}/api/hand",
            data=json.dumps({"tiles": [[6, 6], [2, 3]]}),
            headers={
                "Authorization": f"Bearer {tokens.players[NAME]}",
                "Content-Type": "application/json",
            },
        )
        assert put.ok
        overlay.wait_for_function(
            "() => document.getElementById('seats').textContent.includes('2 tiles')"
        )
        assert "6-6" not in overlay.content() and "[6,6]" not in overlay.content()

        ended = page.request.post(
            f"{web.url}/api/tables/t1/rounds/current/end",
            data=json.dumps(
                {
                    "ended_by": "block",
                    "proposer": "Ana",
                    "layout": {
                        "lines": [{"name": "left", "open_end": 5}, {"name": "right", "open_end": 4}]
                    },
                }
            ),
            headers={"Authorization": f"Bearer {tokens.admin}", "Content-Type": "application/json"},
        )
        assert ended.ok, ended.text()
        overlay.wait_for_function(
            "() => document.getElementById('result').textContent.includes('Round 1: Ana +17')"
        )
        assert "round 2" in overlay.text_content("#title")

        event = page.context.new_page()
        event.set_default_timeout(TIMEOUT_MS)
        event.goto(f"{web.url}/overlay")
        event.wait_for_function("() => document.getElementById('players').children.length === 2")
        assert event.text_content("#players li:first-child") == "Ana (t1): 17"
    finally:
        web.stop()


def test_host_page_shows_seat_qr_codes_and_confirms_the_round(
    page, make_event, tmp_path, urls
) -> None:
    """The table's host opens their page: a seat's new link shows as a QR code (and the
    link opens that player's page); a block proposed from a phone waits on the host's page
    until "Confirm and score", then the standings move; "Reopen" takes the points back.
    The director's page lists the tables and makes a host link with its QR code."""
    data = {
        "event": f"host-{uuid.uuid4().hex[:8]}",
        "variant": "block",
        "players": ["Ana", "Ben"],
        "tables": [{"id": "t1", "name": "Table 1", "seats": ["Ana", "Ben"]}],
    }
    config, tokens = make_event(data)
    path = tmp_path / "event.json"
    path.write_text(json.dumps(config.to_json()))
    web = WebProcess(urls, path, free_port(), tmp_path / "web.log")
    web.start()
    try:
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{web.url}/host/{tokens.hosts['t1']}")
        page.wait_for_function(
            "() => document.getElementById('title').textContent.includes('round 1')"
        )
        page.click("#seat-1 button.link")
        page.wait_for_selector("#seat-1 .qr img")
        link = page.text_content("#seat-1 .qr a")
        assert link.startswith(f"{web.url}/hand/1") or "/hand/" in link

        phone = page.context.new_page()
        phone.set_default_timeout(TIMEOUT_MS)
        phone.goto(link)
        phone.wait_for_function(
            "() => document.getElementById('title').textContent.includes('Ana')"
        )
        phone.fill("#tiles", "0-1")
        phone.click("#save")
        phone.wait_for_function(
            "() => document.getElementById('hand').textContent === 'Saved: 0-1'"
        )

        page.fill("#seat-2 input.tiles", "6-6 2-3")
        page.click("#seat-2 button:has-text('Enter')")
        page.wait_for_function(
            "() => document.getElementById('message').textContent.includes('Ben: 2 tiles')"
        )
        page.fill("#ends", "5 4")
        page.select_option("#proposer", "Ana")
        page.click("#block")
        page.wait_for_function(
            "() => document.getElementById('pending').textContent.includes('Blocked')"
        )
        assert not page.is_hidden("#score")
        standings = page.context.request.get(f"{web.url}/api/standings").json()
        assert standings["players"][0]["total"] == 0  # held: not scored yet

        page.click("#score")
        page.wait_for_function(
            "() => document.getElementById('message').textContent.includes('Round scored')"
        )
        standings = page.context.request.get(f"{web.url}/api/standings").json()
        assert standings["players"][0] == {
            "rank": 1,
            "name": "Ana",
            "total": 17,
            "table": "t1",
            "team": None,
        }

        page.fill("#reason", "Ben had one more tile")
        page.click("#reopen")
        page.wait_for_function(
            "() => document.getElementById('message').textContent.includes('open again')"
        )
        standings = page.context.request.get(f"{web.url}/api/standings").json()
        assert standings["players"][0]["total"] == 0
        page.wait_for_function(
            "() => document.getElementById('audit').textContent.includes('Ben had one more tile')"
        )

        director = page.context.new_page()
        director.set_default_timeout(TIMEOUT_MS)
        director.goto(f"{web.url}/director/{tokens.admin}")
        director.wait_for_function(
            "() => document.querySelector('tr[data-table=t1] .state').textContent !== ''"
        )
        director.click("button.host-link")
        director.wait_for_selector("#qr-t1 img")
        new_host = director.text_content("#qr-t1 a")
        assert "/host/h1." in new_host
        old = page.context.request.get(f"{web.url}/host/{tokens.hosts['t1']}")
        assert old.status == 403  # the old host link is revoked
    finally:
        web.stop()

"""A tournament table's host resolves a round that does not add up on a phone-size host page
(issue 32, as single-table mode's correction screen): the set as a grid, the problems tile
by tile, a tile taken out of a hand with a reason, the host's word with a reason, and the
round scored; a player's phone reads only that the table host is checking.

Headless Debian chromium driven by Playwright (`scripts/install-browser.sh`), against the
event's web app served by the web process's own server (`served`) on real Redis and
PostgreSQL. The screenshot is kept in $DOMINOCAM_ARTIFACTS (default: this test's tmp dir).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

pytest.importorskip("psycopg", reason="needs the `tournament` extra (make test-tournament)")
pytest.importorskip("waitress", reason="needs the `tournament` extra (make test-tournament)")

from test_tournament_ledger import BLOCKED_TABLE, CAMERA_SCENE, P1_HAND, P2_HAND
from tournament_factories import bearer

pytestmark = [pytest.mark.tournament, pytest.mark.slow]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}
TIMEOUT_MS = 15000
# Ana's photo missed her 1-2; Ben still lists the 6-6 he played (the camera reads it).
ANA = [t for t in P1_HAND if t != [1, 2]]
BEN = [[6, 6], *P2_HAND]


def test_the_table_host_resolves_a_round_that_does_not_add_up_on_a_phone(
    browser, make_event, served, db, tmp_path
) -> None:
    from playwright.sync_api import expect

    from dominocam.tournament import store

    shots = Path(os.environ.get("DOMINOCAM_ARTIFACTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    _, tokens = make_event(
        {
            "event": f"ledger-{uuid.uuid4().hex[:8]}",
            "variant": "block",
            "set": 6,
            "players": ["Ana", "Ben"],
            "tables": [{"id": "t1", "name": "Table 1", "seats": ["Ana", "Ben"]}],
        }
    )
    url, client = served(tokens.event_id)
    store.store_scene(db, tokens.event_id, "t1", 1, CAMERA_SCENE, sent_at=0, read_s=0, worker="t")
    ana, ben = tokens.players["Ana"], tokens.players["Ben"]
    host = bearer(tokens.hosts["t1"])
    assert client.put("/api/hand", json={"tiles": ANA}, headers=bearer(ana)).status_code == 200
    assert client.put("/api/hand", json={"tiles": BEN}, headers=bearer(ben)).status_code == 200
    table = {"layout": BLOCKED_TABLE}
    assert client.put("/api/tables/t1/table", json=table, headers=host).status_code == 200
    # Ana proposes a block: held for the table host's check.
    assert client.post("/api/hand/propose", headers=bearer(ana)).status_code == 409

    expect.set_options(timeout=TIMEOUT_MS)
    # A player's phone: the host is checking; nothing says which tile or whose hand.
    phone = browser.new_context(**PHONE).new_page()
    phone.goto(f"{url}/hand/{ana}")
    expect(phone.locator("#checking")).to_have_text(
        "A tile needs checking before a ruling: the table host is checking the round."
    )
    shown = phone.locator("body").inner_text()
    assert "6-6" not in shown and "Ben's hand" not in shown and "two places" not in shown
    # Ben's phone names his own tile that the table shows.
    ben_phone = browser.new_context(**PHONE).new_page()
    ben_phone.goto(f"{url}/hand/{ben}")
    expect(ben_phone.locator("#on-table")).to_have_text(
        "6-6 is now on the table: take it out of your hand and confirm."
    )

    # The table host, on a phone: the ledger of the held ruling.
    page = browser.new_context(**PHONE).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{url}/host/{tokens.hosts['t1']}")
    expect(page.locator("#pending")).to_have_text(
        "Ana proposed a block. The table host checks the round before it is ruled."
    )
    expect(page.locator("#ledger-summary")).to_have_text("The round does not add up.")
    expect(page.locator("#ledger-waits li").first).to_have_text(
        "The round does not add up: correct the table or a hand, or score it on your word "
        "with a reason."
    )
    problems = page.locator("#ledger-problems li")
    expect(problems.first).to_have_text(
        "6-6 is in two places: on the table and in Ben's hand. Remove from Ben's hand"
    )
    # The set as a picture: 28 tiles in a 7x7 upper triangle, coloured by place.
    expect(page.locator("#ledger-grid button.cell")).to_have_count(28)
    expect(page.locator("#ledger-grid .cell.k-hand")).to_have_count(12)
    twice = page.locator("#ledger-grid .cell[data-tile='6-6']")
    expect(twice).to_have_class("cell k-twice problem")
    expect(page.locator("#ledger-legend li")).to_have_count(6)
    # It fits the phone: nothing wider than 390 px, cells big enough to tap.
    box = page.locator("#ledger-grid").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    cell = twice.bounding_box()
    assert cell is not None and cell["width"] >= 24
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    twice.click()
    expect(page.locator("#ledger-cell")).to_have_text("6-6: in two places (the table, Ben's hand)")
    expect(page.locator("#boneyard-form")).to_be_hidden()  # Block never draws
    page.locator("#ledger").screenshot(path=str(shots / "tournament-ledger.png"))
    page.screenshot(path=str(shots / "tournament-host-page.png"), full_page=True)

    # The host takes 6-6 out of Ben's hand, with a reason.
    page.click("#ledger-problems button[data-player=Ben]")
    expect(page.locator("#ledger-message")).to_have_text(
        "Write the reason first (kept in the audit trail)."
    )
    page.fill("#ledger-reason", "6-6 was played")
    page.click("#ledger-problems button[data-player=Ben]")
    expect(page.locator("#ledger-message")).to_have_text("6-6 removed from Ben's hand.")
    expect(twice).to_have_class("cell k-table")
    # Ana's 1-2 is still not in her hand: a tile was missed. The host rules on their word.
    expect(problems).to_have_count(1)
    expect(problems.first).to_contain_text("a tile was missed")
    page.fill("#ledger-reason", "Ana's last tile is under her phone")
    page.click("#override")
    expect(page.locator("#override-note")).to_contain_text(
        "Ruled on your word: Ana's last tile is under her phone"
    )
    expect(page.locator("#override")).to_be_hidden()
    page.click("#score")
    expect(page.locator("#message")).to_have_text("Round scored: Ana 34")
    expect(page.locator("#ledger-summary")).to_have_text(
        "Nothing read contradicts the set of 28 tiles (not every count is known)."
    )  # round 2's ledger
    expect(page.locator("#audit")).to_contain_text("Ana's last tile is under her phone")

    # The round's result says what was overridden and why.
    ended = client.get("/api/tables/t1").get_json()["rounds"][0]
    assert ended["status"] == "ended" and ended["result"]["points"] == {"Ana": 34}
    assert ended["ledger"]["text"] == (
        "Scored on the host's word, though the round did not add up: Ana's last tile is "
        "under her phone"
    )
    expect(phone.locator("#checking")).to_be_hidden()

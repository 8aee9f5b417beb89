"""End to end in Debian's chromium (headless, driven by playwright), with the real vision
runtime and the bundled models: set up a game, upload a rendered table photo and two rendered
hand photos, correct them, propose a block, read winner and points.

The photos are rendered by dominosynth at a fixed seed. The models are not perfect, so the test
never assumes what they see: it reads the same photos with `dominocam.vision.pipeline` itself to
know what the pages must show, drives the corrections to a known state through the pages, and judges
that state with the rules engine to know the verdict, winner and points the pages must show.

Screenshots are kept in $DOMINOCAM_ARTIFACTS (default: this test's tmp dir); with
DOMINOCAM_UPDATE_SCREENSHOTS=1 they also replace docs/screenshots/. Install the browser with
scripts/install-browser.sh (never `playwright install`).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from server_factories import ADMIN_TOKEN, ThreadedServer, rendered_photo, runtime_scene

from dominocam import rules
from dominocam.rounds.scene_state import hand_tiles, layout_lines
from dominocam.server import game as server_game
from dominocam.server.db import get_db

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SET_MAX = 6
TIMEOUT_MS = 15000


def _tile_text(pips: list[int]) -> str:
    return f"{pips[0]}-{pips[1]}"


def _ends_text(ends: list[int]) -> str:
    """How the table page writes open ends."""
    return ", ".join(map(str, ends)) if ends else "none"


def _table_correction(scene: dict[str, Any]) -> tuple[int, int, list[int]]:
    """The correction the test makes on the runtime's table: (tile, k, open ends after it).

    The end tile of the longest line is set to the double k-k (a double nobody read on the
    table), so that line's open end becomes k; the other lines keep theirs.
    """
    lines = [
        line
        for line in scene["layout"]["lines"]
        if isinstance((line.get("open_end") or {}).get("value"), int)
    ]
    assert lines, "the bundled models read no line on the rendered table photo"
    longest = max(lines, key=lambda line: len(line["tiles"]))
    tile = longest["open_end"]["tile"]
    doubles = {t["pips"][0] for t in scene["tiles"] if t["pips"] and t["pips"][0] == t["pips"][1]}
    k = next((v for v in range(SET_MAX, -1, -1) if v not in doubles), SET_MAX)
    ends = [k if line["open_end"]["tile"] == tile else line["open_end"]["value"] for line in lines]
    return tile, k, ends


# A point of a tile's outline that no other outline covers, in viewport pixels: the models may
# find boxes that overlap, and a person clicks the part of the tile they can reach.
VISIBLE_POINT_JS = """id => {
  const poly = document.querySelector(`#scene-wrap polygon[data-tile='${id}']`);
  poly.scrollIntoView({block: "center"});
  const ctm = poly.getScreenCTM(), corners = Array.from(poly.points);
  const cx = corners.reduce((s, p) => s + p.x, 0) / 4;
  const cy = corners.reduce((s, p) => s + p.y, 0) / 4;
  for (const t of [0, 0.3, 0.5, 0.7, 0.85]) {
    for (const c of corners) {
      const pt = new DOMPoint(cx + t * (c.x - cx), cy + t * (c.y - cy)).matrixTransform(ctm);
      if (document.elementFromPoint(pt.x, pt.y) === poly) return [pt.x, pt.y];
    }
  }
  return null;
}"""


def _choose_tile(page, tile: int) -> None:
    """Click the tile's outline where it can be reached, else pick it from the tile list."""
    point = page.evaluate(VISIBLE_POINT_JS, tile)
    if point:
        page.mouse.click(*point)
    else:
        page.select_option("#tile-pick", str(tile))
    assert page.input_value("#tile-pick") == str(tile)


def _hand_page_tiles(hand) -> list[list[int]]:
    values = hand.locator("li.hand-tile select").evaluate_all("els => els.map(e => e.value)")
    return [[int(a), int(b)] for a, b in zip(values[::2], values[1::2], strict=True)]


def _svg_labels(page) -> list[str]:
    return sorted(page.locator("#scene-wrap svg text").all_text_contents())


@pytest.mark.slow
def test_game_night_in_a_browser(browser, make_app, tmp_path) -> None:
    from playwright.sync_api import expect

    shots = Path(os.environ.get("DOMINOCAM_ARTIFACTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)

    # The photos, and what the real runtime reads in them.
    photos = {"table": rendered_photo("table", 0)}
    photos.update(Ana=rendered_photo("hand", 1), Ben=rendered_photo("hand", 2))
    for name, data in photos.items():
        (tmp_path / f"{name}.jpg").write_bytes(data)
    table = runtime_scene(photos["table"], "table", SET_MAX, "block", players=2)
    read_hands = {
        name: hand_tiles(runtime_scene(photos[name], "hand", SET_MAX)) for name in ("Ana", "Ben")
    }
    read_ends = [line["open_end"] for line in layout_lines(table)]
    tile, k, ends = _table_correction(table)

    # The hands the players correct their photos to: nothing fits an open end, so the block
    # holds; the rules engine says who wins and how much.
    free = [v for v in range(SET_MAX + 1) if v not in ends]
    assert len(free) >= 3, f"open ends {ends} leave too few values for blocked hands"
    f0, f1, f2 = free[:3]
    targets = {"Ana": [[f0, f1], [f2, f2]], "Ben": [[f0, f2], [f1, f1]]}

    app = make_app(SSE_MAX_S=30.0)  # no SCENE_PROVIDER: the bundled models read the photos
    server = ThreadedServer(app)
    url = server.url
    try:
        desk = browser.new_context(viewport={"width": 1366, "height": 768})  # a laptop
        page = desk.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        expect.set_options(timeout=TIMEOUT_MS)
        page.goto(f"{url}/login?next=/setup")
        page.fill("input[name=token]", ADMIN_TOKEN)
        page.click("button[type=submit]")
        page.wait_for_selector("#variant option[value=block]", state="attached")
        page.select_option("#variant", "block")
        page.select_option("#set", str(SET_MAX))
        page.fill("#players", "Ana\nBen")
        page.click("#create-game")
        page.wait_for_url("**/games/*/players")  # the links come next
        page.click("#to-table")
        page.wait_for_url("**/games/*")
        game_url = page.url
        game_id = int(game_url.rstrip("/").rsplit("/", 1)[1])

        # The table photo: every tile the runtime found outlined and labelled, its open ends.
        page.set_input_files("#table-file", str(tmp_path / "table.jpg"))
        expect(page.locator("#upload-msg.ok")).to_have_text(f"Read {len(table['tiles'])} tiles.")
        expect(page.locator("#scene-wrap svg polygon")).to_have_count(len(table["tiles"]))
        expect(page.locator("#open-ends")).to_have_text(_ends_text(read_ends))
        expect(page.locator("#face-down")).to_have_text(str(table["face_down"]))
        up = [t for t in table["tiles"] if t["face"] == "up" and t["pips"]]
        expect(page.locator("#scene-wrap g.labels")).to_have_count(len(up))  # once laid out
        assert _svg_labels(page) == sorted(_tile_text(t["pips"]) for t in up)

        # Correct the end tile of the longest line to k-k: that open end becomes k.
        page.goto(game_url + "/correct")
        page.wait_for_selector(f"polygon[data-tile='{tile}']")
        _choose_tile(page, tile)
        expect(page.locator("#tile-label")).to_have_text(f"Tile {tile}")
        page.fill("#tile-a", str(k))
        page.fill("#tile-b", str(k))
        page.click("#tile-form button[type=submit]")
        expect(page.locator("#msg.ok")).to_have_text(f"Tile {tile} is now {k}-{k}.")
        page.goto(game_url)
        expect(page.locator("#open-ends")).to_have_text(_ends_text(ends))
        expect(page.locator(f"polygon[data-tile='{tile}'].corrected")).to_have_count(1)

        # Player links with QR codes.
        page.goto(game_url + "/players")
        page.wait_for_selector("figure.player-link img")
        hrefs = {
            fig.get_attribute("data-player"): fig.query_selector("a.hand-link").get_attribute(
                "href"
            )
            for fig in page.query_selector_all("figure.player-link")
        }
        page.screenshot(path=str(shots / "players.png"), full_page=True)

        # Two phones: photo, check what was read, correct to the target hand, save.
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
        for name in ("Ana", "Ben"):
            read, target = read_hands[name], targets[name]
            hand = phone.new_page()
            hand.set_default_timeout(TIMEOUT_MS)
            hand.goto(hrefs[name])
            hand.set_input_files("#hand-file", str(tmp_path / f"{name}.jpg"))
            expect(hand.locator("#upload-msg.ok")).to_contain_text(f"Found {len(read)} tiles.")
            expect(hand.locator("li.hand-tile")).to_have_count(len(read))
            assert _hand_page_tiles(hand) == read
            pips = sum(a + b for a, b in read)
            expect(hand.locator("#total")).to_have_text(f"{pips} pips · {len(read)} tiles")
            # Fix the first tile's halves, remove the others, add what the photo missed.
            rest = target
            if read:
                first = hand.locator("li.hand-tile").first.locator("select")
                first.nth(0).select_option(str(target[0][0]))
                first.nth(1).select_option(str(target[0][1]))
                rest = target[1:]
            while hand.locator("li.hand-tile").count() > len(target) - len(rest):
                hand.locator("li.hand-tile button").last.click()
            hand.fill("#add-tile", " ".join(map(_tile_text, rest)))
            hand.click("#add-form button")
            assert _hand_page_tiles(hand) == target
            hand.click("#save")
            pips = sum(a + b for a, b in target)
            expect(hand.locator("#save-msg.ok")).to_have_text(
                f"Saved: {len(target)} tiles, {pips} pips."
            )
            if name == "Ana":
                hand.screenshot(path=str(shots / "phone.png"), full_page=True)

        # The state the server judges is the known one; the rules engine gives the verdict.
        with app.app_context():
            state = server_game.game_state_for_rules(get_db(), game_id)
        assert [line["open_end"] for line in state["layout"]["lines"]] == ends
        assert {p["name"]: p["hand"] for p in state["players"]} == targets
        assert state["boneyard"] == 0
        verdict = rules.check(rules.parse_state(dict(state, proposer="Ben"))).to_json()
        assert verdict["blocked"] and verdict["winner"], verdict
        winner = verdict["winner"]

        # Propose the block at the table and read the result off the page.
        page.goto(game_url)
        page.wait_for_selector("#proposer option[value=Ben]", state="attached")
        page.select_option("#proposer", "Ben")
        page.once("dialog", lambda dialog: dialog.accept())  # "Ben proposes a block?"
        page.click("#propose-block")
        # A rendered table photo and two hands are no real round: the round's ledger holds the
        # block for the host, who scores it on their word on the correction screen (issue 32).
        expect(page.locator("#block-result.error")).to_contain_text("does not add up")
        page.click("#check-link a")
        page.fill("#override-reason", "a rendered table photo")
        page.click("#override")
        expect(page.locator("#override-note")).to_contain_text("Scored on your word")
        page.click("#ledger-score")
        expect(page.locator("#ledger-msg.ok")).to_have_text("The round is scored.")
        page.goto(game_url)
        steps = [f"{s['player']} confirms: cannot play" for s in verdict["verification"]]
        expect(page.locator("#steps li")).to_have_text(steps)
        page.wait_for_selector("#block-result.ok")  # shown after the last confirmation
        page.wait_for_selector("#result-card:not([hidden])")
        assert page.text_content("#winner").startswith(f"Winner: {winner}")
        for name in ("Ana", "Ben"):
            row = page.locator(f"#result-rows tr[data-player={name}]")
            expect(row.locator("td").nth(1)).to_have_text(" ".join(map(_tile_text, targets[name])))
            expect(row.locator("td.pips")).to_have_text(str(verdict["pip_totals"][name]))
            points = verdict["points"].get(name)
            expect(row.locator("td.points")).to_have_text("" if points is None else str(points))
            total = page.locator(f"#scoreboard-table [data-total={name}]")
            expect(total).to_have_text(str(points or 0))
        page.screenshot(path=str(shots / "dashboard.png"))  # the one screen the host sees

        # Ana's phone now shows the revealed hands.
        hand.goto(hrefs["Ana"])
        hand.wait_for_selector("#result:not([hidden])")
        assert f"Winner: {winner}" in hand.text_content("#winner")

        # The overlay: transparent 1920x1080.
        obs = browser.new_context(viewport={"width": 1920, "height": 1080})
        overlay = obs.new_page()
        overlay.goto(f"{url}/overlay?show=ends,tiles,scores&corner=br")
        expect(overlay.locator(".end").first).to_contain_text(str(ends[0]))
        assert overlay.text_content(".end").startswith(str(ends[0]))
        expect(overlay.locator("#round-result")).to_contain_text(winner)
        overlay.screenshot(path=str(shots / "overlay.png"), omit_background=True)
        # The polling fallback gives the same picture without EventSource.
        overlay.goto(f"{url}/overlay?show=ends&poll=1")
        expect(overlay.locator(".end")).to_have_count(len(ends))
    finally:
        server.close()
    if os.environ.get("DOMINOCAM_UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        # dashboard.png, phone.png and mexican.png come from the game night walk
        # (test_server_game_night_browser.py).
        for name in ("overlay.png", "players.png"):
            shutil.copy(shots / name, DOCS / name)
    print(f"screenshots in {shots}")


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}


@pytest.mark.slow
def test_hand_lifecycle_lock_audit_and_undo_on_a_phone(browser, make_app, tmp_path) -> None:
    """On 390x844 pages: a photo's reading is confirmed before the hand is in, a new photo
    never replaces it silently, a proposal that stops locks nothing, a block that holds
    waits for the host and locks every hand (the phone says why), the audit trail names the
    change (tiles only once the round is over), and the host reopens the round."""
    from playwright.sync_api import expect
    from server_factories import ADMIN, fake_scene, jpeg_bytes

    shots = Path(os.environ.get("DOMINOCAM_ARTIFACTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(jpeg_bytes(320, 240))
    # The stand-in reader reads every hand photo as 1-2 0-0 (fake_scene).
    app = make_app(SCENE_PROVIDER=fake_scene, SSE_MAX_S=30.0)
    client = app.test_client()
    r = client.post(
        "/api/games", json={"variant": "block", "players": ["Ana", "Ben", "Caro"]}, headers=ADMIN
    )
    gid = r.json["game"]["id"]
    lines = [{"name": "left", "open_end": 3}, {"name": "right", "open_end": 5}]
    client.put(f"/api/games/{gid}/rounds/current/layout", json={"lines": lines}, headers=ADMIN)
    links = {p["name"]: p["token"] for p in
             client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]}  # fmt: skip
    client.put(f"/api/hand/{links['Ben']}/tiles", json={"tiles": [[3, 6], [1, 1]]})
    client.put(f"/api/hand/{links['Caro']}/tiles", json={"tiles": [[2, 2]]})
    server = ThreadedServer(app)
    try:
        phone = browser.new_context(**PHONE)
        ana = phone.new_page()
        ana.set_default_timeout(TIMEOUT_MS)
        expect.set_options(timeout=TIMEOUT_MS)
        ana.goto(f"{server.url}/hand/{links['Ana']}")
        expect(ana.locator("#hand-status")).to_contain_text("Not in yet")

        # Photo -> reading -> Ana corrects 0-0 to 0-4 and confirms; only then is it in.
        ana.set_input_files("#hand-file", str(photo))
        expect(ana.locator("#upload-msg.ok")).to_contain_text("Found 2 tiles")
        expect(ana.locator("#hand-status")).to_contain_text("Read from your photo")
        assert client.get(f"/api/games/{gid}/state").json["players"][0]["hand_status"] == (
            "unconfirmed"
        )
        ana.locator("li.hand-tile").nth(1).locator("select").nth(1).select_option("4")
        ana.click("#save")
        expect(ana.locator("#save-msg.ok")).to_have_text("Saved: 2 tiles, 7 pips.")
        expect(ana.locator("#hand-status")).to_contain_text("Your hand is in (confirmed)")

        # A new photo waits for confirmation; Ana keeps her confirmed hand.
        ana.set_input_files("#hand-file", str(photo))
        expect(ana.locator("#discard")).to_be_visible()
        expect(ana.locator("#hand-status")).to_contain_text("confirmed hand stays as it was")
        ana.click("#discard")
        expect(ana.locator("#save-msg.ok")).to_have_text("Kept your confirmed hand.")
        assert _hand_page_tiles(ana) == [[1, 2], [0, 4]]

        # Ana changes her confirmed hand: the trail says so at once, without the tiles.
        ana.locator("li.hand-tile button").last.click()
        ana.click("#save")
        expect(ana.locator("#save-msg.ok")).to_have_text("Saved: 1 tile, 3 pips.")
        expect(ana.locator("#audit li[data-action=hand]")).to_have_text(
            re.compile(r"Ana changed Ana's confirmed hand \(2 tiles, now 1\)")
        )

        # Ana proposes a block (the page asks first): Ben can play, so nothing locks (issue
        # 33: a refused proposal freezes nobody); play goes on.
        ana.once("dialog", lambda dialog: dialog.accept())
        ana.click("#propose")
        expect(ana.locator("#block-result.error")).to_have_text("Not blocked: Ben can play.")
        expect(ana.locator("#locked")).to_have_text("")
        expect(ana.locator("#save")).to_be_enabled()
        expect(ana.locator("#locked-why")).to_be_hidden()
        ben = phone.new_page()
        ben.goto(f"{server.url}/hand/{links['Ben']}")
        expect(ben.locator("#can-play")).to_have_text(
            re.compile(r"You can play (3-6|6-3) on “left” \(open end 3\)\.")
        )
        # Play goes on: every hand is confirmed again before the next ruling (issue 32).
        expect(ana.locator("#hand-status")).to_contain_text(
            "Play went on since you confirmed your hand"
        )
        ana.click("#reconfirm")
        expect(ana.locator("#save-msg.ok")).to_have_text("Confirmed again: 1 tile, 3 pips.")
        assert client.post(f"/api/hand/{links['Caro']}/confirm").status_code == 200
        client.put(f"/api/hand/{links['Ben']}/tiles", json={"tiles": [[1, 1]]})
        client.put(
            f"/api/games/{gid}/rounds/current/layout",
            json={"lines": [{"name": "left", "open_end": 6}, {"name": "right", "open_end": 5}]},
            headers=ADMIN,
        )
        # Caro proposes from her phone: the block holds, so it waits for the table host and
        # every hand locks; Ana's phone says so in words and greys out what she cannot do.
        r = client.post(f"/api/hand/{links['Caro']}/block-check", json={"confirm": True})
        assert r.status_code == 200 and r.json["outcome"]["awaiting_confirmation"], r.json
        expect(ana.locator("#locked")).to_contain_text("The table host is checking")
        expect(ana.locator("#save")).to_be_disabled()
        expect(ana.locator("#locked-why")).to_have_text(
            "Your hand is locked while the host checks the ruling."
        )
        assert ana.locator("#propose").evaluate("b => getComputedStyle(b).opacity") == "0.45"
        ana.screenshot(path=str(shots / "phone-locked.png"), full_page=True)

        # The host, on a phone too, sees the held block and scores it; the trail now shows
        # the tiles.
        host = browser.new_context(**PHONE).new_page()
        host.set_default_timeout(TIMEOUT_MS)
        host.goto(f"{server.url}/login?next=/games/{gid}")
        host.fill("input[name=token]", ADMIN_TOKEN)
        host.click("button[type=submit]")
        host.wait_for_url(f"**/games/{gid}")
        expect(host.locator("#locked")).to_contain_text("Caro's block")
        expect(host.locator("#cancel-ruling")).to_be_visible()
        host.once("dialog", lambda dialog: dialog.accept())  # "Score the round now?"
        host.click("#score-round")
        host.wait_for_selector("#result-card:not([hidden])")
        expect(host.locator("#audit")).to_contain_text("1-2 0-4 (7 pips) became 1-2 (3 pips)")
        expect(host.locator("#scoreboard-table tr")).to_have_count(3)  # head, round 1, total
        host.screenshot(path=str(shots / "phone-audit.png"), full_page=True)

        # Undo: the host reopens the round; its points leave the scoreboard.
        host.click("#undo summary")
        host.once("dialog", lambda dialog: dialog.accept("Caro's 2-2 was a 2-3"))
        host.click("#reopen")
        expect(host.locator("#undo-msg.ok")).to_have_text("Done.")
        expect(host.locator("#result-card")).to_be_hidden()
        expect(host.locator("#scoreboard-table tr")).to_have_count(2)
        expect(host.locator("#audit li[data-action=reopen]")).to_contain_text(
            "the host reopened round 1"
        )
        expect(ana.locator("#locked")).to_contain_text("Hands are locked")
    finally:
        server.close()


@pytest.mark.slow
def test_the_correction_screen_shows_what_to_check(browser, make_app, tmp_path) -> None:
    """A doubtful reading, a rejected box and a tile in two hands, fixed on the host's
    correction screen; the table page marks the doubtful tile and names no hand's tile."""
    from playwright.sync_api import expect
    from server_factories import ADMIN, fake_scene, jpeg_bytes

    from dominocam.vision import messages
    from dominocam.vision.notes import note, notes_json

    # The reader's warning on tile 1 (3-5, at the top left of the stand-in photo).
    misread = note(messages.MAY_BE_MISREAD_COULD_BE, tile=(3, 5), id=1, other=(3, 6))

    def unsure(pixels, kind, set_max):
        scene = fake_scene(pixels, kind, set_max)
        if kind == "table":
            scene["tiles"][1]["doubtful"] = True
            scene["needs_review"] = True
            scene["warnings"] = [str(misread)]
            scene["notes"] = notes_json([misread.with_params(place="top-left")])
            h, w = pixels.shape[:2]
            box = [
                [w / 2, h / 2],
                [w / 2 + 30, h / 2],
                [w / 2 + 30, h / 2 + 15],
                [w / 2, h / 2 + 15],
            ]
            scene["rejected"] = [{"corners": box, "probability": 0.3, "face": "up", "pips": [6, 6]}]
        return scene

    app = make_app(SCENE_PROVIDER=unsure, SSE_MAX_S=30.0)
    client = app.test_client()
    r = client.post(
        "/api/games", json={"variant": "block", "players": ["Ana", "Ben", "Caro"]}, headers=ADMIN
    )
    gid = r.json["game"]["id"]
    client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=jpeg_bytes(640, 480),
        content_type="image/jpeg",
        headers=ADMIN,
    )
    links = {p["name"]: p["token"] for p in
             client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]}  # fmt: skip
    for name, tiles in {"Ana": [[2, 6], [1, 1]], "Ben": [[2, 2]], "Caro": [[2, 6]]}.items():
        client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles})
    server = ThreadedServer(app)
    try:
        page = browser.new_context(**PHONE).new_page()
        page.set_default_timeout(TIMEOUT_MS)
        expect.set_options(timeout=TIMEOUT_MS)
        page.goto(f"{server.url}/login?next=/games/{gid}/correct")
        page.fill("input[name=token]", ADMIN_TOKEN)
        page.click("button[type=submit]")
        page.wait_for_url(f"**/games/{gid}/correct")
        # Drawn apart: the doubtful tile dashed orange, the rejected box dashed grey.
        expect(page.locator("polygon.tile.doubtful")).to_have_count(1)
        expect(page.locator("polygon.rejected")).to_have_count(1)
        # The host reads what to check, and may open the reader's own account (issue 34).
        expect(page.locator("#table-check")).to_contain_text(
            "Check the 3-5 at the top left: it may be a 3-6."
        )
        page.click("#table-details summary")
        expect(page.locator("#table-details li")).to_have_text(
            "Tile 3-5 (#1) may be misread (it could be 3-6): please check it"
        )
        # A proposal is refused; the host sees the conflict, the players do not.
        r = client.post(f"/api/hand/{links['Ben']}/block-check")
        assert r.status_code == 409 and "table reading" in r.json["error"]
        page.once("dialog", lambda dialog: dialog.accept("6-6"))
        page.click("#rejected-list button.restore")
        expect(page.locator("#review-msg.ok")).to_contain_text("Restored as tile 3")
        expect(page.locator("polygon.rejected")).to_have_count(0)
        page.click("#mark-checked")
        expect(page.locator("#review-msg.ok")).to_have_text("The table reading is checked.")
        r = client.post(f"/api/hand/{links['Ben']}/block-check")
        assert r.status_code == 409 and "tile needs checking" in r.json["error"]
        page.reload()
        twice = page.locator("#conflicts li.conflict[data-code='tile-twice']")
        expect(twice).to_have_text(
            re.compile(r"2-6 is in two places: in Ana's hand and in Caro's hand")
        )
        page.screenshot(path=str(tmp_path / "correct-review.png"), full_page=True)
        page.once("dialog", lambda dialog: dialog.accept("2-6 is Ana's"))
        page.click("#conflicts button[data-player=Caro]")
        expect(page.locator("#ledger-msg.ok")).to_have_text("2-6 removed from Caro's hand.")
        expect(twice).to_have_count(0)
        # The table page never names the tile; the check now runs.
        table = browser.new_context(**PHONE).new_page()
        table.goto(f"{server.url}/games/{gid}")
        expect(table.locator("polygon.tile.doubtful")).to_have_count(1)
        # Issue 19 point 3: a sentence for players, the reader's notes behind "Why?".
        expect(table.locator("#warnings .doubt")).to_have_text(
            "This tile may be misread: 3-5. "
            "Tiles in doubt are drawn dashed orange: the host checks them."
        )
        expect(table.locator("#warnings details li")).to_be_hidden()
        table.click("#warnings details summary")
        expect(table.locator("#warnings details li")).to_have_text(
            "Check the 3-5 at the top left: it may be a 3-6."
        )
        assert "#1" not in table.locator("body").inner_text()
        assert "2-6" not in table.locator("body").inner_text()
        # The stand-in photo shows 3 tiles for 3 hands of 1 or 2: the round cannot add up,
        # so the host scores the held ruling on their word (issue 32).
        page.fill("#override-reason", "a toy table")
        page.click("#override")
        expect(page.locator("#override-note")).to_contain_text("Scored on your word")
        page.click("#ledger-score")
        expect(page.locator("#ledger-msg.ok")).to_have_text(
            re.compile(r"The round is scored\.|Not blocked: play goes on\.")
        )
    finally:
        server.close()


# Makes a page look like plain HTTP on a LAN address (no getUserMedia there).
INSECURE = "Object.defineProperty(window, 'isSecureContext', { get: () => false });"


def _login(page, url: str, target: str) -> None:
    page.goto(f"{url}/login?next={target}")
    page.fill("input[name=token]", ADMIN_TOKEN)
    page.click("button[type=submit]")
    page.wait_for_url(f"**{target}")


@pytest.mark.slow
def test_pages_show_only_what_can_be_done_now(browser, make_app, tmp_path) -> None:
    """Issue 19 points 2 and 4: no camera, no freeze button; no getUserMedia, no live-camera
    button; an empty tile form's Delete throws nothing; "Start next round" only once the round
    is over; the phone page shows the scoreboard and, after the round, the result instead of
    photo, save and propose."""
    from playwright.sync_api import expect
    from server_factories import ADMIN, fake_scene

    app = make_app(SCENE_PROVIDER=fake_scene, SSE_MAX_S=30.0)
    client = app.test_client()
    r = client.post(
        "/api/games", json={"variant": "block", "players": ["Ana", "Ben", "Caro"]}, headers=ADMIN
    )
    gid = r.json["game"]["id"]
    links = {p["name"]: p["token"] for p in
             client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]}  # fmt: skip
    for name, tiles in {"Ana": [[1, 2]], "Ben": [[3, 3]], "Caro": [[0, 4]]}.items():
        client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles})
    server = ThreadedServer(app)
    errors: list[str] = []
    try:
        expect.set_options(timeout=TIMEOUT_MS)
        host = browser.new_context().new_page()
        host.on("pageerror", lambda e: errors.append(str(e)))
        _login(host, server.url, f"/games/{gid}")
        expect(host.locator("#game-title")).to_have_text(re.compile("."))
        # No --camera: no freeze button. Loopback is a secure context: the webcam button shows.
        expect(host.locator("#camera-snapshot")).to_be_hidden()
        expect(host.locator("#browser-camera")).to_be_visible()
        # The round is open: no next round yet, domino offered.
        expect(host.locator("#new-round")).to_be_hidden()
        expect(host.locator("#domino")).to_be_visible()

        # The correction screen's tile form without a tile: Delete says so, nothing throws.
        host.goto(f"{server.url}/games/{gid}/correct")
        host.evaluate("document.getElementById('tile-delete').click()")
        expect(host.locator("#msg.error")).to_have_text(re.compile("Choose a tile first"))
        host.evaluate("document.getElementById('tile-form').requestSubmit()")
        expect(host.locator("#msg.error")).to_have_text(re.compile("Choose a tile first"))

        # Plain HTTP from a phone: neither page offers the browser camera.
        insecure = browser.new_context(**PHONE)
        insecure.add_init_script(INSECURE)
        ana = insecure.new_page()
        ana.on("pageerror", lambda e: errors.append(str(e)))
        ana.goto(f"{server.url}/hand/{links['Ana']}")
        expect(ana.locator("#hand-status")).to_contain_text("Your hand is in")
        expect(ana.locator("#live-camera")).to_be_hidden()
        expect(ana.locator("#photo-card")).to_be_visible()
        expect(ana.locator("#propose")).to_be_visible()
        expect(ana.locator("#scoreboard-table tr")).to_have_count(2)  # head, total
        insecure_host = insecure.new_page()
        _login(insecure_host, server.url, f"/games/{gid}")
        expect(insecure_host.locator("#domino")).to_be_visible()
        expect(insecure_host.locator("#browser-camera")).to_be_hidden()

        # Ana goes out: the phone page follows the round's end.
        host.goto(f"{server.url}/games/{gid}")
        host.select_option("#domino-player", "Ana")
        host.once("dialog", lambda dialog: dialog.accept())
        host.click("#domino")
        host.wait_for_selector("#result-card:not([hidden])")
        expect(host.locator("#new-round")).to_be_visible()
        expect(host.locator("#domino")).to_be_hidden()
        for control in ("#upload-form", "#block-form", "#hand-entry"):
            expect(host.locator(control)).to_be_hidden()
        points = client.get(f"/api/games/{gid}/state").json["scoreboard"]["totals"]["Ana"]
        expect(ana.locator("#result")).to_be_visible()
        expect(ana.locator("#winner")).to_contain_text("Winner: Ana")
        expect(ana.locator("#photo-card")).to_be_hidden()
        expect(ana.locator("#save")).to_be_hidden()
        expect(ana.locator("#propose")).to_be_hidden()
        expect(ana.locator("#scoreboard-table [data-total=Ana]")).to_have_text(str(points))
        expect(ana.locator("#reveal")).to_contain_text("Ben: 3-3 = 6 pips")
        ana.screenshot(path=str(tmp_path / "phone-round-over.png"), full_page=True)

        # The next round: the host's button goes away again, the phone offers the photo.
        host.click("#new-round")
        expect(host.locator("#new-round")).to_be_hidden()
        expect(host.locator("#block-form")).to_be_visible()
        expect(ana.locator("#photo-card")).to_be_visible()
        expect(ana.locator("#scoreboard-table tr")).to_have_count(3)  # head, round 1, total
        assert errors == []
    finally:
        server.close()


@pytest.mark.slow
def test_round_history_print_view_and_settings_in_words(browser, make_app, tmp_path) -> None:
    """Issue 19 point 5 on the pages: round 1's hands stay on the table page once round 2
    starts (and nothing of round 2 shows), the print view has the totals, and the setup page
    names settings in words with the variant's default and its source."""
    from playwright.sync_api import expect
    from server_factories import ADMIN, fake_scene

    app = make_app(SCENE_PROVIDER=fake_scene, SSE_MAX_S=30.0)
    client = app.test_client()
    r = client.post(
        "/api/games", json={"variant": "block", "players": ["Ana", "Ben", "Caro"]}, headers=ADMIN
    )
    gid = r.json["game"]["id"]
    links = {p["name"]: p["token"] for p in
             client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]}  # fmt: skip
    for name, tiles in {"Ana": [[1, 2]], "Ben": [[3, 3]], "Caro": [[0, 4]]}.items():
        client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles})
    base = f"/api/games/{gid}/rounds/current"
    client.post(f"{base}/domino", json={"player": "Ana", "confirm": True}, headers=ADMIN)
    client.post(f"/api/games/{gid}/rounds", headers=ADMIN)
    client.put(f"/api/hand/{links['Ben']}/tiles", json={"tiles": [[5, 6]]})
    server = ThreadedServer(app)
    try:
        expect.set_options(timeout=TIMEOUT_MS)
        host = browser.new_context().new_page()
        _login(host, server.url, f"/games/{gid}")
        expect(host.locator("#history-card")).to_be_visible()
        round_one = host.locator("#history details[data-round='1']")
        round_one.locator("summary").click()
        expect(round_one.locator("tr[data-player=Ben] td.hand")).to_have_text("3-3")
        expect(host.locator("#history details")).to_have_count(1)
        assert "5-6" not in host.locator("body").inner_text()
        expect(host.locator("#history-card a[href$='export.csv']")).to_be_visible()

        public = browser.new_context(**PHONE).new_page()
        public.goto(f"{server.url}/games/{gid}")
        expect(public.locator("#history details")).to_have_count(1)
        expect(public.locator("#history-card a[href$='export.csv']")).to_have_count(0)

        host.goto(f"{server.url}/games/{gid}/print")
        total = client.get(f"/api/games/{gid}/scoreboard").json["totals"]["Ana"]
        expect(host.locator("#print-scoreboard [data-total=Ana]")).to_have_text(str(total))
        host.emulate_media(media="print")
        expect(host.locator("#print-button")).to_be_hidden()
        host.emulate_media(media="screen")

        host.goto(f"{server.url}/setup")
        host.click("#settings-box > summary")
        setting = host.locator(".variant-settings:not([hidden]) label[data-setting=block_winner]")
        expect(setting.locator("strong")).to_have_text("Who wins a blocked game?")
        expect(setting).to_contain_text("Usually: The player with the fewest pips in hand.")
        shown = host.locator("#settings-box").inner_text()
        assert "block_winner" not in shown and "lowest-hand" not in shown
    finally:
        server.close()


@pytest.mark.slow
def test_mexican_train_trains_by_owner_and_foul_wording(browser, make_app, tmp_path) -> None:
    """Issue 19 point 6: the table page and the overlay show each train by owner with its
    marker, the engine and the round (12-12 … 0-0); a proposer who can still play is told
    they proposed, not that they had declared."""
    from playwright.sync_api import expect
    from server_factories import ADMIN, fake_scene

    app = make_app(SCENE_PROVIDER=fake_scene, SSE_MAX_S=30.0)
    client = app.test_client()
    r = client.post(
        "/api/games",
        json={"variant": "mexican-train", "set": 12, "players": ["Ana", "Ben", "Caro"]},
        headers=ADMIN,
    )
    assert r.status_code == 201, r.json
    gid = r.json["game"]["id"]
    lines = [
        {"name": "public", "open_end": 7},
        {"name": "Ana's train", "open_end": 5, "owner": "Ana", "marked": True},
    ]
    r = client.put(f"/api/games/{gid}/rounds/current/layout", json={"lines": lines}, headers=ADMIN)
    assert r.status_code == 200, r.json
    links = {p["name"]: p["token"] for p in
             client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]}  # fmt: skip
    for name, tiles in {"Ana": [[0, 1]], "Ben": [[2, 3]], "Caro": [[5, 4]]}.items():
        assert (
            client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles}).status_code == 200
        )
    server = ThreadedServer(app)
    try:
        expect.set_options(timeout=TIMEOUT_MS)
        page = browser.new_context().new_page()
        page.goto(f"{server.url}/games/{gid}")
        expect(page.locator("#engine-round")).to_have_text(
            "Round 1 of 13 · engine 12-12 (12-12 … 0-0)"
        )
        trains = page.locator("#lines li.train")
        expect(trains).to_have_count(4)
        expect(trains.nth(0)).to_have_text(
            "Ana's train: open end 5 · marker out: anyone may play on it"
        )
        expect(trains.nth(1)).to_have_text("Ben's train: not started ")
        expect(trains.nth(2)).to_have_text("Caro's train: not started ")
        expect(trains.nth(3)).to_have_text("Public train: open end 7")
        assert "line 1" not in page.locator("#lines").inner_text()

        overlay = browser.new_context().new_page()
        overlay.goto(f"{server.url}/overlay?game={gid}")
        expect(overlay.locator("#ends-label")).to_have_text(
            "Round 1 of 13 · engine 12-12 (12-12 … 0-0)"
        )
        expect(overlay.locator("#ends .end.train")).to_have_count(2)
        expect(overlay.locator("#ends .end.marked")).to_have_text("5Ana · marker")

        # Caro proposes but can play on Ana's marked train: her foul is that she proposed.
        caro = browser.new_context(**PHONE).new_page()
        caro.goto(f"{server.url}/hand/{links['Caro']}")
        expect(caro.locator("#hand-status")).to_contain_text("Your hand is in")
        caro.once("dialog", lambda dialog: dialog.accept())
        caro.click("#propose")
        expect(caro.locator("#block-result.error")).to_have_text(
            "Not blocked: Caro can play — FOUL: Caro proposed a block but can still play."
        )
        expect(page.locator("#block-result")).to_contain_text("Caro proposed a block")
        assert "had declared" not in page.locator("body").inner_text()
        page.screenshot(path=str(tmp_path / "mexican-table.png"), full_page=True)
        overlay.screenshot(path=str(tmp_path / "mexican-overlay.png"))
    finally:
        server.close()


@pytest.mark.slow
def test_first_start_sets_a_passphrase(browser, make_app, tmp_path) -> None:
    """Issue 19 point 7: on this computer, the login page leads to the first-run page; the
    passphrase set there logs the host in, and again after logging out."""
    from playwright.sync_api import expect

    server = ThreadedServer(make_app())
    try:
        expect.set_options(timeout=TIMEOUT_MS)
        page = browser.new_context().new_page()
        page.goto(f"{server.url}/login?next=/setup")
        page.click("#first-run-link a")
        page.fill("input[name=passphrase]", "green double six")
        page.fill("input[name=repeat]", "green double six")
        page.click("#set-passphrase")
        page.wait_for_url("**/setup")
        expect(page.locator("h1")).to_have_text("New game")
        page.click("text=Log out")
        page.goto(f"{server.url}/login?next=/setup")
        expect(page.locator("#first-run-link")).to_have_count(0)
        page.fill("input[name=token]", "green double six")
        page.click("button[type=submit]")
        page.wait_for_url("**/setup")
        page.goto(f"{server.url}/first-run")
        expect(page.locator("#first-run-closed")).to_contain_text("already set")
    finally:
        server.close()


@pytest.mark.slow
def test_a_hand_is_fixed_with_a_pip_picker_retake_and_clear(browser, make_app, tmp_path) -> None:
    """Issue 19 point 3 (hands): a value is corrected with a pip picker (0..set), "Retake
    photo" opens the camera again, "Clear all tiles" empties the list in one tap."""
    from playwright.sync_api import expect
    from server_factories import ADMIN, fake_scene, jpeg_bytes

    def unsure_hand(pixels, kind, set_max):
        scene = fake_scene(pixels, kind, set_max)
        scene["tiles"][1]["doubtful"] = True
        scene["warnings"] = ["tile 1: halves read 0 and 0 (p=0.41)"]
        return scene

    photo = tmp_path / "hand.jpg"
    photo.write_bytes(jpeg_bytes(320, 240))
    app = make_app(SCENE_PROVIDER=unsure_hand, SSE_MAX_S=30.0)
    client = app.test_client()
    r = client.post(
        "/api/games", json={"variant": "block", "players": ["Ana", "Ben"]}, headers=ADMIN
    )
    gid = r.json["game"]["id"]
    links = {p["name"]: p["token"] for p in
             client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]}  # fmt: skip
    server = ThreadedServer(app)
    try:
        expect.set_options(timeout=TIMEOUT_MS)
        ana = browser.new_context(**PHONE).new_page()
        ana.goto(f"{server.url}/hand/{links['Ana']}")
        expect(ana.locator("#retake")).to_be_hidden()
        expect(ana.locator("#clear")).to_be_hidden()
        ana.set_input_files("#hand-file", str(photo))
        expect(ana.locator("#upload-msg.ok")).to_contain_text("Found 2 tiles")
        expect(ana.locator("#retake")).to_be_visible()
        expect(ana.locator("#hand-doubts .doubt")).to_have_text(
            "This tile may be misread: 0-0. "
            "Look at your tiles and fix any mistake with the pickers below, then confirm."
        )
        expect(ana.locator("#hand-doubts details")).to_contain_text("Why?")
        picker = ana.locator("li.hand-tile").nth(1).locator("select").nth(1)
        assert picker.locator("option").all_inner_texts() == [str(n) for n in range(7)]
        picker.select_option("5")
        expect(ana.locator("#total")).to_have_text("8 pips · 2 tiles")
        # Retake opens the file chooser (the camera on a phone).
        with ana.expect_file_chooser() as chooser:
            ana.click("#retake")
        with ana.expect_response(lambda r: r.url.endswith("/photo")):  # read before clearing
            chooser.value.set_files(str(photo))
        expect(ana.locator("#hand-status")).to_contain_text("Read from your photo")
        ana.click("#clear")
        expect(ana.locator("li.hand-tile")).to_have_count(0)
        expect(ana.locator("#total")).to_have_text("0 pips · 0 tiles")
        ana.fill("#add-tile", "2-3")
        ana.click("#add-form button")
        ana.click("#save")
        expect(ana.locator("#save-msg.ok")).to_have_text("Saved: 1 tile, 5 pips.")
        assert client.get(f"/api/hand/{links['Ana']}").json["me"]["hand"] == [[2, 3]]
    finally:
        server.close()


@pytest.mark.slow
def test_a_portrait_photo_keeps_its_height_bounded(browser, make_app, tmp_path) -> None:
    """Issue 19 point 1 (part): at 1366x768 a portrait table photo is at most 70% of the
    window's height, and the outlines drawn over it cover exactly the image."""
    from playwright.sync_api import expect
    from server_factories import ADMIN, fake_scene, jpeg_bytes

    app = make_app(SCENE_PROVIDER=fake_scene, SSE_MAX_S=30.0)
    client = app.test_client()
    r = client.post(
        "/api/games", json={"variant": "block", "players": ["Ana", "Ben"]}, headers=ADMIN
    )
    gid = r.json["game"]["id"]
    r = client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=jpeg_bytes(720, 1280),
        content_type="image/jpeg",
        headers=ADMIN,
    )
    assert r.status_code == 201, r.json
    server = ThreadedServer(app)
    try:
        expect.set_options(timeout=TIMEOUT_MS)
        page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        page.goto(f"{server.url}/games/{gid}")
        expect(page.locator("#scene-wrap polygon.tile")).to_have_count(3)
        page.wait_for_function("() => document.getElementById('scene-img').complete")
        img = page.locator("#scene-img").bounding_box()
        svg = page.locator("#scene-wrap svg").bounding_box()
        assert img and svg
        assert img["height"] <= 0.7 * 768 + 1
        assert abs(img["width"] / img["height"] - 720 / 1280) < 0.01
        for key in ("x", "y", "width", "height"):
            assert abs(img[key] - svg[key]) <= 1, (key, img, svg)
        page.screenshot(path=str(tmp_path / "portrait.png"), full_page=True)
    finally:
        server.close()

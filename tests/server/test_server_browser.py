"""End to end in Debian's chromium (headless, driven by playwright): set up a game, upload a
table photo and two hand photos, correct them, propose a block, read winner and points.

Screenshots are kept in $DOMINOCAM_ARTIFACTS (default: this test's tmp dir); with
DOMINOCAM_UPDATE_SCREENSHOTS=1 they also replace docs/screenshots/. Install the browser with
scripts/install-browser.sh (never `playwright install`).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from server_factories import ADMIN_TOKEN, ThreadedServer, fake_scene, jpeg_bytes

CHROMIUM = os.environ.get("DOMINOCAM_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: run scripts/install-browser.sh")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield browser
        browser.close()


@pytest.mark.slow
def test_game_night_in_a_browser(browser, make_app, tmp_path) -> None:
    shots = Path(os.environ.get("DOMINOCAM_ARTIFACTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(jpeg_bytes(1280, 720))
    server = ThreadedServer(make_app(SCENE_PROVIDER=fake_scene, SSE_MAX_S=30.0))
    url = server.url
    try:
        desk = browser.new_context(viewport={"width": 1366, "height": 900})
        page = desk.new_page()
        page.set_default_timeout(15000)
        page.goto(f"{url}/login?next=/setup")
        page.fill("input[name=token]", ADMIN_TOKEN)
        page.click("button[type=submit]")
        page.wait_for_selector("#variant option[value=block]", state="attached")
        page.select_option("#variant", "block")
        page.select_option("#set", "6")
        page.fill("#players", "Ana\nBen")
        page.click("#create-game")
        page.wait_for_url("**/games/*")
        game_url = page.url

        # The table photo: read, every tile outlined.
        page.set_input_files("#table-file", str(photo))
        page.wait_for_selector("#upload-msg.ok")
        page.wait_for_selector("svg polygon[data-tile='2']", state="attached")
        assert page.text_content("#open-ends") == "0, 5"

        # Correct tile 0 (read 0-3, really 3-3): the open ends follow.
        page.goto(game_url + "/correct")
        page.click("polygon[data-tile='0']")
        page.fill("#tile-a", "3")
        page.fill("#tile-b", "3")
        page.click("#tile-form button[type=submit]")
        page.wait_for_selector("#msg.ok")

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

        # Two phones: photo, check, correct, save.
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
        for name, keep_photo_tiles, extra in (("Ana", True, ""), ("Ben", False, "4-4 2-6")):
            hand = phone.new_page()
            hand.set_default_timeout(15000)
            hand.goto(hrefs[name])
            hand.set_input_files("#hand-file", str(photo))
            hand.wait_for_selector("#upload-msg.ok")
            assert hand.locator("li.hand-tile").count() == 2
            if not keep_photo_tiles:
                hand.click("li.hand-tile button")
                hand.click("li.hand-tile button")
                hand.fill("#add-tile", extra)
                hand.click("#add-form button")
            hand.click("#save")
            hand.wait_for_selector("#save-msg.ok")
            if name == "Ana":
                assert "3 pips" in hand.text_content("#total")
                hand.screenshot(path=str(shots / "phone.png"), full_page=True)

        # Propose the block at the table and read the result.
        page.goto(game_url)
        page.wait_for_selector("#proposer option[value=Ben]", state="attached")
        page.select_option("#proposer", "Ben")
        page.click("#propose-block")
        page.wait_for_function("document.querySelectorAll('#steps li').length === 2")
        page.wait_for_selector("#block-result.ok")  # shown after the last confirmation
        page.wait_for_selector("#result-card:not([hidden])")
        assert page.text_content("#winner").startswith("Winner: Ana")
        points = page.text_content("#result-rows tr[data-player=Ana] td.points")
        assert points == "16"
        assert page.text_content("#scoreboard-table [data-total=Ana]") == "16"
        assert [li.text_content() for li in page.query_selector_all("#steps li")] == [
            "Ben confirms: cannot play",
            "Ana confirms: cannot play",
        ]
        page.screenshot(path=str(shots / "dashboard.png"), full_page=True)

        # Ana's phone now shows the revealed hands.
        hand.goto(hrefs["Ana"])
        hand.wait_for_selector("#result:not([hidden])")
        assert "Winner: Ana" in hand.text_content("#winner")

        # The overlay: transparent 1920x1080.
        obs = browser.new_context(viewport={"width": 1920, "height": 1080})
        overlay = obs.new_page()
        overlay.goto(f"{url}/overlay?show=ends,tiles,scores&corner=br")
        overlay.wait_for_selector(".end")
        assert overlay.text_content(".end").startswith("3")
        overlay.wait_for_function("document.querySelector('#round-result').textContent.length")
        assert "Ana" in overlay.text_content("#round-result")
        overlay.screenshot(path=str(shots / "overlay.png"), omit_background=True)
        # The polling fallback gives the same picture without EventSource.
        overlay.goto(f"{url}/overlay?show=ends&poll=1")
        overlay.wait_for_selector(".end")
    finally:
        server.close()
    if os.environ.get("DOMINOCAM_UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        for name in ("dashboard.png", "phone.png", "overlay.png", "players.png"):
            shutil.copy(shots / name, DOCS / name)
    print(f"screenshots in {shots}")

"""Issue 19 "Measure": a whole game night in a real browser, counted in user actions.

The host plays on a 1366x768 laptop, the players on 390x844 phones, for Block (played to its
target) and for Mexican Train (13 rounds, 12-12 down to 0-0), in English and in Hungarian
(the browser's locale, hence its Accept-Language). Every click, tap, upload, typed field and
accepted question is counted per round.

The photos are rendered by dominosynth and read by the server with the bundled models (no
stand-in reader). The reads are perfect: the walk uses rendered photos whose reading by the
bundled models is exactly dominosynth's truth (found among the first few indices; the
search is deterministic), because the count is of the steps a round takes when nothing needs
fixing. The screenshots in docs/screenshots come from this walk
(DOMINOCAM_UPDATE_SCREENSHOTS=1).

Goal (issue 19): at most 12 actions for the first round (login and setup included) and 6 for
each next one. Nothing here keys on English text: ids, data- attributes and roles only.
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from server_factories import ADMIN_TOKEN, ThreadedServer, rendered_sample, runtime_scene
from test_server_browser import DOCS, PHONE, TIMEOUT_MS
from test_server_layout_browser import LAPTOP, _in_first_viewport

from dominocam.rounds.scene_state import hand_tiles

FIRST_ROUND_GOAL = 12
NEXT_ROUND_GOAL = 6
# A player's block waits for the table host, who scores it ("Score the round" and its OK):
# only the host turns a ruling into a score (issue 33). A domino is the host's call already.
HOST_DECIDES = {"block": 2, "mexican-train": 0}
PLAYERS = ("Ana", "Ben")
SET_MAX = {"block": 6, "mexican-train": 12}
# How far the search for perfectly read photos goes, per kind.
SEARCH = {"table": 8, "hand": 80}
# A Block round's loser gives at least this many points, so the game reaches 100 in 10 rounds.
MIN_LOSER_PIPS = 10
SCREENSHOTS = ("dashboard.png", "phone.png", "mexican.png")


@dataclass(frozen=True)
class Photo:
    """A rendered photo the bundled models read exactly as dominosynth drew it."""

    data: bytes
    tiles: list[list[int]]  # face-up tiles as read, in the reader's order
    scene: dict[str, Any]

    def keys(self) -> set[tuple[int, int]]:
        return {(min(t), max(t)) for t in self.tiles}

    @property
    def pips(self) -> int:
        return sum(a + b for a, b in self.tiles)


@functools.cache
def _read_right(kind: str, index: int, variant: str) -> Photo | None:
    """The photo at `index` if the bundled models read it perfectly and surely, else None."""
    data, truth = rendered_sample(kind, index, set_max=SET_MAX[variant])
    scene = runtime_scene(data, kind, SET_MAX[variant], variant, players=len(PLAYERS))
    tiles = scene["tiles"]
    unsure = any(t["face"] != "up" or t.get("doubtful") for t in tiles)
    if not tiles or scene.get("needs_review") or unsure:
        return None
    if any(t["face"] != "up" for t in truth["tiles"]):
        return None
    if sorted(sorted(t["pips"]) for t in tiles) != sorted(
        sorted(t["pips"]) for t in truth["tiles"]
    ):
        return None
    ends_differ = sorted(scene["layout"]["open_ends"]) != sorted(truth["open_ends"])
    if variant == "block" and kind == "table" and ends_differ:
        return None
    listed = hand_tiles(scene) if kind == "hand" else [t["pips"] for t in tiles]
    return Photo(data, listed, scene)


def _perfect(kind: str, variant: str) -> list[Photo]:
    found = (_read_right(kind, i, variant) for i in range(SEARCH[kind]))
    return [photo for photo in found if photo is not None]


@functools.cache
def fixture_photos(variant: str) -> dict[str, Photo]:
    """Block: a table and two hands no tile of which fits its open ends (so a proposed block
    holds), all tiles different, pip totals different. Mexican Train: a table and Ben's hand
    (Ana goes out every round), tiles different."""
    tables = _perfect("table", variant)
    hands = _perfect("hand", variant)
    for table in tables:
        ends = set(table.scene["layout"]["open_ends"])
        free = [h for h in hands if not h.keys() & table.keys()]
        if variant == "mexican-train" and free:
            return {"table": table, "Ben": free[0]}
        blocked = [h for h in free if not any(a in ends or b in ends for a, b in h.tiles)]
        for ana, ben in itertools.combinations(blocked, 2):
            if ana.keys() & ben.keys() or ana.pips == ben.pips:
                continue
            # The round adds up (issue 32): the table and both hands are every dealt tile.
            if (len(table.tiles) + len(ana.tiles) + len(ben.tiles)) % 2:
                continue
            if max(ana.pips, ben.pips) >= MIN_LOSER_PIPS:
                return {"table": table, "Ana": ana, "Ben": ben}
    pytest.fail(f"no rendered photos for a {variant} walk among the first {SEARCH} indices")


def fixture_deal(variant: str) -> int:
    """The tiles the walk's table deals each player, so that its photos make a round that
    adds up (the round's ledger, issue 32): Block never draws, so the table and the hands
    hold every dealt tile; in Mexican Train Ana went out and the boneyard, worked out from
    the rest, is at most what the deal left."""
    dealt = sum(len(photo.tiles) for photo in fixture_photos(variant).values())
    return dealt // 2


class Actions:
    """Counts what people do, per round and per person, while doing it."""

    def __init__(self) -> None:
        self.rounds: list[Counter[str]] = [Counter()]

    def count(self, who: str) -> None:
        self.rounds[-1][who] += 1

    def next_round(self) -> None:
        self.rounds.append(Counter())

    def click(self, page, who: str, selector: str) -> None:
        page.click(selector)
        self.count(who)

    def fill(self, page, who: str, selector: str, text: str) -> None:
        page.fill(selector, text)
        self.count(who)

    def select(self, page, who: str, selector: str, value: str) -> None:
        page.select_option(selector, value)
        self.count(who)

    def upload(self, page, who: str, selector: str, path: str) -> None:
        page.set_input_files(selector, path)
        self.count(who)

    def click_and_accept(self, page, who: str, selector: str) -> None:
        """A button that asks first: the tap and the "OK"."""
        page.once("dialog", lambda dialog: dialog.accept())
        page.click(selector)
        self.count(who)
        self.count(who)


class Table:
    """What the server holds, read through its public API (to wait for a write to land)."""

    def __init__(self, client, game_id: int) -> None:
        self.client, self.game_id = client, game_id

    def state(self) -> dict[str, Any]:
        return self.client.get(f"/api/games/{self.game_id}/state").json

    def wait(self, what: str, check) -> None:
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while not check(self.state()):
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(0.05)

    def wait_confirmed(self, name: str) -> None:
        self.wait(
            f"{name}'s confirmed hand",
            lambda s: any(
                p["name"] == name and p["hand_status"] == "confirmed" for p in s["players"]
            ),
        )

    def wait_table_read(self, number: int) -> None:
        self.wait(
            f"round {number}'s table photo",
            lambda s: s["round"]["number"] == number and s["round"]["table"]["scene"] is not None,
        )


def _check_lang(page, locale: str) -> None:
    """Every page is in the browser's language (its Accept-Language)."""
    lang = page.evaluate("document.documentElement.lang")
    assert lang.split("-")[0] == locale.split("-")[0], (lang, locale)


def _walk(browser, make_app, tmp_path, variant: str, locale: str, shots: Path | None):
    """The game night; returns the actions of each round. `shots`: where to keep screenshots."""
    from playwright.sync_api import expect

    fixture = fixture_photos(variant)
    photos = {}
    for name, photo in fixture.items():
        photos[name] = tmp_path / f"{name}.jpg"
        photos[name].write_bytes(photo.data)
    app = make_app(SSE_MAX_S=60.0)  # no SCENE_PROVIDER: the bundled models read the photos
    server = ThreadedServer(app)
    acts = Actions()
    try:
        expect.set_options(timeout=TIMEOUT_MS)
        desk = browser.new_context(viewport=LAPTOP, locale=locale)
        host = desk.new_page()
        host.set_default_timeout(TIMEOUT_MS)
        phones = browser.new_context(**PHONE, locale=locale)

        # Round 1: log in, set up, hand out the links, then play.
        host.goto(f"{server.url}/login?next=/setup")
        _check_lang(host, locale)
        acts.fill(host, "host", "input[name=token]", ADMIN_TOKEN)
        acts.click(host, "host", "button[type=submit]")
        host.wait_for_selector(f"#variant option[value={variant}]", state="attached")
        if host.input_value("#variant") != variant:
            acts.select(host, "host", "#variant", variant)
        acts.fill(host, "host", "#players", "\n".join(PLAYERS))
        # The photos are of a table that deals its own number of tiles (rule books differ).
        acts.fill(host, "host", "#deal", str(fixture_deal(variant)))
        acts.click(host, "host", "#create-game")
        host.wait_for_url("**/games/*/players")
        host.wait_for_selector("figure.player-link a.hand-link")
        links = {
            fig.get_attribute("data-player"): fig.query_selector("a.hand-link").get_attribute(
                "href"
            )
            for fig in host.query_selector_all("figure.player-link")
        }
        acts.click(host, "host", "#to-table")
        host.wait_for_url("**/games/*")
        _check_lang(host, locale)
        table = Table(app.test_client(), int(host.url.rstrip("/").rsplit("/", 1)[1]))
        hands = {}
        for name in PLAYERS:  # each player scans their QR code: the page opens, no tap here
            hands[name] = phones.new_page()
            hands[name].set_default_timeout(TIMEOUT_MS)
            hands[name].goto(links[name])
            _check_lang(hands[name], locale)

        number = 1
        while True:
            play = Round(acts, table, host, hands, photos, fixture, number, shots)
            if variant == "block":
                play.block()
            else:
                play.domino()
            expect(host.locator("#result-card")).to_be_visible()
            _in_first_viewport(host, ("#result-card", "#scoreboard-card"), LAPTOP)
            if shots and number == 1 and variant == "block":
                host.screenshot(path=str(shots / "dashboard.png"))
            for page in hands.values():
                expect(page.locator("#result")).to_be_visible()
            if host.locator("#final").is_visible():
                break
            _in_first_viewport(host, ("#new-round", "#next-round-photo"), LAPTOP)
            acts.next_round()
            number += 1
            assert number <= 13, "the game never ended"

        # The game is over on every screen, with the same winner.
        final = host.locator("#final").text_content()
        for page in hands.values():
            expect(page.locator("#final")).to_have_text(final)
        expect(host.locator("#new-round")).to_be_hidden()
        if variant == "mexican-train":
            assert number == 13  # one round per double, 12-12 down to 0-0
    finally:
        server.close()
    return acts.rounds


@dataclass
class Round:
    """One round, played through the pages with the fixture's photos."""

    acts: Actions
    table: Table
    host: Any
    hands: dict[str, Any]
    photos: dict[str, Path]
    fixture: dict[str, Photo]
    number: int
    shots: Path | None

    def table_photo(self) -> None:
        """Round 1 has its table photo button; a next round starts with its table photo."""
        from playwright.sync_api import expect

        button = "#table-file" if self.number == 1 else "#next-table-file"
        self.acts.upload(self.host, "host", button, str(self.photos["table"]))
        self.table.wait_table_read(self.number)
        expect(self.host.locator("#result-card")).to_be_hidden()
        read = self.fixture["table"].tiles
        expect(self.host.locator("#scene-wrap g.labels")).to_have_count(len(read))

    def hand_photo(self, name: str) -> Any:
        from playwright.sync_api import expect

        phone = self.hands[name]
        expect(phone.locator("#photo-card")).to_be_visible()
        self.acts.upload(phone, name, "#hand-file", str(self.photos[name]))
        expect(phone.locator("li.hand-tile")).to_have_count(len(self.fixture[name].tiles))
        values = phone.locator("li.hand-tile select").evaluate_all("els => els.map(e => +e.value)")
        assert [values[i : i + 2] for i in range(0, len(values), 2)] == self.fixture[name].tiles
        return phone

    def block(self) -> None:
        """Table photo, Ana's hand photographed and confirmed, Ben's photographed; Ben proposes
        (confirming his hand in the same question): nobody can play, the block holds and
        waits for the table host, who scores it (only the host scores, issue 33)."""
        from playwright.sync_api import expect

        self.table_photo()
        ana = self.hand_photo("Ana")
        if self.shots and self.number == 1:
            ana.screenshot(path=str(self.shots / "phone.png"), full_page=True)
        self.acts.click(ana, "Ana", "#save")
        self.table.wait_confirmed("Ana")
        ben = self.hand_photo("Ben")
        self.acts.click_and_accept(ben, "Ben", "#propose")
        expect(ben.locator("#save")).to_be_disabled()  # held for the host: every hand locks
        expect(ben.locator("#locked-why")).to_be_visible()
        expect(self.host.locator("#score-round")).to_be_visible()
        self.acts.click_and_accept(self.host, "host", "#score-round")
        expect(ben.locator("#result")).to_be_visible()

    def domino(self) -> None:
        """Mexican Train: table photo, Ben photographs and confirms his hand, Ana went out:
        the host ends the round (Ana sits first: the default, no choice to make)."""
        self.table_photo()
        ben = self.hand_photo("Ben")
        self.acts.click(ben, "Ben", "#save")
        self.table.wait_confirmed("Ben")
        assert self.host.input_value("#domino-player") == "Ana"
        if self.shots and self.number == 1:
            self.host.screenshot(path=str(self.shots / "mexican.png"))
        self.acts.click_and_accept(self.host, "host", "#domino")


@pytest.mark.slow
@pytest.mark.parametrize("locale", ["en-US", "hu-HU"])
@pytest.mark.parametrize("variant", ["block", "mexican-train"])
def test_a_game_night_takes_few_actions_per_round(
    browser,
    make_app,
    tmp_path,
    variant: str,
    locale: str,
) -> None:
    shots = None
    if locale == "en-US":  # the screenshots are of the English pages
        shots = Path(os.environ.get("DOMINOCAM_ARTIFACTS") or tmp_path / "screenshots")
        shots.mkdir(parents=True, exist_ok=True)
    rounds = _walk(browser, make_app, tmp_path, variant, locale, shots)
    totals = [sum(r.values()) for r in rounds]
    for number, (round_, total) in enumerate(zip(rounds, totals, strict=True), start=1):
        who = ", ".join(f"{k} {v}" for k, v in sorted(round_.items()))
        print(f"{variant} {locale} round {number}: {total} actions ({who})")
    assert totals[0] <= FIRST_ROUND_GOAL + HOST_DECIDES[variant], totals
    assert all(t <= NEXT_ROUND_GOAL + HOST_DECIDES[variant] for t in totals[1:]), totals
    if shots and os.environ.get("DOMINOCAM_UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        for name in SCREENSHOTS:
            if (shots / name).exists():
                shutil.copy(shots / name, DOCS / name)

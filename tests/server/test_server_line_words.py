"""Issue 34: "line 5" means nothing to a player. A line read from the table photo is named by
its open end and where it lies ("the 5 at the top"), in the reader's language; one entered by
hand by its open end and the name the host typed.

`fake_scene`'s table photo has two lines: open end 0 at the top left (its point at (10, 10))
and open end 5 at the top (3/8 of the width across).
"""

from __future__ import annotations

import pytest
from server_factories import ADMIN, confirm_again, hands_beside_fake_table, jpeg_bytes

from dominocam.i18n import use_language
from dominocam.rules.places import line_words, place_text

LANGUAGES = ("en", "hu", "it", "vi", "es")


def _round_with_table_photo(client) -> tuple[int, dict[str, str]]:
    r = client.post(
        "/api/games",
        json={"variant": "block", "set": 6, "players": ["Ana", "Ben", "Caro", "Dev"]},
        headers=ADMIN,
    )
    gid = r.json["game"]["id"]
    r = client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=jpeg_bytes(),
        content_type="image/jpeg",
        headers=ADMIN,
    )
    assert r.status_code == 201, r.json
    players = client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]
    links = {p["name"]: p["token"] for p in players}
    for name, tiles in hands_beside_fake_table().items():
        r = client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles})
        assert r.status_code == 200, r.json
    return gid, links


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_line_from_the_photo_is_named_by_its_open_end_and_place(client, language) -> None:
    """Today's failure: the state's lines had only "line 1", "line 2" (no place), and the
    phone told Ben "You can play 0-6 on line 1"."""
    gid, links = _round_with_table_photo(client)
    state = client.get(f"/api/state?game={gid}", headers={"Accept-Language": language}).json
    lines = state["round"]["lines"]
    assert [(line["open_end"], line["place"]) for line in lines] == [(0, "top-left"), (5, "top")]
    with use_language(language):
        expected = [line_words(0, place="top-left"), line_words(5, place="top")]
        places = [place_text("top-left"), place_text("top")]
    assert [line["shown"] for line in lines] == expected
    assert [line["place_shown"] for line in lines] == places
    # Ben proposes a block but can play 0-6 on the 0 at the top left: only he is told where.
    r = client.post(f"/api/hand/{links['Ben']}/block-check")
    assert r.status_code == 200 and not r.json["outcome"]["blocked"], r.json
    ben = client.get(f"/api/hand/{links['Ben']}", headers={"Accept-Language": language}).json
    play = ben["me"]["can_play"]
    assert play["tile"] == [0, 6] and play["line_shown"] == expected[0]
    if language != "en":
        assert "line" not in play["line_shown"] and "top" not in play["line_shown"]
    assert (
        "line_shown"
        not in (client.get(f"/api/state?game={gid}").json["round"]["block_checks"][0]["stopped"])
    )  # nobody else hears the line while the round is open


def test_the_round_over_names_where_the_check_stopped_in_words(client) -> None:
    """Once the round is over everybody reads where the check stopped, in words."""
    gid, links = _round_with_table_photo(client)
    client.post(f"/api/hand/{links['Ben']}/block-check")
    confirm_again(client, links)
    # Dev went out: his last tiles are played, which the table photo does not show yet, so
    # the host scores the held call on his word.
    client.post(f"/api/games/{gid}/rounds/current/domino", json={"player": "Dev"}, headers=ADMIN)
    r = client.post(f"/api/games/{gid}/rounds/current/ledger/override",
                    json={"reason": "Dev played his last tiles"}, headers=ADMIN)  # fmt: skip
    assert r.status_code == 200, r.json
    r = client.post(f"/api/games/{gid}/rounds/current/score", headers=ADMIN)
    assert r.status_code == 200 and r.json["ended"], r.json
    check = client.get(f"/api/state?game={gid}").json["round"]["block_checks"][0]
    assert check["stopped"]["line"] == "line 1"  # the engine's name stays for programs
    assert check["stopped"]["line_shown"] == "the 0 at the top left"


def test_a_line_entered_by_hand_is_named_by_its_open_end_and_typed_name(client) -> None:
    r = client.post(
        "/api/games", json={"variant": "block", "players": ["Ana", "Ben"]}, headers=ADMIN
    )
    gid = r.json["game"]["id"]
    lines = [{"name": "left", "open_end": 3}, {"name": "right", "open_end": 5}]
    r = client.put(f"/api/games/{gid}/rounds/current/layout", json={"lines": lines},
                   headers=ADMIN)  # fmt: skip
    assert r.status_code == 200, r.json
    shown = client.get(f"/api/state?game={gid}").json["round"]["lines"]
    assert [(line["shown"], line["place_shown"]) for line in shown] == [
        ("“left” (open end 3)", None),
        ("“right” (open end 5)", None),
    ]


def test_the_hosts_edit_of_a_photos_lines_keeps_where_they_lie(client) -> None:
    """The correction screen sends a photo's lines back with their place: the players are
    still told "the 5 at the top" after the host fixes an open end."""
    gid, _links = _round_with_table_photo(client)
    lines = client.get(f"/api/state?game={gid}").json["round"]["lines"]
    sent = [{"name": line["name"], "open_end": line["open_end"], "place": line["place"]}
            for line in lines]  # fmt: skip
    sent[1]["open_end"] = 6
    r = client.put(f"/api/games/{gid}/rounds/current/layout", json={"lines": sent},
                   headers=ADMIN)  # fmt: skip
    assert r.status_code == 200, r.json
    assert [line["shown"] for line in r.json["round"]["lines"]] == [
        "the 0 at the top left",
        "the 6 at the top",
    ]
    sent[0]["place"] = "upstairs"
    r = client.put(f"/api/games/{gid}/rounds/current/layout", json={"lines": sent},
                   headers=ADMIN)  # fmt: skip
    assert r.status_code == 400 and "place must be one of" in r.json["error"], r.json


@pytest.mark.parametrize("language", ["hu", "vi"])
def test_a_line_nobody_named_is_named_by_its_open_end(client, language) -> None:
    """The correction screen's "Add line" row used to fill in "line {number}" (and the server
    stored "line N" for a row without a name): the phone then said "You can play 0-6 on
    “line 1” (open end 0)". A row the host leaves unnamed is sent without a name; the
    server keeps an id for programs, and people read the line by its open end."""
    gid, links = _round_with_table_photo(client)
    rows = [{"open_end": 0}, {"open_end": 5, "name": ""}]  # as the correction screen sends them
    r = client.put(f"/api/games/{gid}/rounds/current/layout", json={"lines": rows},
                   headers=ADMIN)  # fmt: skip
    assert r.status_code == 200, r.json
    state = client.get(f"/api/state?game={gid}", headers={"Accept-Language": language}).json
    lines = state["round"]["lines"]
    with use_language(language):
        expected = [line_words(0), line_words(5)]
    assert [line["shown"] for line in lines] == expected
    # The overlay and the table page show the open end alone: no name, no place.
    assert [(line["name_shown"], line["place_shown"]) for line in lines] == [(None, None)] * 2
    assert [(line["name"], line["named"]) for line in lines] == [
        ("line 1", False),
        ("line 2", False),
    ]
    # Ben proposes a block but holds 0-6: his phone names the 0 in his language.
    r = client.post(f"/api/hand/{links['Ben']}/block-check")
    assert r.status_code == 200 and not r.json["outcome"]["blocked"], r.json
    ben = client.get(f"/api/hand/{links['Ben']}", headers={"Accept-Language": language}).json
    play = ben["me"]["can_play"]
    assert play["tile"] == [0, 6] and play["line_shown"] == expected[0], play
    assert "line" not in play["line_shown"] and "“" not in play["line_shown"], play


def test_a_name_the_host_typed_stays_as_typed(client) -> None:
    """A typed name is shown as typed beside an unnamed row, even one that looks like an id;
    two rows may not share a typed name; a refusal names the row as the screen lists it."""
    gid, _links = _round_with_table_photo(client)
    url = f"/api/games/{gid}/rounds/current/layout"
    rows = [{"name": "line 2", "open_end": 3}, {"open_end": 5}]
    r = client.put(url, json={"lines": rows}, headers=ADMIN)
    assert r.status_code == 200, r.json
    lines = r.json["round"]["lines"]
    assert [line["shown"] for line in lines] == ["“line 2” (open end 3)", "the line ending in 5"]
    assert lines[0]["name_shown"] == "line 2" and lines[1]["name_shown"] is None
    assert lines[1]["name"] != "line 2"  # the id the server made is still unique
    twice = [{"name": "left", "open_end": 3}, {"name": "left", "open_end": 5}]
    r = client.put(url, json={"lines": twice}, headers=ADMIN)
    assert r.status_code == 400 and r.json["code"] == "duplicate_line_name", r.json
    r = client.put(url, json={"lines": [{"open_end": 3}, {"open_end": 9}]}, headers=ADMIN)
    assert r.status_code == 400 and r.json["code"] == "bad_open_end", r.json
    assert r.json["error"].startswith("row 2 of the lines") and r.json["params"]["row"] == 2

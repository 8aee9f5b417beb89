"""A real server killed with SIGKILL in the middle of a round keeps everything confirmed."""

from __future__ import annotations

import os
import signal

import pytest
from server_factories import ADMIN, free_port, http, start_server


@pytest.mark.slow
def test_sigkill_mid_round_keeps_the_confirmed_state(tmp_path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(tmp_path, port, "--no-demo")
    try:
        status, state = http(
            "POST",
            f"{base}/api/games",
            {"variant": "block", "set": 6, "players": ["Ana", "Ben", "Caro"]},
            ADMIN,
        )
        assert status == 201
        gid = state["game"]["id"]
        status, links = http("GET", f"{base}/api/games/{gid}/players", headers=ADMIN)
        token = {p["name"]: p["token"] for p in links["players"]}
        lines = [{"name": "main", "open_end": 3}, {"name": "other", "open_end": 5}]
        http("PUT", f"{base}/api/games/{gid}/rounds/current/layout", {"lines": lines}, ADMIN)
        http("PUT", f"{base}/api/hand/{token['Ana']}/tiles", {"tiles": [[0, 1], [6, 6]]})
        http("PUT", f"{base}/api/hand/{token['Ben']}/tiles", {"tiles": [[2, 5]]})
        http("POST", f"{base}/api/hand/{token['Ben']}/declare", {"cannot_play": True})
        status, check = http("POST", f"{base}/api/hand/{token['Ana']}/block-check")
        assert status == 409  # Caro's hand is missing: nothing changes
        status, before = http("GET", f"{base}/api/state")
        assert status == 200
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)

    proc = start_server(tmp_path, port, "--no-demo")
    try:
        status, after = http("GET", f"{base}/api/state")
        assert status == 200
        for key in ("game", "players", "round", "scoreboard"):
            assert after[key] == before[key], key
        # The links and the admin session still work, the round carries on.
        status, view = http("GET", f"{base}/api/hand/{token['Ana']}")
        assert status == 200 and view["me"]["hand"] == [[0, 1], [6, 6]]
        http("PUT", f"{base}/api/hand/{token['Caro']}/tiles", {"tiles": [[4, 4]]})
        status, check = http("POST", f"{base}/api/hand/{token['Ana']}/block-check")
        assert status == 200
        assert check["outcome"]["stopped"] == {"player": "Ben", "foul": True, "foul_by": "declared"}
        status, view = http("GET", f"{base}/api/hand/{token['Ben']}")
        can_play = view["me"]["can_play"]
        assert {"tile": can_play["tile"], "line": can_play["line"]} == {
            "tile": [2, 5],
            "line": "other",
        }
        assert can_play["line_shown"] == "“other” (open end 5)"  # the line in words
        status, _ = http("GET", f"{base}/api/games/{gid}/players", headers=ADMIN)
        assert status == 200
        status, state = http("GET", f"{base}/api/state")
        assert state["round"]["locked"] is None  # a check that stops locks nothing
        # Play goes on; the host calls domino for Caro, held (not scored): the hands lock.
        for name in ("Ana", "Ben", "Caro"):
            assert http("POST", f"{base}/api/hand/{token[name]}/confirm")[0] == 200
        body = {"player": "Caro"}
        status, held = http("POST", f"{base}/api/games/{gid}/rounds/current/domino", body, ADMIN)
        assert status == 200 and held["result"]["pending"]["by"] == "domino", held
        status, locked = http("GET", f"{base}/api/state")
        assert locked["round"]["locked"]["by"] == "Caro called domino"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)

    # The lock and the audit trail survive a second kill: a locked hand stays locked.
    proc = start_server(tmp_path, port, "--no-demo")
    try:
        status, again = http("GET", f"{base}/api/state")
        for key in ("players", "round", "audit"):
            assert again[key] == locked[key], key
        status, refused = http("PUT", f"{base}/api/hand/{token['Ana']}/tiles", {"tiles": []})
        assert status == 409 and "locked" in refused["error"]
    finally:
        proc.terminate()
        proc.wait(10)

"""The event's pages: standings, a player's phone page, a table host's page, the event
director's page, and the OBS overlays (one per table, one for the event).

Every page loads its script and style from `tournament/static/` (no inline script or style:
the Content-Security-Policy is single-table mode's). The values a script needs go in
`data-` attributes of `<body>`: `root` (the path back to the app's root), `token` (the
page's own link token, sent as `Authorization: Bearer`), `table`. Scripts put text in with
`textContent`, so a player's name cannot inject markup.

The overlays are transparent pages for a browser source (1920x1080), updated by the same
event streams as everything else; they show what the public API shows (tile counts, open
ends, scores), never a hand before its round ends.
"""

from __future__ import annotations


def _head(title: str, root: str, *, overlay: bool = False) -> str:
    html_class = ' class="overlay"' if overlay else ""
    return (
        f'<!doctype html>\n<html lang="en"{html_class}><head><meta charset="utf-8">'
        f"<title>{title}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f'<link rel="stylesheet" href="{root}static/tournament.css"></head>\n'
    )


STANDINGS_PAGE = (
    _head("{{ s.event }}: standings", "")
    + """<body class="page">
<h1>{{ s.event }}</h1>
<p>{{ s.variant }}: {{ "lowest" if s.lower_wins else "highest" }} total first.</p>
<h2>Players</h2><table id="players"><tr><th>#</th><th>Player</th><th>Team</th><th>Table</th>
<th>Points</th></tr>{% for p in s.players %}<tr><td>{{ p.rank }}</td><td>{{ p.name }}</td>
<td>{{ p.team or "" }}</td><td>{{ p.table }}</td><td class="n">{{ p.total }}</td></tr>
{% endfor %}</table>
{% if s.teams %}<h2>Teams</h2><table id="teams"><tr><th>#</th><th>Team</th><th>Points</th></tr>
{% for t in s.teams %}<tr><td>{{ t.rank }}</td><td>{{ t.name }}</td>
<td class="n">{{ t.total }}</td></tr>{% endfor %}</table>{% endif %}
<h2>Tables</h2><table id="tables"><tr><th>Table</th><th>Rounds</th><th>Status</th>
<th>Overlay</th></tr>
{% for t in s.tables %}<tr><td>{{ t.name }}</td><td class="n">{{ t.rounds }}</td>
<td>{{ ("over: " ~ t.winners|join(", ")) if t.over else "playing" }}</td>
<td><a href="tables/{{ t.id }}/overlay">overlay</a></td></tr>{% endfor %}
</table>
<p><a href="overlay">Event overlay</a></p>
<script src="static/standings.js"></script></body></html>
"""
)

TABLE_OVERLAY = (
    _head("{{ table_id }} overlay", "../../", overlay=True)
    + """<body data-table="{{ table_id }}"><div id="box"><h1 id="title"></h1><div id="ends"></div>
<ul id="seats"></ul><div id="lock" class="dim"></div><div id="result" class="dim"></div></div>
<script src="../../static/table-overlay.js"></script></body></html>"""
)

EVENT_OVERLAY = (
    _head("event overlay", "", overlay=True)
    + """<body><div id="box"><h1 id="title"></h1><ol id="players"></ol>
<div id="teams" class="dim"></div></div>
<script src="static/event-overlay.js"></script></body></html>"""
)

HAND_PAGE = (
    _head("My hand", "../")
    + """<body class="page" data-root="../" data-token="{{ token }}">
<h1 id="title">My hand</h1>
<p id="hand"></p>
<p id="lock" role="status"></p>
<p id="checking" class="box" role="status" hidden></p>
<p id="on-table" class="box" role="status" hidden></p>
<div id="again" class="box" hidden><p>Play went on since you confirmed your hand: confirm
it again before the next ruling, as it is or corrected below.</p>
<button id="confirm-again">My hand is as saved</button></div>
<div id="pending" class="box" hidden><p id="reading"></p>
<button id="confirm">Confirm as read</button> <button id="discard">Discard the photo</button>
<p class="dim">Wrong? Type the right tiles below and save.</p></div>
<label id="photo-label">Photo of my hand: <input id="photo" type="file" accept="image/jpeg"
capture="environment"></label>
<p id="photo-why" class="disabled-why" role="note" hidden></p>
<p><label for="tiles">My tiles, each as its two numbers joined by a dash, separated by spaces
(empty when I went out):</label>
<input id="tiles" class="wide" autocomplete="off"></p>
<button id="save">Save my hand</button>
<p id="save-why" class="disabled-why" role="note" hidden></p>
<p><button id="declare">I cannot play</button> <button id="propose">Propose a block</button>
<button id="domino">Domino: I played my last tile</button></p>
<p id="actions-why" class="disabled-why" role="note" hidden></p>
<p id="message" role="status"></p>
<script src="../static/common.js"></script><script src="../static/hand.js"></script>
</body></html>
"""
)

HOST_PAGE = (
    _head("Table host", "../")
    + """<body class="page" data-root="../" data-token="{{ token }}" data-table="{{ table_id }}">
<h1 id="title">Table host</h1>
<p id="lock" role="status"></p>
<div class="box"><p id="pending" role="status"></p><p id="check"></p>
<button id="score">Confirm and score the round</button>
<button id="cancel">Cancel the ruling</button>
<button id="unlock">Unlock the hands</button>
<button id="reopen">Reopen the last round</button></div>
<section class="box" id="ledger" hidden><h2>The round's ledger</h2>
<p id="ledger-summary" class="big" role="status"></p>
<ul id="ledger-waits"></ul>
<ol id="ledger-problems"></ol>
<div id="ledger-grid" class="ledger-grid"></div>
<ul id="ledger-legend" class="legend"></ul>
<p id="ledger-cell" class="dim" role="status"></p>
<form id="boneyard-form"><label>Boneyard: the tiles left to draw, counted:
<input id="boneyard-count" type="number" min="0"></label>
<button id="boneyard-enter">Enter the count</button></form>
<p><label>Reason for a correction or your word (kept in the audit trail and the round's
result): <input id="ledger-reason" class="wide"></label></p>
<p id="override-box"><button id="override">Rule on my word: the round does not add up</button>
</p>
<p id="override-note" hidden></p>
<p id="ledger-message" role="status"></p></section>
<p><label>Reason (kept in the audit trail; needed after the lock, to cancel, unlock or
reopen): <input id="reason" class="wide"></label></p>
<div class="box"><h2>Rule on the round</h2>
<label>Open ends: <input id="ends" placeholder="e.g. 5 4"></label>
<label>Boneyard (if counted): <input id="boneyard" type="number" min="0"></label><br>
<label>Proposer: <select id="proposer"></select></label>
<button id="block">Check the block</button><br>
<label>Winner: <select id="winner"></select></label>
<button id="domino">Domino</button>
<p class="dim">A ruling that ends the round waits for "Confirm and score".</p></div>
<h2>Seats</h2><div id="seats"></div>
<p id="message" role="status"></p>
<h2>Audit trail</h2><ol id="audit"></ol>
<script src="../static/common.js"></script><script src="../static/host.js"></script>
</body></html>
"""
)

DIRECTOR_PAGE = (
    _head("Event director", "../")
    + """<body class="page" data-root="../" data-token="{{ token }}">
<h1>Event director</h1>
<table id="tables"><tr><th>Table</th><th>Round</th><th>State</th><th>Host</th>
<th>Overlay</th></tr>
{% for t in tables %}<tr data-table="{{ t.id }}"><td>{{ t.name }}</td><td class="round"></td>
<td class="state"></td><td><a href="../host/{{ token }}?table={{ t.id }}">host page</a>
<button class="host-link" data-table="{{ t.id }}">New host link (QR)</button>
<div class="qr" id="qr-{{ t.id }}"></div></td>
<td><a href="../tables/{{ t.id }}/overlay">overlay</a></td></tr>{% endfor %}
</table>
<p><a href="../">Standings</a> · <a href="../overlay">Event overlay</a></p>
<p id="message" role="status"></p>
<script src="../static/common.js"></script><script src="../static/director.js"></script>
</body></html>
"""
)

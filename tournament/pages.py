"""The event's pages: standings, and the OBS overlays (one per table, one for the event).

The overlays are transparent pages for a browser source (1920x1080), updated by the same
event streams as everything else; they show what the public API shows (tile counts, open
ends, scores), never a hand before its round ends. Text goes in with `textContent`, so a
player's name cannot inject markup.
"""

from __future__ import annotations

STANDINGS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ s.event }}: standings</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse;
margin-bottom:2rem}td,th{padding:.3rem .8rem;border-bottom:1px solid #ccc;text-align:left}
td.n{text-align:right}</style></head><body>
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
<script>
// The page follows the event: reload when a round ends at any table.
new EventSource("api/events").addEventListener("round", () => location.reload());
</script></body></html>
"""

_OVERLAY_STYLE = """<style>
html,body{background:transparent;margin:0;font-family:system-ui,sans-serif}
#box{position:fixed;right:32px;bottom:32px;min-width:360px;padding:18px 24px;
background:rgba(10,20,30,.82);color:#fff;border-radius:14px;font-size:26px}
#box h1{font-size:30px;margin:0 0 8px}#box ol,#box ul{margin:0;padding-left:1.2em}
.dim{opacity:.7;font-size:22px}</style>"""

TABLE_OVERLAY = (
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ table_id }} overlay</title>"""
    + _OVERLAY_STYLE
    + """</head><body><div id="box"><h1 id="title"></h1><div id="ends"></div>
<ul id="seats"></ul><div id="result" class="dim"></div></div>
<script>
const table = {{ table_id|tojson }};
const api = "../../api/tables/" + encodeURIComponent(table);
function text(id, value) { document.getElementById(id).textContent = value; }
function showState(state) {
  const round = state.rounds[state.rounds.length - 1];
  text("title", state.name + ", round " + round.number);
  const seats = document.getElementById("seats");
  seats.replaceChildren(...state.seats.map((seat) => {
    const li = document.createElement("li");
    const count = round.tiles[seat.name];
    li.textContent = seat.name + ": " + (count === null ? "no hand yet" : count + " tiles");
    return li;
  }));
  const ended = state.rounds.filter((r) => r.status === "ended");
  const last = ended[ended.length - 1];
  text("result", last ? "Round " + last.number + ": " + Object.entries(last.result.points)
    .map(([who, pts]) => who + " +" + pts).join(", ") : "");
}
function showScene(message) {
  const scene = message.scene || {};
  const ends = (scene.layout && scene.layout.open_ends) || [];
  text("ends", "Open ends: " + (ends.length ? ends.join(", ") : "none") +
    " · face down: " + (scene.face_down || 0));
}
const stream = new EventSource(api + "/events");
stream.addEventListener("table", (e) => showState(JSON.parse(e.data)));
stream.addEventListener("scene", (e) => showScene(JSON.parse(e.data)));
for (const kind of ["round", "hand"]) {
  stream.addEventListener(kind, () =>
    fetch(api).then((r) => r.json()).then(showState).catch(() => {}));
}
</script></body></html>"""
)

EVENT_OVERLAY = (
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>event overlay</title>"""
    + _OVERLAY_STYLE
    + """</head><body><div id="box"><h1 id="title"></h1><ol id="players"></ol>
<div id="teams" class="dim"></div></div>
<script>
const shown = Number(new URLSearchParams(location.search).get("top") || 5);
function show(s) {
  document.getElementById("title").textContent = s.event;
  document.getElementById("players").replaceChildren(...s.players.slice(0, shown).map((p) => {
    const li = document.createElement("li");
    li.textContent = p.name + " (" + p.table + "): " + p.total;
    return li;
  }));
  document.getElementById("teams").textContent =
    s.teams.map((t) => t.name + " " + t.total).join(" · ");
}
function refresh() { fetch("api/standings").then((r) => r.json()).then(show).catch(() => {}); }
refresh();
new EventSource("api/events").addEventListener("round", refresh);
</script></body></html>"""
)

HAND_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>My hand</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<style>body{font-family:system-ui,sans-serif;margin:1.2rem;font-size:1.1rem}
input{font-size:1.1rem;width:100%;padding:.4rem}button{font-size:1.1rem;margin-top:.6rem}
#message{margin-top:.8rem}</style></head><body>
<h1 id="title">My hand</h1>
<p id="hand"></p>
<label for="tiles">My tiles, each as its two numbers joined by a dash, separated by spaces
(empty when I went out):</label>
<input id="tiles" autocomplete="off">
<button id="save">Save my hand</button>
<p id="message" role="status"></p>
<script>
const token = {{ token|tojson }};
const auth = {headers: {"Authorization": "Bearer " + token}};
function say(text) { document.getElementById("message").textContent = text; }
function show(me) {
  document.getElementById("title").textContent =
    me.name + ", " + me.table + ", round " + me.round;
  document.getElementById("hand").textContent = me.hand === null ? "No hand saved yet." :
    "Saved: " + (me.hand.map((t) => t.join("-")).join(" ") || "no tiles");
}
function load() {
  fetch("../api/hand", auth).then((r) => r.json().then((body) => {
    if (!r.ok) throw new Error(body.error);
    show(body);
  })).catch((e) => say(e.message));
}
document.getElementById("save").addEventListener("click", () => {
  const text = document.getElementById("tiles").value.trim();
  const tiles = text ? text.split(/[\\s,;]+/).map((t) => t.split("-").map(Number)) : [];
  fetch("../api/hand", {method: "PUT", headers: {...auth.headers,
    "Content-Type": "application/json"}, body: JSON.stringify({tiles})})
    .then((r) => r.json().then((body) => {
      if (!r.ok) throw new Error(body.error);
      say("Saved: " + body.tiles + " tiles for round " + body.round + ".");
      load();
    })).catch((e) => say(e.message));
});
load();
</script></body></html>
"""

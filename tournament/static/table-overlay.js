"use strict";
// A table's OBS overlay: tile counts (never tiles) while the round is open, open ends of
// the newest Scene, the last round's points; in the language of `?lang=` (OBS has no
// picker), else the browser source's.
const {api, events, text, number} = dominocam;
const base = "api/tables/" + encodeURIComponent(document.body.dataset.table);
function showState(state) {
  const round = state.rounds[state.rounds.length - 1];
  text("title", _("{table}, round {number}", {table: state.name, number: number(round.number)}));
  const seats = document.getElementById("seats");
  seats.replaceChildren(...state.seats.map((seat) => {
    const li = document.createElement("li");
    const count = round.tiles[seat.name];
    li.textContent = count === null || count === undefined
      ? _("{name}: no hand yet", {name: seat.name})
      : ngettext("{name}: {count} tile", "{name}: {count} tiles", count, {name: seat.name});
    return li;
  }));
  const ended = state.rounds.filter((r) => r.status === "ended");
  const last = ended[ended.length - 1];
  text("result", last ? _("Round {number}: {points}", {number: number(last.number),
    points: Object.entries(last.result.points).map(([who, pts]) => who + " +" + number(pts)).join(", ")}) : "");
  text("lock", round.pending_shown
    || (round.locked_shown ? _("Hands locked: {reason}", {reason: round.locked_shown}) : ""));
}
function showScene(message) {
  const scene = message.scene || {};
  const ends = (scene.layout && scene.layout.open_ends) || [];
  const down = number(scene.face_down || 0);
  text("ends", ends.length ? _("Open ends: {ends} · face down: {count}", {ends: ends.join(", "), count: down})
    : _("No open end yet · face down: {count}", {count: down}));
}
const stream = events(base + "/events");
stream.addEventListener("table", (e) => showState(JSON.parse(e.data)));
stream.addEventListener("scene", (e) => showScene(JSON.parse(e.data)));
for (const kind of ["round", "hand"]) {
  stream.addEventListener(kind, () => api(base).then(showState).catch(() => {}));
}

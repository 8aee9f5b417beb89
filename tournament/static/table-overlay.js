"use strict";
// A table's OBS overlay: tile counts (never tiles) while the round is open, open ends of
// the newest Scene, the last round's points.
const table = document.body.dataset.table;
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
  text("lock", round.pending || (round.locked ? "Hands locked: " + round.locked : ""));
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

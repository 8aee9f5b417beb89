"use strict";
// A player's phone page: their own hand only. A photo's reading waits for the player's
// confirmation; typed tiles are confirmed when saved; once the hands are locked (a ruling
// held for the table host) only the table's host changes a hand, and the page's controls
// stay in place, greyed out, with the reason beside them. After play went on (an unlock, a reopened round) the hand is
// confirmed again, as it is or corrected; while the host checks the round the page says
// so, and nothing of which tile or whose hand.
const {api, text, tiles, parseTiles} = dominocam;
let me = null;
let stream = null;
function say(message) { text("message", message); }
function show(view) {
  me = view;
  text("title", view.name + ", " + view.table + ", round " + view.round);
  text("hand", view.hand === null ? "No confirmed hand yet." : "Saved: " + tiles(view.hand));
  const pending = document.getElementById("pending");
  pending.hidden = view.pending === null;
  if (view.pending !== null) text("reading", "The photo reads: " + tiles(view.pending));
  // Locked or ended, the controls stay in place, look disabled and say why beside them
  // (only a ruling held for the table host locks the hands).
  const open = view.status === "open" && !view.locked;
  for (const id of ["save", "tiles", "photo", "propose", "domino", "declare", "confirm"]) {
    document.getElementById(id).disabled = !open;
  }
  document.getElementById("photo-label").classList.toggle("disabled", !open);
  const why = open ? "" : view.status !== "open" ? "This round has ended."
    : view.checking ? "Your hand is locked while the table host checks the round."
    : "Your hand is locked (" + view.locked + "): only the table host changes a hand now.";
  for (const id of ["photo-why", "save-why", "actions-why"]) {
    document.getElementById(id).hidden = !why;
    text(id, why);
  }
  text("lock", view.locked ? "Hands locked (" + view.locked + "): only the host changes a hand now."
    : view.status === "open" ? "" : "This round has ended.");
  document.getElementById("checking").hidden = !view.checking;
  text("checking", view.checking || "");
  document.getElementById("on-table").hidden = !view.on_table_text;
  text("on-table", view.on_table_text || "");
  // A photo's reading waiting is confirmed (or corrected) in its own box.
  document.getElementById("again").hidden = !view.to_confirm || view.pending !== null;
  if (stream === null) {
    stream = new EventSource("../api/tables/" + encodeURIComponent(view.table) + "/events");
    for (const kind of ["hand", "round"]) stream.addEventListener(kind, load);
  }
}
function load() { api("api/hand").then(show).catch((e) => say(e.message)); }
function act(promise, done) {
  promise.then((body) => { say(done(body)); load(); }).catch((e) => say(e.message));
}
document.getElementById("save").addEventListener("click", () => act(
  api("api/hand", {method: "PUT", json: {tiles: parseTiles(document.getElementById("tiles").value)}}),
  (b) => "Saved: " + b.tiles + " tiles for round " + b.round + "."));
document.getElementById("confirm").addEventListener("click", () => act(
  api("api/hand/confirm", {method: "POST", json: {}}), (b) => "Confirmed: " + b.tiles + " tiles."));
document.getElementById("confirm-again").addEventListener("click", () => act(
  api("api/hand/confirm", {method: "POST", json: {}}), (b) => "Confirmed again: " + b.tiles + " tiles."));
document.getElementById("discard").addEventListener("click", () => act(
  api("api/hand/discard", {method: "POST"}), () => "The photo's reading is dropped."));
document.getElementById("photo").addEventListener("change", (e) => {
  const file = e.target.files[0];
  if (!file) return;
  act(api("api/hand/photo", {method: "POST", body: file, headers: {"Content-Type": "image/jpeg"}}),
    () => "Reading the photo: check the tiles when they show, then confirm.");
});
document.getElementById("propose").addEventListener("click", () => act(
  api("api/hand/propose", {method: "POST"}),
  (b) => b.held ? b.pending.text : b.outcome && b.outcome.stopped && b.outcome.stopped.player
    ? b.outcome.stopped.player + " can still play." : "Proposed."));
document.getElementById("domino").addEventListener("click", () => act(
  api("api/hand/domino", {method: "POST"}), (b) => b.pending ? b.pending.text : "Called."));
document.getElementById("declare").addEventListener("click", () => act(
  api("api/hand/declare", {method: "POST", json: {cannot_play: true}}),
  () => "You said you cannot play."));
load();

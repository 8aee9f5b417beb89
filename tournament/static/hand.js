"use strict";
// A player's phone page: their own hand only. A photo's reading waits for the player's
// confirmation; typed tiles are confirmed when saved; once the hands are locked (a ruling
// held for the table host) only the table's host changes a hand, and the page's controls
// stay in place, greyed out, with the reason beside them. After play went on (an unlock, a reopened round) the hand is
// confirmed again, as it is or corrected; while the host checks the round the page says
// so, and nothing of which tile or whose hand. Words in the page's language (common.js).
const {api, events, text, tiles, parseTiles, number} = dominocam;
let me = null;
let stream = null;
function say(message) { text("message", message); }
function show(view) {
  me = view;
  text("title", _("{name}, {table}, round {round}", {name: view.name, table: view.table, round: number(view.round)}));
  text("hand", view.hand === null ? _("No confirmed hand yet.") : _("Saved: {tiles}", {tiles: tiles(view.hand)}));
  const pending = document.getElementById("pending");
  pending.hidden = view.pending === null;
  if (view.pending !== null) text("reading", _("The photo reads: {tiles}", {tiles: tiles(view.pending)}));
  // Locked or ended, the controls stay in place, look disabled and say why beside them
  // (only a ruling held for the table host locks the hands).
  const open = view.status === "open" && !view.locked;
  for (const id of ["save", "tiles", "photo", "propose", "domino", "declare", "confirm"]) {
    document.getElementById(id).disabled = !open;
  }
  document.getElementById("photo-label").classList.toggle("disabled", !open);
  const why = open ? "" : view.status !== "open" ? _("This round has ended.")
    : view.checking ? _("Your hand is locked while the table host checks the round.")
    : _("Your hand is locked ({reason}): only the table host changes a hand now.", {reason: view.locked_shown});
  for (const id of ["photo-why", "save-why", "actions-why"]) {
    document.getElementById(id).hidden = !why;
    text(id, why);
  }
  text("lock", view.locked ? _("Hands locked ({reason}): only the host changes a hand now.", {reason: view.locked_shown})
    : view.status === "open" ? "" : _("This round has ended."));
  document.getElementById("checking").hidden = !view.checking;
  text("checking", view.checking || "");
  document.getElementById("on-table").hidden = !view.on_table_text;
  text("on-table", view.on_table_text || "");
  // A photo's reading waiting is confirmed (or corrected) in its own box.
  document.getElementById("again").hidden = !view.to_confirm || view.pending !== null;
  if (stream === null) {
    stream = events("api/tables/" + encodeURIComponent(view.table) + "/events");
    for (const kind of ["hand", "round"]) stream.addEventListener(kind, load);
  }
}
function load() { api("api/hand").then(show).catch((e) => say(e.message)); }
function act(promise, done) {
  promise.then((body) => { say(done(body)); load(); }).catch((e) => say(e.message));
}
// What a ruling answered: held for the host, stopped by a player who can play, or neither.
function ruled(b, otherwise) {
  if (b.pending) return b.pending.shown;
  if (b.outcome && b.outcome.stopped && b.outcome.stopped.player) {
    return _("{name} can still play.", {name: b.outcome.stopped.player});
  }
  return otherwise;
}
document.getElementById("save").addEventListener("click", () => act(
  api("api/hand", {method: "PUT", json: {tiles: parseTiles(document.getElementById("tiles").value)}}),
  (b) => ngettext("Saved: {count} tile for round {round}.", "Saved: {count} tiles for round {round}.",
    b.tiles, {round: number(b.round)})));
document.getElementById("confirm").addEventListener("click", () => act(
  api("api/hand/confirm", {method: "POST", json: {}}),
  (b) => ngettext("Confirmed: {count} tile.", "Confirmed: {count} tiles.", b.tiles)));
document.getElementById("confirm-again").addEventListener("click", () => act(
  api("api/hand/confirm", {method: "POST", json: {}}),
  (b) => ngettext("Confirmed again: {count} tile.", "Confirmed again: {count} tiles.", b.tiles)));
document.getElementById("discard").addEventListener("click", () => act(
  api("api/hand/discard", {method: "POST"}), () => _("The photo's reading is dropped.")));
document.getElementById("photo").addEventListener("change", (e) => {
  const file = e.target.files[0];
  if (!file) return;
  act(api("api/hand/photo", {method: "POST", body: file, headers: {"Content-Type": "image/jpeg"}}),
    () => _("Reading the photo: check the tiles when they show, then confirm."));
});
document.getElementById("propose").addEventListener("click", () => act(
  api("api/hand/propose", {method: "POST"}), (b) => ruled(b, _("Proposed."))));
document.getElementById("domino").addEventListener("click", () => act(
  api("api/hand/domino", {method: "POST"}), (b) => ruled(b, _("Called."))));
document.getElementById("declare").addEventListener("click", () => act(
  api("api/hand/declare", {method: "POST", json: {cannot_play: true}}),
  () => _("You said you cannot play.")));
load();

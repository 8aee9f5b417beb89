"use strict";
// A table host's page: seat links as QR codes, the round (lock, the ruling held for the
// host), hands entered or corrected with a reason, rulings confirmed or cancelled, undo.
const {api, text, el, tiles, parseTiles, data} = dominocam;
const table = data.table;
const base = "api/tables/" + encodeURIComponent(table);
let state = null;
function say(message) { text("message", message); }
function reason(id) { return document.getElementById(id).value.trim(); }
function act(promise, done) {
  promise.then((body) => { say(done(body)); load(); }).catch((e) => say(e.message));
}
function seatCount(seat) {
  const round = state.rounds[state.rounds.length - 1];
  const count = round.tiles[seat.name];
  return " · " + (count === null || count === undefined ? "no confirmed hand" : count + " tiles");
}
function makeSeats() {
  // Made once: a QR code shown or tiles being typed stay while the round's state changes.
  const box = document.getElementById("seats");
  box.replaceChildren(...state.seats.map((seat) => {
    const row = el("div", undefined, {class: "box", id: "seat-" + seat.seat});
    row.append(el("strong", seat.seat + ". " + seat.name), el("span", "", {class: "dim count"}));
    const link = el("button", "New link (QR)", {"data-seat": seat.seat, class: "link"});
    const qr = el("div", undefined, {class: "qr"});
    link.addEventListener("click", () => api(base + "/seats/" + seat.seat + "/link", {method: "POST"})
      .then((made) => {
        const img = el("img", undefined, {alt: "QR code of " + made.name + "'s link",
          src: "data:image/svg+xml;charset=utf-8," + encodeURIComponent(made.qr)});
        qr.replaceChildren(img, el("a", made.link, {href: made.link}));
        say("A new link for " + made.name + ": the old one no longer works.");
      }).catch((e) => say(e.message)));
    const input = el("input", undefined, {placeholder: "tiles, e.g. 5-6 3-3", class: "tiles"});
    const save = el("button", "Enter / correct hand");
    save.addEventListener("click", () => act(api(base + "/seats/" + seat.seat + "/hand",
      {method: "PUT", json: {tiles: parseTiles(input.value), reason: reason("reason")}}),
      (b) => seat.name + ": " + b.tiles + " tiles."));
    row.append(el("br"), link, qr, input, save);
    return row;
  }));
  for (const id of ["proposer", "winner"]) {
    document.getElementById(id).replaceChildren(
      ...state.seats.map((s) => el("option", s.name, {value: s.name})));
  }
}
function showSeats() {
  if (!document.getElementById("seat-1")) makeSeats();
  for (const seat of state.seats) {
    document.querySelector("#seat-" + seat.seat + " .count").textContent = seatCount(seat);
  }
}
function show(body) {
  state = body;
  const round = state.rounds[state.rounds.length - 1];
  text("title", state.name + ": round " + round.number + (round.status === "open" ? "" : " (ended)"));
  text("lock", round.locked ? "Hands locked: " + round.locked : "Hands open.");
  text("pending", round.pending || "No ruling waits for you.");
  document.getElementById("score").hidden = !round.pending;
  document.getElementById("cancel").hidden = !round.pending;
  document.getElementById("unlock").hidden = !round.locked;
  const check = round.last_check;
  text("check", check && check.stopped && check.stopped.player
    ? "Last check: " + check.stopped.player + " can play" + (check.stopped.foul ? " (a foul)" : "") : "");
  const ended = state.rounds.filter((r) => r.status === "ended");
  document.getElementById("reopen").hidden = ended.length === 0;
  showSeats();
}
function showAudit(body) {
  document.getElementById("audit").replaceChildren(...body.audit.slice(-30).reverse().map((e) =>
    el("li", e.at.slice(11, 19) + " " + e.author + ": " + e.text + (e.reason ? " (" + e.reason + ")" : ""))));
}
function load() {
  api(base).then(show).catch((e) => say(e.message));
  api(base + "/audit").then(showAudit).catch(() => {});
}
function table_json() {
  const ends = document.getElementById("ends").value.trim();
  const body = {boneyard: Number(document.getElementById("boneyard").value || 0)};
  if (ends) {
    body.layout = {lines: ends.split(/[\s,;]+/).map((v, i) => ({name: "line " + (i + 1), open_end: Number(v)}))};
  }
  return body;
}
document.getElementById("block").addEventListener("click", () => act(
  api(base + "/rounds/current/block", {method: "POST",
    json: {...table_json(), proposer: document.getElementById("proposer").value}}),
  (b) => b.held ? b.pending.text : b.outcome.stopped && b.outcome.stopped.player
    ? b.outcome.stopped.player + " can still play." : "Checked."));
document.getElementById("domino").addEventListener("click", () => act(
  api(base + "/rounds/current/domino", {method: "POST",
    json: {...table_json(), winner: document.getElementById("winner").value}}),
  (b) => b.pending ? b.pending.text : "Called."));
document.getElementById("score").addEventListener("click", () => act(
  api(base + "/rounds/current/score", {method: "POST"}),
  (b) => b.ended ? "Round scored: " + Object.entries(b.result.points).map(([k, v]) => k + " " + v).join(", ")
    : "Not blocked after all: play goes on."));
document.getElementById("cancel").addEventListener("click", () => act(
  api(base + "/rounds/current/cancel", {method: "POST", json: {reason: reason("reason")}}),
  () => "The ruling is cancelled."));
document.getElementById("unlock").addEventListener("click", () => act(
  api(base + "/rounds/current/unlock", {method: "POST", json: {reason: reason("reason")}}),
  () => "The hands are unlocked."));
document.getElementById("reopen").addEventListener("click", () => act(
  api(base + "/rounds/last/reopen", {method: "POST", json: {reason: reason("reason")}}),
  (b) => "Round " + b.round + " is open again; its points left the standings."));
const stream = new EventSource(data.root + base + "/events");
for (const kind of ["hand", "round"]) stream.addEventListener(kind, load);
load();

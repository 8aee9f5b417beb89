"use strict";
// A table host's page: seat links as QR codes, the round (lock, the ruling held for the
// host), the round's ledger (the set as a grid, each problem tile by tile, a tile removed
// from a hand, the boneyard's count, the host's word with a reason), hands entered or
// corrected with a reason (and, for the host alone, tiles typed over a photo's reading),
// rulings confirmed or cancelled, undo.
const {api, events, text, el, tiles, parseTiles, data, number} = dominocam;
const table = data.table;
const base = "api/tables/" + encodeURIComponent(table);
let state = null;
let review = null;
function say(message) { text("message", message); }
function reason(id) { return document.getElementById(id).value.trim(); }
function act(promise, done) {
  promise.then((body) => { say(done(body)); load(); }).catch((e) => say(e.message));
}
function seatCount(seat) {
  const round = state.rounds[state.rounds.length - 1];
  const count = round.tiles[seat.name];
  const again = (round.to_confirm || []).includes(seat.name);
  if (count === null || count === undefined) {
    return again ? _(" · no confirmed hand · to confirm again") : _(" · no confirmed hand");
  }
  return again ? ngettext(" · {count} tile · to confirm again", " · {count} tiles · to confirm again", count)
    : ngettext(" · {count} tile", " · {count} tiles", count);
}
function makeSeats() {
  // Made once: a QR code shown or tiles being typed stay while the round's state changes.
  const box = document.getElementById("seats");
  box.replaceChildren(...state.seats.map((seat) => {
    const row = el("div", undefined, {class: "box", id: "seat-" + seat.seat});
    row.append(el("strong", seat.seat + ". " + seat.name), el("span", "", {class: "dim count"}));
    const link = el("button", _("New link (QR)"), {"data-seat": seat.seat, class: "link"});
    const qr = el("div", undefined, {class: "qr"});
    link.addEventListener("click", () => api(base + "/seats/" + seat.seat + "/link", {method: "POST"})
      .then((made) => {
        const img = el("img", undefined, {alt: _("QR code of {name}'s link", {name: made.name}),
          src: "data:image/svg+xml;charset=utf-8," + encodeURIComponent(made.qr)});
        qr.replaceChildren(img, el("a", made.link, {href: made.link}));
        say(_("A new link for {name}: the old one no longer works.", {name: made.name}));
      }).catch((e) => say(e.message)));
    const input = el("input", undefined, {placeholder: _("tiles, e.g. 5-6 3-3"), class: "tiles"});
    const save = el("button", _("Enter / correct hand"));
    save.addEventListener("click", () => act(api(base + "/seats/" + seat.seat + "/hand",
      {method: "PUT", json: {tiles: parseTiles(input.value), reason: reason("reason")}}),
      (b) => ngettext("{name}: {count} tile.", "{name}: {count} tiles.", b.tiles, {name: seat.name})));
    // The host's alone: what was typed over this hand's photo reading or earlier list.
    const replaced = el("ul", undefined, {class: "replaced dim"});
    row.append(el("br"), link, qr, input, save, replaced);
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
  text("title", round.status === "open"
    ? _("{table}: round {number}", {table: state.name, number: number(round.number)})
    : _("{table}: round {number} (ended)", {table: state.name, number: number(round.number)}));
  text("lock", round.locked ? _("Hands locked: {reason}", {reason: round.locked_shown}) : _("Hands open."));
  text("pending", round.pending_shown || _("No ruling waits for you."));
  document.getElementById("score").hidden = !round.pending;
  document.getElementById("cancel").hidden = !round.pending;
  document.getElementById("unlock").hidden = !round.locked;
  const check = round.last_check;
  text("check", !(check && check.stopped && check.stopped.player) ? ""
    : check.stopped.foul ? _("Last check: {name} can play (a foul)", {name: check.stopped.player})
    : _("Last check: {name} can play", {name: check.stopped.player}));
  const ended = state.rounds.filter((r) => r.status === "ended");
  document.getElementById("reopen").hidden = ended.length === 0;
  showSeats();
  if (review) showReplaced(review.hands);
}
function showAudit(body) {
  document.getElementById("audit").replaceChildren(...body.audit.slice(-30).reverse().map((e) =>
    el("li", e.reason ? _("{time} {author}: {text} ({reason})", {time: e.at.slice(11, 19), author: e.author, text: e.shown, reason: e.reason})
      : _("{time} {author}: {text}", {time: e.at.slice(11, 19), author: e.author, text: e.shown}))));
}
// --- the round's ledger (the host's only: it names hands' tiles) -----------------------------
function ledgerSay(message) { text("ledger-message", message); }
const tileText = (t) => t[0] + "-" + t[1];
const KINDS = {table: _("on the table"), hand: _("in a hand"), nowhere: _("nowhere"),
  twice: _("in two places"), hidden: _("hidden: boneyard, set aside, or a hand not read")};
function cellText(c) {
  const tile = tileText(c.tile);
  if (c.kind === "hand") return _("{tile}: in {name}'s hand", {tile, name: c.players[0]});
  if (c.kind === "twice") {
    const places = c.players.map((n) => _("{name}'s hand", {name: n}));
    if (c.on_table) places.unshift(_("the table"));
    return _("{tile}: in two places ({places})", {tile, places: places.join(", ")});
  }
  return _("{tile}: {place}", {tile, place: KINDS[c.kind]});
}
// The set as a picture: tile a-b at row a, column b (upper triangle), coloured by place.
function renderGrid(ledger) {
  const n = ledger.set;
  const byTile = {};
  for (const c of ledger.cells) byTile[c.tile[0] + "-" + c.tile[1]] = c;
  const grid = document.getElementById("ledger-grid");
  grid.style.gridTemplateColumns = "repeat(" + (n + 2) + ", minmax(0, 1fr))";
  grid.setAttribute("role", "img");
  grid.setAttribute("aria-label", _("The set of {count} tiles by place", {count: number(ledger.set_size)}));
  const nodes = [el("span", "", {class: "head"})];
  for (let b = 0; b <= n; b++) nodes.push(el("span", String(b), {class: "head"}));
  for (let a = 0; a <= n; a++) {
    nodes.push(el("span", String(a), {class: "head"}));
    for (let b = 0; b <= n; b++) {
      const c = byTile[a + "-" + b];
      if (!c) { nodes.push(el("span", undefined, {class: "cell void"})); continue; }
      const mark = c.kind === "hand" ? c.players[0].charAt(0) : c.kind === "twice" ? "2"
        : c.kind === "nowhere" ? "?" : "";
      const cell = el("button", mark, {type: "button", "data-tile": a + "-" + b, title: cellText(c),
        "aria-label": cellText(c), class: "cell k-" + c.kind + (c.problem ? " problem" : "")});
      cell.addEventListener("click", () => text("ledger-cell", cellText(c)));
      nodes.push(cell);
    }
  }
  grid.replaceChildren(...nodes);
  const legend = ["table", "hand", "hidden", "nowhere", "twice"].map((k) => {
    const li = el("li");
    const count = ledger.cells.filter((c) => c.kind === k).length;
    li.append(el("span", undefined, {class: "swatch k-" + k}), _("{place} ({count})", {place: KINDS[k], count: number(count)}));
    return li;
  });
  const named = el("li");
  named.append(el("span", undefined, {class: "swatch problem"}), _("named in a problem"));
  document.getElementById("ledger-legend").replaceChildren(...legend, named);
}
function removeFromHand(tile, name) {
  const why = reason("ledger-reason");
  if (!why) { ledgerSay(_("Write the reason first (kept in the audit trail).")); return; }
  const hand = review.hands.find((h) => h.name === name);
  const kept = hand.tiles.filter((t) => tileText([...t].sort((x, y) => x - y)) !== tileText(tile));
  api(base + "/seats/" + hand.seat + "/hand", {method: "PUT", json: {tiles: kept, reason: why}})
    .then(() => { ledgerSay(_("{tile} removed from {name}'s hand.", {tile: tileText(tile), name})); load(); })
    .catch((e) => ledgerSay(e.message));
}
function replacedText(r) {
  const words = {author: r.author, typed: tiles(r.typed), reading: tiles(r.reading)};
  return r.source === "photo"
    ? _("{author} typed {typed} instead of the photo's reading {reading}.", words)
    : _("{author} changed the confirmed hand {reading} to {typed}.", words);
}
function showReplaced(hands) {
  for (const hand of hands) {
    const list = document.querySelector("#seat-" + hand.seat + " .replaced");
    if (list) list.replaceChildren(...(hand.replaced || []).map((r) => el("li", replacedText(r))));
  }
}
function renderLedger(body) {
  review = body;
  showReplaced(body.hands);
  const ledger = body.ledger;
  document.getElementById("ledger").hidden = false;
  const size = number(ledger.set_size);
  text("ledger-summary", !ledger.adds_up ? _("The round does not add up.") : ledger.closes
    ? _("All {count} tiles accounted for.", {count: size})
    : _("Nothing read contradicts the set of {count} tiles (not every count is known).", {count: size}));
  const waits = body.held_for_shown.filter((w) => !ledger.waits_shown.includes(w));
  document.getElementById("ledger-waits").replaceChildren(
    ...[...ledger.waits_shown, ...waits].map((w) => el("li", w)));
  document.getElementById("ledger-problems").replaceChildren(...ledger.problems.map((p, i) => {
    const li = el("li", ledger.problems_shown[i] + " ", {class: "problem", "data-code": p.code});
    if (p.code === "tile-twice" || p.code === "tile-outside-set") {
      for (const h of p.holders) {
        if (h.kind !== "hand") continue;
        const b = el("button", _("Remove from {name}'s hand", {name: h.player}),
          {type: "button", class: "remove-from-hand", "data-player": h.player});
        b.addEventListener("click", () => removeFromHand(p.tiles[0], h.player));
        li.append(b);
      }
    }
    return li;
  }));
  renderGrid(ledger);
  document.getElementById("boneyard-form").hidden = ledger.deal.undealt !== "boneyard";
  const count = document.getElementById("boneyard-count");
  if (document.activeElement !== count) {
    count.value = ledger.boneyard_entered.source ? String(ledger.boneyard_entered.count) : "";
  }
  const word = ledger.override && ledger.override.applies;
  document.getElementById("override-box").hidden = ledger.adds_up || !!word;
  const note = document.getElementById("override-note");
  note.hidden = !word;
  note.textContent = word ? _("Ruled on your word: {reason}. \"Confirm and score the round\" scores it.",
    {reason: ledger.override.reason}) : "";
}
function loadReview() {
  api(base + "/rounds/current/review").then(renderLedger)
    .catch(() => { document.getElementById("ledger").hidden = true; });
}
document.getElementById("boneyard-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const value = document.getElementById("boneyard-count").value;
  if (value === "") { ledgerSay(_("Count the boneyard's tiles first.")); return; }
  api(base + "/table", {method: "PUT", json: {boneyard: Number(value)}})
    .then(() => { ledgerSay(ngettext("Boneyard: {count} tile.", "Boneyard: {count} tiles.", Number(value))); load(); })
    .catch((e) => ledgerSay(e.message));
});
document.getElementById("override").addEventListener("click", () => {
  api(base + "/rounds/current/ledger/override", {method: "POST", json: {reason: reason("ledger-reason")}})
    .then(() => { document.getElementById("ledger-reason").value = ""; ledgerSay(""); load(); })
    .catch((e) => ledgerSay(e.message));
});
function load() {
  api(base).then(show).catch((e) => say(e.message));
  api(base + "/audit").then(showAudit).catch(() => {});
  loadReview();
}
function table_json() {
  const ends = document.getElementById("ends").value.trim();
  const count = document.getElementById("boneyard").value;
  // The boneyard is sent only when counted: never 0 by default (a game that draws waits).
  const body = count === "" ? {} : {boneyard: Number(count)};
  if (ends) {
    // Lines without a name: the rules give each an id nobody reads, and the rulings name
    // it by its open end ("the line ending in 5"), as single-table mode's correction screen.
    body.layout = {lines: ends.split(/[\s,;]+/).map((v) => ({open_end: Number(v)}))};
  }
  return body;
}
document.getElementById("block").addEventListener("click", () => act(
  api(base + "/rounds/current/block", {method: "POST",
    json: {...table_json(), proposer: document.getElementById("proposer").value}}),
  (b) => b.held ? b.pending.shown : b.outcome.stopped && b.outcome.stopped.player
    ? _("{name} can still play.", {name: b.outcome.stopped.player}) : _("Checked.")));
document.getElementById("domino").addEventListener("click", () => act(
  api(base + "/rounds/current/domino", {method: "POST",
    json: {...table_json(), winner: document.getElementById("winner").value}}),
  (b) => b.pending ? b.pending.shown : _("Called.")));
document.getElementById("score").addEventListener("click", () => act(
  api(base + "/rounds/current/score", {method: "POST"}),
  (b) => b.ended ? _("Round scored: {points}", {points: Object.entries(b.result.points)
    .map(([k, v]) => k + " " + number(v)).join(", ")}) : _("Not blocked after all: play goes on.")));
document.getElementById("cancel").addEventListener("click", () => act(
  api(base + "/rounds/current/cancel", {method: "POST", json: {reason: reason("reason")}}),
  () => _("The ruling is cancelled.")));
document.getElementById("unlock").addEventListener("click", () => act(
  api(base + "/rounds/current/unlock", {method: "POST", json: {reason: reason("reason")}}),
  () => _("The hands are unlocked.")));
document.getElementById("reopen").addEventListener("click", () => act(
  api(base + "/rounds/last/reopen", {method: "POST", json: {reason: reason("reason")}}),
  (b) => _("Round {number} is open again; its points left the standings.", {number: number(b.round)})));
const stream = events(base + "/events");
for (const kind of ["hand", "round"]) stream.addEventListener(kind, load);
load();

"use strict";
// The event director's page: every table, its state, its host page and a new host link.
const {api, events, el, text} = dominocam;
function say(message) { text("message", message); }
function load() {
  for (const row of document.querySelectorAll("tr[data-table]")) {
    const table = row.dataset.table;
    api("api/tables/" + encodeURIComponent(table)).then((state) => {
      const round = state.rounds[state.rounds.length - 1];
      row.querySelector(".round").textContent = round.status === "open"
        ? I18N.number(round.number) : _("{number} (over)", {number: I18N.number(round.number)});
      row.querySelector(".state").textContent = round.pending_shown
        || (round.locked_shown ? _("locked: {reason}", {reason: round.locked_shown}) : _("playing"));
    }).catch((e) => say(e.message));
  }
}
for (const button of document.querySelectorAll("button.host-link")) {
  button.addEventListener("click", () => {
    const table = button.dataset.table;
    api("api/tables/" + encodeURIComponent(table) + "/host-link", {method: "POST"}).then((made) => {
      const qr = document.getElementById("qr-" + table);
      qr.replaceChildren(el("img", undefined, {alt: _("QR code of the host link of {table}", {table}),
        src: "data:image/svg+xml;charset=utf-8," + encodeURIComponent(made.qr)}),
        el("a", made.link, {href: made.link}));
      say(_("A new host link for {table}: the old one no longer works.", {table}));
    }).catch((e) => say(e.message));
  });
}
events("api/events").addEventListener("round", load);
load();

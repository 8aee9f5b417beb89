"use strict";
// The event's OBS overlay: the top players and the teams, refreshed when a round ends.
const {api, events, number} = dominocam;
const shown = Number(new URLSearchParams(location.search).get("top") || 5);
function show(s) {
  document.getElementById("title").textContent = s.event;
  document.getElementById("players").replaceChildren(...s.players.slice(0, shown).map((p) => {
    const li = document.createElement("li");
    li.textContent = _("{name} ({table}): {total}", {name: p.name, table: p.table, total: number(p.total)});
    return li;
  }));
  document.getElementById("teams").textContent =
    s.teams.map((t) => t.name + " " + number(t.total)).join(" · ");
}
function refresh() { api("api/standings").then(show).catch(() => {}); }
refresh();
events("api/events").addEventListener("round", refresh);

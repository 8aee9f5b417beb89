"use strict";
// The event's OBS overlay: the top players and the teams, refreshed when a round ends.
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

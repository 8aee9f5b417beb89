"use strict";
(function () {
  var root = DC.$("overlay"), gameId = root.getAttribute("data-game") || null;
  function render(s) {
    var r = s.round, ended = r.status === "ended", res = r.result || {};
    var ends = DC.$("ends");
    if (ends) {
      DC.clear(ends);
      var trains = DC.trains(s);
      DC.setText("ends-label", trains ? DC.engineText(s) : _("Open ends"));
      if (trains) trains.filter(function (t) { return t.started; }).forEach(function (t) { ends.appendChild(DC.el("div", { class: "end train" + (t.marked ? " marked" : ""), "data-owner": t.owner || "" }, [String(t.open_end), DC.el("small", { text: t.marked ? _("{owner} · marker", { owner: t.owner || _("public") }) : (t.owner || _("public")) })])); });
      // An open end by where it lies on the table (read from the photo), else by its typed name
      // (a line nobody named shows its open end alone).
      else r.lines.forEach(function (l) { ends.appendChild(DC.el("div", { class: "end", "data-place": l.place || "" }, [String(l.open_end), DC.el("small", { text: l.place_shown || l.name_shown || "" })])); });
      if (!r.lines.length) ends.appendChild(DC.el("div", { class: "end", text: "–" }));
    }
    var counts = DC.$("counts");
    if (counts) {
      DC.clear(counts);
      s.players.forEach(function (p) { counts.appendChild(DC.el("tr", {}, [DC.el("td", { text: p.name }), DC.el("td", { class: "num", text: p.tiles === null ? "–" : DC.num(p.tiles) })])); });
    }
    var scores = DC.$("scores");
    if (scores) {
      DC.clear(scores);
      var fin = s.scoreboard.final, winners = fin ? fin.winners : [];
      DC.setText("scores-label", fin ? _("Final scores") : ended ? _("Round {number} · over · scoreboard", { number: r.number }) : _("Round {number} · scoreboard", { number: r.number }));
      if (fin) DC.setText("round-result", !winners.length ? _("Game over") : winners.length > 1 ? _("Game over · tie: {names}", { names: winners.join(", ") }) : _("Game over · winner: {name}", { name: winners[0] }));
      else {
        var roundWinner = res.winner ? _("Winner: {name}", { name: res.winner }) : _("No winner");
        DC.setText("round-result", !ended ? "" : (res.tied || []).length > 1 ? _("{result} (tie: {names})", { result: roundWinner, names: res.tied.join(", ") }) : roundWinner);
      }
      scores.appendChild(DC.el("tr", {}, [DC.el("th", { text: "" }), DC.el("th", { text: ended ? _("Pips") : _("Tiles") }), DC.el("th", { text: _("Round") }), DC.el("th", { text: _("Total") })]));
      var sb = s.scoreboard;
      sb.columns.forEach(function (name) {
        var p = s.players.filter(function (x) { return x.name === name; })[0];
        var middle = p ? (ended ? (p.pip_total === null || p.pip_total === undefined ? "" : DC.num(p.pip_total)) : (p.tiles === null ? "–" : DC.num(p.tiles))) : "";
        var pts = ended && res.points && res.points[name] !== undefined ? DC.num(res.points[name]) : "";
        var won = fin ? winners.indexOf(name) >= 0 : ended && res.winner === name;
        scores.appendChild(DC.el("tr", { class: won ? "winner" : "" }, [DC.el("td", { text: name }), DC.el("td", { class: "num", text: middle }),
          DC.el("td", { class: "num", text: pts }), DC.el("td", { class: "num", text: DC.num(sb.totals[name]) })]));
      });
    }
    var last = DC.$("last-event");
    if (last) {
      var latest = (r.table.events || [])[0];
      DC.$("events-panel").hidden = !latest;
      last.textContent = latest ? (latest.shown || latest.text) : "";
    }
    document.body.setAttribute("data-version", String(s.version));
  }
  DC.live(gameId, render);
})();

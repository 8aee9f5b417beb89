"use strict";
(function () {
  var root = DC.$("overlay"), gameId = root.getAttribute("data-game") || null;
  function render(s) {
    var r = s.round, ended = r.status === "ended", res = r.result || {};
    var ends = DC.$("ends");
    if (ends) {
      DC.clear(ends);
      r.lines.forEach(function (l) { ends.appendChild(DC.el("div", { class: "end" }, [String(l.open_end), DC.el("small", { text: l.name })])); });
      if (!r.lines.length) ends.appendChild(DC.el("div", { class: "end", text: "–" }));
    }
    var counts = DC.$("counts");
    if (counts) {
      DC.clear(counts);
      s.players.forEach(function (p) { counts.appendChild(DC.el("tr", {}, [DC.el("td", { text: p.name }), DC.el("td", { class: "num", text: p.tiles === null ? "–" : String(p.tiles) })])); });
    }
    var scores = DC.$("scores");
    if (scores) {
      DC.clear(scores);
      DC.setText("scores-label", "Round " + r.number + (ended ? " · over" : "") + " · scoreboard");
      DC.setText("round-result", ended ? (res.winner ? "Winner: " + res.winner : "No winner") + ((res.tied || []).length > 1 ? " (tie: " + res.tied.join(", ") + ")" : "") : "");
      scores.appendChild(DC.el("tr", {}, [DC.el("th", { text: "" }), DC.el("th", { text: ended ? "Pips" : "Tiles" }), DC.el("th", { text: "Round" }), DC.el("th", { text: "Total" })]));
      var sb = s.scoreboard;
      sb.columns.forEach(function (name) {
        var p = s.players.filter(function (x) { return x.name === name; })[0];
        var middle = p ? (ended ? (p.pip_total === null || p.pip_total === undefined ? "" : String(p.pip_total)) : (p.tiles === null ? "–" : String(p.tiles))) : "";
        var pts = ended && res.points && res.points[name] !== undefined ? String(res.points[name]) : "";
        scores.appendChild(DC.el("tr", { class: ended && res.winner === name ? "winner" : "" }, [DC.el("td", { text: name }), DC.el("td", { class: "num", text: middle }),
          DC.el("td", { class: "num", text: pts }), DC.el("td", { class: "num", text: String(sb.totals[name]) })]));
      });
    }
    document.body.setAttribute("data-version", String(s.version));
  }
  DC.live(gameId, render);
})();

"use strict";
(function () {
  var app = DC.$("app"), gameId = app.getAttribute("data-game"), admin = app.getAttribute("data-admin") === "1";
  var state = null, lastCheckShown = null;
  function playersOptions(select, players) {
    if (!select) return;
    var keep = select.value;
    DC.clear(select);
    players.forEach(function (p) { select.appendChild(DC.el("option", { value: p.name, text: p.name })); });
    if (keep) select.value = keep;
  }
  function render(s) {
    if (DC.older(s, state)) return;
    state = s;
    var g = s.game, r = s.round;
    DC.setText("game-title", g.name);
    var sub = [g.variant_title, _("double-{set}", { set: g.set }), ngettext("{count} player", "{count} players", s.players.length)];
    if (g.status !== "active") sub.push(_("finished"));
    DC.setText("game-sub", sub.join(" · "));
    var label = ["", _("round {number}", { number: r.number })];
    if (r.engine !== null && r.engine !== undefined) label.push(_("engine {engine}-{engine}", { engine: r.engine }));
    if (r.status === "ended") label.push(_("ended ({how})", { how: DC.endedByText(r.ended_by) }));
    DC.setText("round-label", label.join(" · ").trim());
    DC.drawScene(DC.$("scene-wrap"), r.table.image, r.table.scene, { version: s.version, empty: _("No table photo yet: upload one, or enter the lines by hand on the correction screen.") });
    var none = _("none");
    DC.setText("open-ends", r.open_ends.length ? r.open_ends.join(", ") : none);
    // Never 0 by default: a draw game's boneyard is "not counted" until the host enters it.
    DC.setText("boneyard", r.boneyard !== null && r.boneyard !== undefined ? DC.num(r.boneyard) : g.draws ? _("not counted") : _("none (nobody draws)"));
    DC.setText("face-down", DC.num(r.table.face_down || 0));
    var lines = DC.clear(DC.$("lines")), trains = DC.trains(s);
    DC.setText("engine-round", DC.engineText(s));
    if (trains) {
      trains.forEach(function (t) {
        lines.appendChild(DC.el("li", { class: "train" + (t.marked ? " marked" : ""), "data-owner": t.owner || "" }, [
          DC.el("strong", { text: t.label }), t.started ? _(": open end {end}", { end: t.open_end }) : _(": not started"),
          t.marked ? DC.el("span", { class: "marker", text: _(" · marker out: anyone may play on it") }) : ""]));
      });
    } else {
      // A line read from the photo by where its open end lies; one entered by hand by the name
      // the host typed, or by its open end alone (never by an id such as "line 2").
      r.lines.forEach(function (l) {
        var params = { line: l.name_shown, end: l.open_end, owner: l.owner, place: l.place_shown };
        params.where = l.place_shown ? _("Open end {end} {place}", params) : l.name_shown ? _("{line}: open end {end}", params) : _("Open end {end}", params);
        lines.appendChild(DC.el("li", { "data-place": l.place || "", text: !l.owner ? params.where
          : l.marked ? _("{where} (train of {owner}, marked)", params) : _("{where} (train of {owner})", params) }));
      });
    }
    DC.renderDoubts(DC.$("warnings"), r.table.scene, admin ? _("Tiles in doubt are drawn dashed orange: check them on the correction screen.") : _("Tiles in doubt are drawn dashed orange: the host checks them."), r.table.warnings_shown);
    DC.setText("review", ((r.review || {}).messages || []).join(" "));
    // The host's way to what a held ruling waits for: the correction screen's ledger.
    if (admin) DC.$("check-link").hidden = !(r.status === "open" && (r.review || {}).host_checking);
    DC.setText("locked", r.status === "open" && r.locked ? _("Hands are locked ({why}).", { why: r.locked.by_shown || r.locked.by }) + (r.pending_end ? " " + DC.pendingText(r.pending_end) : "") : "");
    DC.renderAudit(DC.$("audit"), s.audit);
    renderAdmin(s);
    DC.$("lines-note").hidden = !r.lines_by_hand;
    renderTableEvents(r.table.events || []);
    var body = DC.clear(DC.$("players"));
    s.players.forEach(function (p, i) {
      var status = [{ confirmed: _("hand in"), unconfirmed: _("photo read, not confirmed"), "to-confirm": _("to confirm again") }[p.hand_status] || _("waiting for hand")];
      if (p.hand_changes) status.push(_("changed {count}× after confirming", { count: DC.num(p.hand_changes) }));
      if (p.declared_cannot_play) status.push(_("says cannot play"));
      var cells = [DC.el("td", { text: DC.num(p.seat + 1) }),
        DC.el("td", { text: p.team ? _("{name} ({team})", { name: p.name, team: p.team }) : p.name }),
        DC.el("td", { text: p.tiles === null ? "–" : DC.num(p.tiles) }), DC.el("td", { text: status.join(" · ") })];
      if (admin) cells.push(DC.el("td", {}, [seatButton(_("Rename"), "rename", p, i), seatButton("↑", "up", p, i)]));
      body.appendChild(DC.el("tr", { "data-player": p.name }, cells));
    });
    playersOptions(DC.$("proposer"), s.players);
    playersOptions(DC.$("hand-player"), s.players);
    playersOptions(DC.$("domino-player"), s.players);
    var check = r.block_checks[0];
    DC.$("block-card").hidden = r.status !== "open" && !check;  // an ended round's card only tells its check
    if (check && check.id !== lastCheckShown) { lastCheckShown = check.id; DC.showSteps(DC.$("steps"), DC.$("block-result"), check); }
    if (!check && lastCheckShown !== null) { lastCheckShown = null; DC.showSteps(DC.$("steps"), DC.$("block-result"), null); }
    renderResult(s);
    renderScoreboard(s.scoreboard);
    renderHistory(s.history || []);
  }
  /* Ended rounds, newest first: each hand, the ruling and that round's audit trail. */
  function renderHistory(rounds) {
    DC.$("history-card").hidden = !rounds.length;
    var box = DC.clear(DC.$("history"));
    rounds.slice().reverse().forEach(function (r) {
      var title = [_("Round {number}", { number: r.number })];
      if (r.engine !== null && r.engine !== undefined) title.push(_("engine {engine}-{engine}", { engine: r.engine }));
      title.push(DC.endedByText(r.ended_by));
      if (r.winner) title.push(_("winner {name}", { name: r.winner }));
      title = title.join(" · ");
      var rows = DC.el("tbody");
      r.hands.forEach(function (h) {
        rows.appendChild(DC.el("tr", { "data-player": h.player }, [DC.el("td", { text: h.player }),
          DC.el("td", { class: "hand", text: h.tiles === null ? "–" : h.tiles.map(DC.tileText).join(" ") || _("(none)") }),
          DC.el("td", { text: DC.num(h.pip_total) }), DC.el("td", { text: h.points === null || h.points === undefined ? "" : DC.num(h.points) })]));
      });
      var table = DC.el("table", {}, [DC.el("thead", {}, [DC.el("tr", {}, [DC.el("th", { text: _("Player") }), DC.el("th", { text: _("Hand") }), DC.el("th", { text: _("Pips") }), DC.el("th", { text: _("Points") })])]), rows]);
      var trail = DC.el("ul", { class: "audit" });
      r.audit.forEach(function (e) {
        var params = { time: DC.time(e.time), text: e.shown || e.text, reason: e.reason };
        trail.appendChild(DC.el("li", { text: e.reason ? _("{time} · {text} (reason: {reason})", params) : _("{time} · {text}", params) }));
      });
      var parts = [DC.el("summary", { text: title }), table];
      // Every tile accounted for, or what the host overrode and why.
      if (r.ledger) parts.push(DC.el("p", { class: r.ledger.overridden ? "ledger-line warn" : "ledger-line muted", text: [r.ledger.text].concat(r.ledger.problems).join(" ") }));
      if (r.audit.length) parts.push(trail);
      box.appendChild(DC.el("details", { class: "history-round", "data-round": String(r.number) }, parts));
    });
  }
  function renderResult(s) {
    var r = s.round, card = DC.$("result-card");
    card.hidden = r.status !== "ended";
    // Once the round is over its result takes the players' place: each hand, pips and points
    // (the tile counts and hand states are over), and the host's seat buttons move with it.
    DC.$("players-card").hidden = !card.hidden;
    if (card.hidden) return;
    var res = r.result || {};
    var tied = res.tied || [];
    var text = res.winner ? _("Winner: {name}", { name: res.winner }) : _("No winner");
    if (tied.length > 1) text = _("{result} · tied: {names}", { result: text, names: tied.join(", ") });
    text = _("{result} ({how})", { result: text, how: DC.endedByText(r.ended_by === "domino" ? "domino" : "block") });
    DC.setText("winner", text);
    var rows = DC.clear(DC.$("result-rows"));
    s.players.forEach(function (p, i) {
      var pts = (res.points || {})[p.name];
      var cells = [DC.el("td", { text: p.name }), DC.el("td", { text: (p.hand || []).map(DC.tileText).join(" ") || "–" }),
        DC.el("td", { class: "pips", text: p.pip_total === null || p.pip_total === undefined ? "" : DC.num(p.pip_total) }),
        DC.el("td", { class: "points", text: pts === undefined ? "" : DC.num(pts) })];
      if (admin) cells.push(DC.el("td", { class: "seat-buttons" }, [seatButton(_("Rename"), "rename", p, i), seatButton("↑", "up", p, i)]));
      rows.appendChild(DC.el("tr", { "data-player": p.name, class: res.winner === p.name ? "winner" : "" }, cells));
    });
    Object.keys(res.points || {}).forEach(function (name) {
      if (!s.players.some(function (p) { return p.name === name; })) rows.appendChild(DC.el("tr", {}, [DC.el("td", { text: name }), DC.el("td"), DC.el("td"), DC.el("td", { class: "points", text: DC.num(res.points[name]) })]));
    });
  }
  /* The live camera's latest confirmed changes (newest first), as the tracker words them. */
  function renderTableEvents(events) {
    DC.$("table-events-box").hidden = !events.length;
    var list = DC.clear(DC.$("table-events"));
    events.forEach(function (e) {
      list.appendChild(DC.el("li", { "data-event": e.id, class: "event-" + e.kind, text: _("{time} · {text}", { time: DC.time(e.time), text: e.shown || e.text }) }));
    });
  }
  function renderGameEnd(sb) {
    var end = sb.end, finalNode = DC.$("final");
    DC.setText("game-end", DC.gameEndText(end));
    finalNode.hidden = !sb.final;
    finalNode.textContent = sb.final ? sb.final.text : "";
  }
  function renderScoreboard(sb) {
    renderGameEnd(sb);
    var box = DC.clear(DC.$("scoreboard"));
    box.appendChild(DC.scoreTable(sb));
    box.scrollTop = box.scrollHeight;  // a long game shows its newest rounds next to the totals
  }
  function seatButton(text, kind, p, i) {
    var b = DC.el("button", { type: "button", class: "seat-" + kind, text: text, "aria-label": kind + " " + p.name });
    if (kind === "up" && i === 0) b.disabled = true;
    b.addEventListener("click", function () { if (kind === "up") moveUp(i); else rename(p); });
    return b;
  }
  function rename(p) {
    var name = prompt(_("New name for {name}", { name: p.name }), p.name);
    if (!name) return;
    DC.api("PATCH", "/api/games/" + gameId + "/players/" + p.id, { name: name }).then(render).catch(function (e) { undoMsg(e.message, "error"); });
  }
  function moveUp(i) {
    var ids = state.players.map(function (p) { return p.id; });
    ids.splice(i - 1, 0, ids.splice(i, 1)[0]);
    DC.api("PUT", "/api/games/" + gameId + "/players/order", { players: ids }).then(render).catch(function (e) { undoMsg(e.message, "error"); });
  }
  function undoMsg(text, cls) { var n = DC.$("undo-msg"); if (n) { n.textContent = text; n.className = cls || ""; } }
  /* The host's buttons follow the round: score or cancel a ruling, unlock, correct a score. */
  function renderAdmin(s) {
    if (!admin) return;
    var r = s.round, open = r.status === "open";
    DC.$("score-round").hidden = !(open && r.pending_end);
    DC.$("cancel-ruling").hidden = !(open && r.pending_end);
    DC.$("unlock").hidden = !(open && r.locked);
    // Once the hands are locked a hand entered here needs the host's reason (the audit trail).
    DC.$("hand-reason-label").hidden = !(open && r.locked);
    // A next round can start only once this one is over (and the game is not); domino only while open.
    DC.$("new-round").hidden = open || !!s.scoreboard.final;
    // One step for the usual next round: its table photo starts it (a domino round needs none).
    DC.$("next-round-photo").hidden = DC.$("new-round").hidden;
    DC.$("domino-box").hidden = !open;
    // An ended round takes no photo, hand or proposal: only the next round does.
    DC.$("upload-form").hidden = !open;
    DC.$("block-form").hidden = !open;
    DC.$("hand-entry").hidden = !open;
    var rounds = DC.$("score-round-number"), keep = rounds.value;
    DC.clear(rounds);
    s.scoreboard.rounds.forEach(function (x) { rounds.appendChild(DC.el("option", { value: String(x.number), text: String(x.number) })); });
    if (keep) rounds.value = keep; else if (s.scoreboard.rounds.length) rounds.value = String(s.scoreboard.rounds[s.scoreboard.rounds.length - 1].number);
    var names = DC.$("score-name"), keepName = names.value;
    DC.clear(names);
    s.scoreboard.columns.forEach(function (c) { names.appendChild(DC.el("option", { value: c, text: c })); });
    if (keepName) names.value = keepName;
  }
  var feed = DC.live(gameId, render, function (st) { DC.setText("connection", _("updates: {status}", { status: st })); });

  // Live camera (server-side loop): one MJPEG stream shared by all viewers.
  fetch("/api/camera").then(function (r) { return r.json(); }).then(function (cam) {
    if (cam.state === "off") return;
    DC.$("camera-box").hidden = false;
    DC.$("camera-img").src = "/api/camera/stream";
    var snap = DC.$("camera-snapshot"); if (snap) snap.hidden = false;
    setInterval(function () {
      fetch("/api/camera").then(function (r) { return r.json(); }).then(function (c) {
        DC.setText("camera-state", _("({status})", { status: c.text }));
      });
    }, 3000);
  });

  if (!admin) return;
  function msg(text, cls) { var n = DC.$("upload-msg"); n.textContent = text; n.className = cls || ""; }
  function upload(blob, name) {
    var fd = new FormData(); fd.append("photo", blob, name || "table.jpg");
    msg(_("Reading the photo…"));
    DC.api("POST", "/api/games/" + gameId + "/rounds/current/table", fd).then(function (d) {
      if (d._status === 503) msg(_("Photo stored. {why} Use the correction screen to enter the lines.", { why: d.error }), "warn");
      else msg(ngettext("Read {count} tile.", "Read {count} tiles.", d.scene.tiles.length), "ok");
      feed.refresh();
    }).catch(function (e) { msg(e.message, "error"); });
  }
  DC.$("table-file").addEventListener("change", function (ev) { if (ev.target.files[0]) upload(ev.target.files[0], ev.target.files[0].name); ev.target.value = ""; });
  // getUserMedia exists only in a secure context (https or this computer): no button elsewhere.
  if (DC.canUseWebcam()) DC.$("browser-camera").hidden = false;
  DC.$("browser-camera").addEventListener("click", function () {
    DC.startWebcam(DC.$("webcam"), DC.$("webcam-video"), DC.$("webcam-shot"), function (b) { upload(b, "camera.jpg"); }).catch(function (e) { msg(e.message, "error"); });
  });
  DC.$("camera-snapshot").addEventListener("click", function () {
    DC.api("POST", "/api/games/" + gameId + "/rounds/current/table/camera").then(function (d) { msg(d._status === 503 ? d.error : _("Frame stored."), d._status === 503 ? "warn" : "ok"); feed.refresh(); }).catch(function (e) { msg(e.message, "error"); });
  });
  DC.$("block-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var who = DC.$("proposer").value;
    if (!confirm(_("{name} proposes a block? The check runs clockwise from {name}; if nobody can play, the round is scored now.", { name: who }))) return;
    DC.setText("block-result", _("Checking clockwise…"));
    DC.api("POST", "/api/games/" + gameId + "/rounds/current/block-check", { proposer: who, confirm: true })
      .then(function (d) { if (lastCheckShown !== d.outcome.id) { lastCheckShown = d.outcome.id; DC.showSteps(DC.$("steps"), DC.$("block-result"), d.outcome); } render(d.state); })
      .catch(function (e) { var n = DC.$("block-result"); n.className = "error"; n.textContent = e.message; });
  });
  DC.$("hand-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var sel = DC.$("hand-player"), p = state.players.filter(function (x) { return x.name === sel.value; })[0];
    var reason = DC.$("hand-reason"), why = reason.value.trim(), locked = !!state.round.locked;
    if (locked && !why) { msg(_("The hands are locked: write why you change {name}'s hand (kept in the audit trail), then save again.", { name: p.name }), "error"); reason.focus(); return; }
    try {
      var body = { tiles: DC.parseTiles(DC.$("hand-tiles").value) };
      if (locked) body.reason = why;
      DC.api("PUT", "/api/games/" + gameId + "/rounds/current/hands/" + p.id, body)
        .then(function (d) { DC.$("hand-tiles").value = ""; reason.value = ""; msg(ngettext("{name}: {count} tile saved.", "{name}: {count} tiles saved.", d.tiles, { name: d.player }), "ok"); feed.refresh(); })
        .catch(function (e) { msg(e.message, "error"); });
    } catch (e) { msg(e.message, "error"); }
  });
  DC.$("next-table-file").addEventListener("change", function (ev) {
    var file = ev.target.files[0];
    ev.target.value = "";
    if (!file) return;
    DC.api("POST", "/api/games/" + gameId + "/rounds").then(function (s) { render(s); upload(file, file.name); })
      .catch(function (e) { msg(e.message, "error"); });
  });
  DC.$("new-round").addEventListener("click", function () {
    DC.api("POST", "/api/games/" + gameId + "/rounds").then(render).catch(function (e) { msg(e.message, "error"); });
  });
  DC.$("domino").addEventListener("click", function () {
    var who = DC.$("domino-player").value;
    if (!confirm(_("{name} played their last tile: end and score the round?", { name: who }))) return;
    DC.api("POST", "/api/games/" + gameId + "/rounds/current/domino", { player: who, confirm: true }).then(function (d) { render(d.state); }).catch(function (e) { msg(e.message, "error"); });
  });
  function withReason(question, method, path, extra) {
    var reason = prompt(question);
    if (!reason) return;
    var body = extra || {}; body.reason = reason;
    DC.api(method, "/api/games/" + gameId + path, body).then(function (d) { render(d.state || d); undoMsg(_("Done."), "ok"); }).catch(function (e) { undoMsg(e.message, "error"); });
  }
  DC.$("score-round").addEventListener("click", function () {
    if (!confirm(_("Score the round now?"))) return;
    DC.api("POST", "/api/games/" + gameId + "/rounds/current/score").then(function (d) { render(d.state); }).catch(function (e) { msg(e.message, "error"); });
  });
  DC.$("cancel-ruling").addEventListener("click", function () { withReason(_("Why is this ruling cancelled? (kept in the audit trail)"), "POST", "/rounds/current/cancel"); });
  DC.$("unlock").addEventListener("click", function () { withReason(_("Why unlock the hands? (kept in the audit trail)"), "POST", "/rounds/current/unlock"); });
  DC.$("reopen").addEventListener("click", function () { withReason(_("Why reopen the last round? (kept in the audit trail)"), "POST", "/rounds/reopen"); });
  DC.$("score-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var number = DC.$("score-round-number").value, name = DC.$("score-name").value;
    var row = state.scoreboard.rounds.filter(function (x) { return String(x.number) === number; })[0];
    if (!row) { undoMsg(_("No ended round to correct."), "error"); return; }
    var points = {}; Object.keys(row.points).forEach(function (k) { points[k] = row.points[k]; });
    points[name] = parseInt(DC.$("score-points").value, 10);
    DC.api("PATCH", "/api/games/" + gameId + "/rounds/" + number + "/score", { points: points, reason: DC.$("score-reason").value })
      .then(function (s) { render(s); undoMsg(_("Round {number} corrected.", { number: number }), "ok"); }).catch(function (e) { undoMsg(e.message, "error"); });
  });
  DC.$("delete-game").addEventListener("click", function () {
    if (!confirm(_("Delete this game, its rounds, scores and photos? This cannot be undone."))) return;
    DC.api("DELETE", "/api/games/" + gameId).then(function () { location.href = "/setup"; }).catch(function (e) { undoMsg(e.message, "error"); });
  });
})();

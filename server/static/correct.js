"use strict";
(function () {
  var app = DC.$("app"), gameId = app.getAttribute("data-game");
  var state = null, selected = null, editingLines = false;
  var base = "/api/games/" + gameId + "/rounds/current";
  function msg(text, cls) { var n = DC.$("msg"); n.textContent = text; n.className = cls || ""; }
  function drawTable() {
    var t = state.round.table;
    DC.drawScene(DC.$("scene-wrap"), t.image, t.scene, { version: state.version, selected: selected && selected.id,
      empty: _("No table photo yet: enter the lines below."), onTile: function (tile) { select(tile); }, onRejected: restore });
  }
  function select(tile) {
    selected = tile;
    var form = DC.$("tile-form"); form.hidden = false;
    DC.setText("tile-label", tile.face === "down" ? _("Tile {id} (face down)", { id: tile.id }) : _("Tile {id}", { id: tile.id }));
    DC.$("tile-a").value = tile.pips ? tile.pips[0] : "";
    DC.$("tile-b").value = tile.pips ? tile.pips[1] : "";
    DC.$("tile-pick").value = String(tile.id);
    drawTable();
  }
  function lineRow(line) {
    var owner = DC.el("select", { class: "owner" });
    owner.appendChild(DC.el("option", { value: "", text: _("(public)") }));
    state.players.forEach(function (p) { var o = DC.el("option", { value: p.name, text: p.name }); if (line.owner === p.name) o.selected = true; owner.appendChild(o); });
    var marked = DC.el("input", { type: "checkbox", class: "marked" }); marked.checked = !!line.marked;
    var del = DC.el("button", { type: "button", text: _("Remove") });
    // A line read from the photo keeps where it lies (the players are told "the 5 at the top").
    // Its name is the one the host typed, or none: a line nobody named is told by its open end
    // and place ("the line ending in 5"), never by an id such as "line 2".
    var name = DC.el("input", { class: "name", value: line.name_shown || "", placeholder: _("name (optional)"), "aria-label": _("line name") });
    var tr = DC.el("tr", { "data-place": line.place || "" }, [
      DC.el("td", {}, line.place_shown ? [name, " ", DC.el("small", { class: "muted place", text: line.place_shown })] : [name]),
      DC.el("td", {}, [DC.el("input", { class: "end", type: "number", min: "0", max: String(state.game.set), value: line.open_end === undefined ? "" : line.open_end, "aria-label": _("open end") })]),
      DC.el("td", {}, [owner]), DC.el("td", {}, [marked]), DC.el("td", {}, [del])]);
    del.addEventListener("click", function () { tr.remove(); editingLines = true; });
    tr.addEventListener("input", function () { editingLines = true; });
    return tr;
  }
  function renderLines() {
    var body = DC.clear(DC.$("line-rows"));
    state.round.lines.forEach(function (l) { body.appendChild(lineRow(l)); });
  }
  function tiles() { return (state.round.table.scene || {}).tiles || []; }
  function renderPicker() {
    // Outlines can overlap (or be too small to tap): the list reaches every tile.
    var pick = DC.clear(DC.$("tile-pick"));
    pick.appendChild(DC.el("option", { value: "", text: _("(choose a tile)") }));
    tiles().forEach(function (t) {
      var reading = t.face === "down" ? DC.faceText("down") : t.pips ? DC.tileText(t.pips) : _("unread");
      var text = _("Tile {id}: {reading}", { id: t.id, reading: reading });
      var o = DC.el("option", { value: String(t.id), text: text });
      if (selected && selected.id === t.id) o.selected = true;
      pick.appendChild(o);
    });
  }
  DC.$("tile-pick").addEventListener("change", function (ev) {
    var id = ev.target.value;
    var tile = tiles().filter(function (t) { return String(t.id) === id; })[0];
    if (tile) select(tile);
    else { selected = null; DC.$("tile-form").hidden = true; drawTable(); }
  });
  function reviewMsg(text, cls) { var n = DC.$("review-msg"); n.textContent = text; n.className = cls || ""; }
  function restore(box, index) {
    var guess = box.pips ? DC.tileText(box.pips) : "";
    var text = box.face === "down" && !box.pips ? "" : prompt(_("Restore this box as the tile:"), guess);
    if (text === null) return;
    var body = text ? { pips: DC.parseTiles(text)[0] } : {};
    DC.api("POST", base + "/table/rejected/" + index + "/restore", body).then(function (d) { reviewMsg(_("Restored as tile {id}.", { id: d.id }), "ok"); render(d.state); })
      .catch(function (e) { reviewMsg(e.message, "error"); });
  }
  function removeFromHand(tile, name) {
    var player = state.players.filter(function (p) { return p.name === name; })[0];
    var reason = prompt(_("Remove {tile} from {name}'s hand. Reason (kept in the audit trail):", { tile: DC.tileText(tile), name: name }));
    if (!reason) return;
    var url = base + "/hands/" + player.id;
    DC.api("GET", url).then(function (h) {
      var tiles = h.tiles.filter(function (t) { return DC.tileText(t.slice().sort()) !== DC.tileText(tile.slice().sort()); });
      return DC.api("PUT", url, { tiles: tiles, reason: reason });
    }).then(function () { ledgerMsg(_("{tile} removed from {name}'s hand.", { tile: DC.tileText(tile), name: name }), "ok"); loadReview(); })
      .catch(function (e) { ledgerMsg(e.message, "error"); });
  }
  function ledgerMsg(text, cls) { var n = DC.$("ledger-msg"); n.textContent = text; n.className = cls || ""; }
  /* Where a tile of the set is, in words (the grid's cells say it on a tap). */
  var KINDS = { table: _("on the table"), hand: _("in a hand"), hidden: _("hidden: boneyard, set aside, or a hand not read"), nowhere: _("nowhere"), twice: _("in two places") };
  function cellText(c) {
    var tile = DC.tileText(c.tile);
    if (c.kind === "hand") return _("{tile}: in {name}'s hand", { tile: tile, name: c.players[0] });
    if (c.kind === "twice") {
      var places = c.players.map(function (n) { return _("{name}'s hand", { name: n }); });
      if (c.on_table) places.unshift(_("the table"));
      return _("{tile}: in two places ({places})", { tile: tile, places: places.join(", ") });
    }
    return _("{tile}: {place}", { tile: tile, place: KINDS[c.kind] });
  }
  /* The set as a picture: tile a-b at row a, column b (upper triangle), coloured by place. */
  function renderGrid(ledger) {
    var n = ledger.set, grid = DC.clear(DC.$("ledger-grid")), byTile = {};
    ledger.cells.forEach(function (c) { byTile[c.tile[0] + "-" + c.tile[1]] = c; });
    grid.style.gridTemplateColumns = "repeat(" + (n + 2) + ", minmax(0, 1fr))";
    grid.setAttribute("role", "img");
    grid.setAttribute("aria-label", _("The set of {count} tiles by place", { count: ledger.set_size }));
    grid.appendChild(DC.el("span", { class: "head" }));
    for (var b = 0; b <= n; b++) grid.appendChild(DC.el("span", { class: "head", text: String(b) }));
    for (var a = 0; a <= n; a++) {
      grid.appendChild(DC.el("span", { class: "head", text: String(a) }));
      for (b = 0; b <= n; b++) {
        var c = byTile[a + "-" + b];
        if (!c) { grid.appendChild(DC.el("span", { class: "cell void" })); continue; }
        var mark = c.kind === "hand" ? c.players[0].charAt(0) : c.kind === "twice" ? "2" : c.kind === "nowhere" ? "?" : "";
        var node = DC.el("button", { type: "button", class: "cell k-" + c.kind + (c.problem ? " problem" : ""), "data-tile": a + "-" + b, title: cellText(c), "aria-label": cellText(c), text: mark });
        node.addEventListener("click", (function (cell) { return function () { DC.setText("ledger-cell", cellText(cell)); }; })(c));
        grid.appendChild(node);
      }
    }
    var legend = DC.clear(DC.$("ledger-legend"));
    ["table", "hand", "hidden", "nowhere", "twice"].forEach(function (k) {
      var count = ledger.cells.filter(function (c) { return c.kind === k; }).length;
      legend.appendChild(DC.el("li", {}, [DC.el("span", { class: "swatch k-" + k }), _("{place} ({count})", { place: KINDS[k], count: DC.num(count) })]));
    });
    legend.appendChild(DC.el("li", {}, [DC.el("span", { class: "swatch problem" }), _("named in a problem")]));
  }
  /* The round's ledger: what a ruling waits for, each problem (with its fix), the grid. */
  function renderLedger(ledger) {
    var summary = !ledger.adds_up ? _("The round does not add up.") : ledger.closes
      ? _("All {count} tiles accounted for.", { count: DC.num(ledger.set_size) })
      : _("Nothing read contradicts the set of {count} tiles (not every count is known).", { count: DC.num(ledger.set_size) });
    DC.setText("ledger-summary", summary);
    DC.$("ledger-summary").className = "big " + (ledger.adds_up ? "ok" : "error");
    var waits = DC.clear(DC.$("ledger-waits"));
    ledger.waits_shown.forEach(function (w) { waits.appendChild(DC.el("li", { text: w })); });
    var list = DC.clear(DC.$("conflicts"));
    ledger.problems.forEach(function (p, i) {
      var parts = [ledger.problems_shown[i] + " "];
      if (p.code === "tile-twice" || p.code === "tile-outside-set") {
        p.holders.forEach(function (h) {
          if (h.kind !== "hand") return;
          var b = DC.el("button", { type: "button", class: "remove-from-hand", "data-player": h.player, text: _("Remove from {name}'s hand", { name: h.player }) });
          b.addEventListener("click", function () { removeFromHand(p.tiles[0], h.player); });
          parts.push(b);
        });
      }
      list.appendChild(DC.el("li", { class: "conflict", "data-code": p.code }, parts));
    });
    renderGrid(ledger);
    var count = DC.$("boneyard-count");
    if (document.activeElement !== count) count.value = ledger.boneyard_entered.source ? String(ledger.boneyard_entered.count) : "";
    DC.$("boneyard-form").hidden = ledger.deal.undealt !== "boneyard";
    var override = ledger.override && ledger.override.applies;
    DC.$("override-form").hidden = ledger.adds_up || !!override;
    /* Its own line: the answer to the host's last action (ledger-msg) must not overwrite it. */
    var note = DC.$("override-note");
    note.hidden = !override;
    note.textContent = override ? _("Scored on your word: {reason}", { reason: ledger.override.reason }) : "";
    DC.$("ledger-score").hidden = !(state && state.round.pending_end);
  }
  /* What the host must check (admin only: it names tiles of hands). */
  function loadReview() {
    if (!state || state.round.status !== "open") return;
    DC.api("GET", base + "/review").then(function (rv) {
      DC.setText("table-check", rv.table_needs_check ? _("The photo reader is unsure of this table. {warnings} Correct what is wrong, then say it is checked.", { warnings: (rv.warnings_shown || rv.warnings).join(" ") }) : "");
      DC.$("mark-checked").hidden = !rv.table_needs_check;
      /* The reader's own account, for the host who wants the details. */
      var details = rv.warnings_details || [];
      DC.$("table-details").hidden = !details.length;
      DC.clear(DC.$("table-details-list"));
      details.forEach(function (d) { DC.$("table-details-list").appendChild(DC.el("li", { text: d })); });
      renderLedger(rv.ledger);
      if (rv.rules_refusal) DC.$("conflicts").appendChild(DC.el("li", { class: "conflict", text: rv.rules_refusal }));
      var rej = DC.clear(DC.$("rejected-list"));
      if (!rv.rejected.length) rej.appendChild(DC.el("li", { class: "muted", text: _("none") }));
      rv.rejected.forEach(function (box, i) {
        var b = DC.el("button", { type: "button", class: "restore", text: _("Restore as tile") });
        b.addEventListener("click", function () { restore(box, i); });
        rej.appendChild(DC.el("li", {}, [_("Box {number}: {reading} (probability {percent}%) ", { number: i + 1, reading: box.pips ? DC.tileText(box.pips) : DC.faceText(box.face), percent: DC.num(Math.round((box.probability || 0) * 100)) }), b]));
      });
    }).catch(function (e) { reviewMsg(e.message, "error"); });
  }
  DC.$("mark-checked").addEventListener("click", function () {
    DC.api("POST", base + "/table/checked").then(function (s) { reviewMsg(_("The table reading is checked."), "ok"); render(s); })
      .catch(function (e) { reviewMsg(e.message, "error"); });
  });
  /* Each player's hand, typed in: a reason field beside it (needed once the hands are
     locked), and what went wrong said next to that hand, not under the photo. */
  var handForms = {}, handPlayers = "";
  function handMsg(form, text, cls) { var n = form.querySelector(".hand-msg"); n.textContent = text; n.className = "hand-msg " + (cls || ""); }
  function reasonNeeded(name) { return _("The hands are locked: write why you change {name}'s hand (kept in the audit trail), then save again.", { name: name }); }
  function loadHand(p, form) {
    DC.api("GET", base + "/hands/" + p.id).then(function (h) {
      var now = h.confirmed ? (h.tiles.length ? h.tiles.map(DC.tileText).join(" ") : _("no tiles")) : _("not confirmed yet");
      form.querySelector(".hand-now").textContent = _("Now: {tiles}", { tiles: now });
      var input = form.querySelector(".hand-tiles");
      if (document.activeElement !== input && !input.value && h.confirmed) input.value = h.tiles.map(DC.tileText).join(" ");
    }).catch(function (e) { handMsg(form, e.message, "error"); });
  }
  function saveHand(p, form) {
    var reason = form.querySelector(".hand-reason"), why = reason.value.trim(), tiles;
    try { tiles = DC.parseTiles(form.querySelector(".hand-tiles").value); } catch (e) { handMsg(form, e.message, "error"); return; }
    if (state.round.locked && !why) { handMsg(form, reasonNeeded(p.name), "error"); reason.focus(); return; }
    var body = { tiles: tiles };
    if (why) body.reason = why;
    DC.api("PUT", base + "/hands/" + p.id, body).then(function (d) {
      reason.value = "";
      handMsg(form, ngettext("{name}: {count} tile saved.", "{name}: {count} tiles saved.", d.tiles, { name: d.player }), "ok");
      loadHand(p, form); loadReview();
    }).catch(function (e) {
      /* Locked since the page last heard: say so in the host's words, not the API's. */
      if (why || !e.data || e.data._status !== 400) { handMsg(form, e.message, "error"); return; }
      DC.api("GET", "/api/state?game=" + encodeURIComponent(gameId)).then(function (s) {
        render(s);
        handMsg(form, s.round.locked ? reasonNeeded(p.name) : e.message, "error");
      }).catch(function () { handMsg(form, e.message, "error"); });
    });
  }
  function handForm(p) {
    var tiles = DC.el("input", { class: "hand-tiles", placeholder: "0-1 6-6 2-4", "aria-label": _("{name}'s tiles", { name: p.name }) });
    var reason = DC.el("input", { class: "hand-reason", maxlength: "500", "aria-label": _("Why you change {name}'s hand (kept in the audit trail)", { name: p.name }) });
    var form = DC.el("form", { class: "hand-fix", "data-player": p.name }, [
      DC.el("p", { class: "row" }, [DC.el("strong", { text: p.name }), " ", DC.el("span", { class: "hand-now muted" })]),
      DC.el("div", { class: "row" }, [tiles,
        DC.el("label", { class: "hand-reason-label" }, [DC.el("span", { class: "reason-text" }), " ", reason]),
        DC.el("button", { type: "submit", class: "primary", text: _("Save the hand") })]),
      DC.el("p", { class: "hand-msg", role: "status" })]);
    form.addEventListener("submit", function (ev) { ev.preventDefault(); saveHand(p, form); });
    return form;
  }
  function renderHands() {
    var open = state.round.status === "open", locked = !!state.round.locked;
    DC.$("hands-card").hidden = !open;
    if (!open) return;
    var notice = DC.$("hands-locked");
    notice.hidden = !locked;
    notice.textContent = locked ? _("The hands are locked ({why}): a change needs a reason.", { why: state.round.locked.by_shown || state.round.locked.by || "" }) : "";
    var key = state.players.map(function (p) { return p.id; }).join(",") + "/" + state.round.number;
    if (key !== handPlayers) {
      handPlayers = key; handForms = {};
      var box = DC.clear(DC.$("hand-fixes"));
      state.players.forEach(function (p) { var f = handForm(p); handForms[p.id] = f; box.appendChild(f); loadHand(p, f); });
    }
    state.players.forEach(function (p) {
      var f = handForms[p.id], reason = f.querySelector(".hand-reason");
      f.querySelector(".reason-text").textContent = locked ? _("Reason (needed: kept in the audit trail)") : _("Reason (optional)");
      reason.setAttribute("aria-required", locked ? "true" : "false");
    });
  }
  function render(s) {
    if (DC.older(s, state)) return;
    state = s;
    renderHands();
    loadReview();
    if (selected) selected = tiles().filter(function (t) { return t.id === selected.id; })[0] || null;
    if (!selected) DC.$("tile-form").hidden = true;
    renderPicker();
    drawTable();
    if (!editingLines) renderLines();
  }
  var feed = DC.live(gameId, render);
  DC.$("tile-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    if (!selected) { msg(_("Choose a tile first (click it or pick it from the list)."), "error"); return; }
    var pips = [parseInt(DC.$("tile-a").value, 10), parseInt(DC.$("tile-b").value, 10)];
    DC.api("PATCH", base + "/table/tiles/" + selected.id, { pips: pips }).then(function (s) { msg(_("Tile {id} is now {tile}.", { id: selected.id, tile: DC.tileText(pips) }), "ok"); render(s); })
      .catch(function (e) { msg(e.message, "error"); });
  });
  DC.$("tile-delete").addEventListener("click", function () {
    if (!selected) { msg(_("Choose a tile first (click it or pick it from the list)."), "error"); return; }
    var id = selected.id;
    DC.api("DELETE", base + "/table/tiles/" + id).then(function (s) { selected = null; msg(_("Tile {id} deleted.", { id: id }), "ok"); render(s); })
      .catch(function (e) { msg(e.message, "error"); });
  });
  DC.$("add-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    try {
      var tile = DC.parseTiles(DC.$("add-tile").value)[0];
      DC.api("POST", base + "/table/tiles", { pips: tile }).then(function (d) { DC.$("add-tile").value = ""; msg(_("Added tile {id}.", { id: d.id }), "ok"); render(d.state); })
        .catch(function (e) { msg(e.message, "error"); });
    } catch (e) { msg(e.message, "error"); }
  });
  DC.$("add-line").addEventListener("click", function () { editingLines = true; DC.$("line-rows").appendChild(lineRow({})); });
  DC.$("save-lines").addEventListener("click", function () {
    var lines = [];
    DC.$("line-rows").querySelectorAll("tr").forEach(function (tr) {
      var line = { open_end: parseInt(tr.querySelector(".end").value, 10) }, name = tr.querySelector(".name").value.trim();
      if (name) line.name = name;
      if (tr.querySelector(".owner").value) line.owner = tr.querySelector(".owner").value;
      if (tr.querySelector(".marked").checked) line.marked = true;
      if (tr.getAttribute("data-place")) line.place = tr.getAttribute("data-place");
      lines.push(line);
    });
    DC.api("PUT", base + "/layout", { lines: lines })
      .then(function (s) { editingLines = false; var none = _("none"); msg(_("Lines saved: open ends {ends}.", { ends: s.round.open_ends.join(", ") || none }), "ok"); render(s); })
      .catch(function (e) { msg(e.message, "error"); });
  });
  DC.$("boneyard-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var value = DC.$("boneyard-count").value;
    if (value === "") { ledgerMsg(_("Count the boneyard's tiles first."), "error"); return; }
    DC.api("PUT", base + "/boneyard", { boneyard: parseInt(value, 10) }).then(function (s) { ledgerMsg(_("Boneyard: {count} tiles.", { count: DC.num(parseInt(value, 10)) }), "ok"); render(s); })
      .catch(function (e) { ledgerMsg(e.message, "error"); });
  });
  DC.$("boneyard-unknown").addEventListener("click", function () {
    DC.api("PUT", base + "/boneyard", { boneyard: null }).then(function (s) { DC.$("boneyard-count").value = ""; ledgerMsg(_("The boneyard is not counted."), "ok"); render(s); })
      .catch(function (e) { ledgerMsg(e.message, "error"); });
  });
  DC.$("override-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    DC.api("POST", base + "/ledger/override", { reason: DC.$("override-reason").value }).then(function (s) { DC.$("override-reason").value = ""; render(s); })
      .catch(function (e) { ledgerMsg(e.message, "error"); });
  });
  DC.$("ledger-score").addEventListener("click", function () {
    DC.api("POST", base + "/score").then(function (d) {
      ledgerMsg(d.ended ? _("The round is scored.") : _("Not blocked: play goes on."), "ok"); render(d.state);
    }).catch(function (e) { ledgerMsg(e.message, "error"); loadReview(); });
  });
  void feed;
})();

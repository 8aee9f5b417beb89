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
    var tr = DC.el("tr", {}, [
      DC.el("td", {}, [DC.el("input", { class: "name", value: line.name || "", "aria-label": _("line name") })]),
      DC.el("td", {}, [DC.el("input", { class: "end", type: "number", min: "0", max: String(state.game.set), value: line.open_end === undefined ? "" : line.open_end, "aria-label": _("open end") })]),
      DC.el("td", {}, [owner]), DC.el("td", {}, [marked]), DC.el("td", {}, [del])]);
    del.addEventListener("click", function () { tr.remove(); editingLines = true; });
    tr.addEventListener("input", function () { editingLines = true; });
    return tr;
  }
  function renderLines() {
    var body = DC.clear(DC.$("line-rows"));
    state.round.lines.forEach(function (l) { body.appendChild(lineRow(l)); });
    DC.$("boneyard").value = state.round.boneyard;
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
  function removeFromHand(conflict, name) {
    var player = state.players.filter(function (p) { return p.name === name; })[0];
    var reason = prompt(_("Remove {tile} from {name}'s hand. Reason (kept in the audit trail):", { tile: DC.tileText(conflict.tile), name: name }));
    if (!reason) return;
    var url = base + "/hands/" + player.id;
    DC.api("GET", url).then(function (h) {
      var tiles = h.tiles.filter(function (t) { return DC.tileText(t.slice().sort()) !== DC.tileText(conflict.tile.slice().sort()); });
      return DC.api("PUT", url, { tiles: tiles, reason: reason });
    }).then(function () { reviewMsg(_("{tile} removed from {name}'s hand.", { tile: DC.tileText(conflict.tile), name: name }), "ok"); loadReview(); })
      .catch(function (e) { reviewMsg(e.message, "error"); });
  }
  /* What the host must check (admin only: it names tiles of hands). */
  function loadReview() {
    if (!state || state.round.status !== "open") return;
    DC.api("GET", base + "/review").then(function (rv) {
      DC.setText("table-check", rv.table_needs_check ? _("The photo reader is unsure of this table. {warnings} Correct what is wrong, then say it is checked.", { warnings: (rv.warnings_shown || rv.warnings).join(" ") }) : "");
      DC.$("mark-checked").hidden = !rv.table_needs_check;
      var list = DC.clear(DC.$("conflicts"));
      if (rv.rules_refusal) list.appendChild(DC.el("li", { class: "conflict", text: rv.rules_refusal }));
      rv.hand_conflicts.forEach(function (c) {
        var buttons = c.players.map(function (name) {
          var b = DC.el("button", { type: "button", class: "remove-from-hand", "data-player": name, text: _("Remove from {name}'s hand", { name: name }) });
          b.addEventListener("click", function () { removeFromHand(c, name); });
          return b;
        });
        list.appendChild(DC.el("li", { class: "conflict" }, [_("Tile {tile} is in the hands of {names} and {last}. ", { tile: DC.tileText(c.tile), names: c.players.slice(0, -1).join(", "), last: c.players[c.players.length - 1] })].concat(buttons)));
      });
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
  function render(s) {
    state = s;
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
  DC.$("add-line").addEventListener("click", function () { editingLines = true; DC.$("line-rows").appendChild(lineRow({ name: _("line {number}", { number: DC.$("line-rows").children.length + 1 }) })); });
  DC.$("save-lines").addEventListener("click", function () {
    var lines = [];
    DC.$("line-rows").querySelectorAll("tr").forEach(function (tr) {
      var line = { name: tr.querySelector(".name").value, open_end: parseInt(tr.querySelector(".end").value, 10) };
      if (tr.querySelector(".owner").value) line.owner = tr.querySelector(".owner").value;
      if (tr.querySelector(".marked").checked) line.marked = true;
      lines.push(line);
    });
    DC.api("PUT", base + "/layout", { lines: lines, boneyard: parseInt(DC.$("boneyard").value || "0", 10) })
      .then(function (s) { editingLines = false; var none = _("none"); msg(_("Lines saved: open ends {ends}.", { ends: s.round.open_ends.join(", ") || none }), "ok"); render(s); })
      .catch(function (e) { msg(e.message, "error"); });
  });
  void feed;
})();

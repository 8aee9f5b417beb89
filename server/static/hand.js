"use strict";
(function () {
  var token = DC.$("app").getAttribute("data-token"), base = "/api/hand/" + encodeURIComponent(token);
  var tiles = [], dirty = false, lastCheck = null, view = null;
  function msg(id, text, cls) { var n = DC.$(id); n.textContent = text; n.className = cls || ""; }
  function total() { return tiles.reduce(function (s, t) { return s + (t[0] || 0) + (t[1] || 0); }, 0); }
  /* A pip picker: one tap opens the list 0..set, a second picks the value. */
  function pipPicker(tile, half, label) {
    var most = view ? view.game.set : 15, pick = DC.el("select", { "aria-label": label, class: "pip" });
    for (var n = 0; n <= Math.max(most, tile[half] || 0); n++) {
      var o = DC.el("option", { value: String(n), text: String(n) });
      if (n === tile[half]) o.selected = true;
      pick.appendChild(o);
    }
    pick.addEventListener("change", function () { tile[half] = parseInt(pick.value, 10); dirty = true; DC.setText("total", totalText()); waiting(); });
    return pick;
  }
  function pipsText(n) { return ngettext("{count} pip", "{count} pips", n); }
  function tilesText(n) { return ngettext("{count} tile", "{count} tiles", n); }
  function totalText() { return _("{pips} · {tiles}", { pips: pipsText(total()), tiles: tilesText(tiles.length) }); }
  function renderTiles() {
    var list = DC.clear(DC.$("tiles"));
    tiles.forEach(function (t, i) {
      var del = DC.el("button", { type: "button", text: "✕", "aria-label": _("remove tile {number}", { number: i + 1 }) });
      del.addEventListener("click", function () { tiles.splice(i, 1); dirty = true; renderTiles(); });
      list.appendChild(DC.el("li", { class: "hand-tile" }, [pipPicker(t, 0, _("tile {number} first half", { number: i + 1 })), "–", pipPicker(t, 1, _("tile {number} second half", { number: i + 1 })), del]));
    });
    DC.setText("total", totalText());
    DC.$("clear").hidden = !tiles.length;
    waiting();
  }
  /* While the hand on screen waits for its owner's confirmation (a photo's reading, edits, a
     hand not in yet, or one to confirm again), the confirmation stays at the foot of the
     screen: reachable without scrolling past the photo and the list. */
  function waiting() {
    if (!view) return;
    var r = view.round, me = view.me;
    var edits = !r.locked && (dirty || !!(me.pending && me.pending.tiles) || (!me.confirmed && tiles.length > 0));
    var wait = r.status === "open" && (edits || me.to_confirm);
    DC.$("confirm-bar").classList.toggle("waiting", !!wait);
  }
  function render(v) {
    if (DC.older(v, view)) return;
    view = v;
    var r = v.round;
    var round = r.status === "ended" ? _("round {number} (ended)", { number: r.number }) : _("round {number}", { number: r.number });
    DC.setText("round-info", [v.game.name, v.game.variant_title, round].join(" · "));
    DC.setText("open-ends", r.open_ends.length ? r.open_ends.join(", ") : _("none yet"));
    if (v.models) msg("models", v.models.available ? "" : _("Photo reading is off on this server: {why}", { why: v.models.message }), v.models.available ? "muted" : "warn");
    // A photo's reading waits for confirmation: it is what the editor shows until then.
    var pending = v.me.pending && v.me.pending.tiles;
    if (!dirty) { tiles = (pending || v.me.hand).map(function (t) { return t.slice(); }); renderTiles(); }
    var locked = r.locked && r.status === "open";
    // Play went on since this hand was confirmed: its owner confirms it again (as it is even
    // while locked; a change then is the host's).
    var again = v.me.to_confirm && r.status === "open";
    var status = r.status !== "open" ? "" : again ? (locked ? _("Play went on since you confirmed your hand: confirm it again as it is (the hands are locked: ask the host to change it).") : _("Play went on since you confirmed your hand: take out the tiles you played, then confirm it again.")) : locked ? _("Your hand is locked.") :
      pending ? (v.me.confirmed ? _("Read from your photo: check every tile, correct any mistake, then confirm. Until then your confirmed hand stays as it was.") : _("Read from your photo: check every tile, correct any mistake, then confirm.")) :
      v.me.confirmed ? _("Your hand is in (confirmed). Changes are recorded in the audit trail.") : _("Not in yet: take a photo or add your tiles, then confirm.");
    msg("hand-status", status, pending || again || !v.me.confirmed ? "warn" : "muted");
    // Told to this player alone: tiles of their hand that the table photo shows.
    DC.setText("on-table", v.me.on_table_text || "");
    DC.$("reconfirm").hidden = !again || !!pending;
    DC.$("discard").hidden = !(v.me.pending && v.me.confirmed) || locked;
    DC.$("retake").hidden = !v.me.has_photo;
    ["save", "add-tile", "hand-file", "live-camera", "cannot-play", "propose", "retake", "clear"].forEach(function (id) { DC.$(id).disabled = !!locked || r.status !== "open"; });
    DC.$("add-form").querySelector("button").disabled = !!locked || r.status !== "open";
    // A disabled button says why, in words, beside it (only a ruling held for the host locks).
    var why = !locked ? "" : r.pending_end ? _("Your hand is locked while the host checks the ruling.") : _("Your hand is locked: only the host can change it now.");
    ["photo-locked-why", "edit-locked-why", "locked-why"].forEach(function (id) { DC.setText(id, why); DC.$(id).hidden = !why; });
    // Once the round is over there is nothing to photograph, save or propose: the result shows.
    var over = r.status !== "open";
    DC.$("photo-card").hidden = over;
    DC.$("app").classList.toggle("round-over", over);  // the result comes first then
    DC.$("hand-edit").hidden = over;
    DC.$("confirm-bar").hidden = over;
    DC.$("block-actions").hidden = over;
    DC.setText("block-title", over ? _("Round result") : _("Block"));
    renderScoreboard(v.scoreboard);
    // A ruling waits for the table host: the host scores it or dismisses it, nobody else.
    var held = r.status === "open" && r.pending_end;
    DC.setText("locked", held ? _("The table host is checking: {ruling}", { ruling: DC.pendingText(r.pending_end) }) + " " + _("The host scores the round or dismisses the ruling; your phone cannot.") : locked ? _("Hands are locked ({why}): only the host can change a hand now.", { why: r.locked.by_shown || r.locked.by }) : "");
    DC.setText("review", (r.review || {}).messages ? r.review.messages.join(" ") : "");
    var play = v.me.can_play;
    DC.setText("can-play", play ? _("You can play {tile} on {line}.", { tile: DC.tileText(play.tile), line: play.line_shown || _("a line") }) : "");
    DC.renderAudit(DC.$("audit"), v.audit);
    DC.$("cannot-play").checked = v.me.declared_cannot_play;
    DC.renderDoubts(DC.$("hand-doubts"), pending ? v.me.scene : null, _("Look at your tiles and fix any mistake with the pickers below, then confirm."), v.me.warnings_shown);
    // The host changed the confirmed hand (or its owner corrected the reading): the photo's
    // reading is no longer the hand, so the photo shows without it, marked as replaced.
    var replaced = !pending && v.me.photo_replaced;
    DC.setText("photo-replaced", !replaced ? "" : replaced === "host" ? _("The host changed your hand: the list below is your hand now, not what your photo showed.") : _("You corrected your photo's reading: the list below is your hand."));
    DC.$("scene-wrap").classList.toggle("replaced", !!replaced);
    if (v.me.has_photo) DC.drawScene(DC.$("scene-wrap"), base + "/image", replaced ? null : v.me.scene, { version: v.version, alt: replaced ? _("your hand's photo, before the change") : _("your hand") });
    waiting();
    var check = r.block_checks[0];
    if (check && check.id !== lastCheck) { lastCheck = check.id; DC.showSteps(DC.$("steps"), DC.$("block-result"), check); }
    var res = DC.$("result"); res.hidden = r.status !== "ended";
    if (!res.hidden) {
      var result = r.result || {};
      var winner = result.winner ? _("Winner: {name}", { name: result.winner }) : _("No winner");
      DC.setText("winner", (result.tied || []).length > 1 ? _("{result} · tied: {names}", { result: winner, names: result.tied.join(", ") }) : winner);
      var ul = DC.clear(DC.$("reveal"));
      v.players.forEach(function (p) {
        var known = p.pip_total !== undefined && p.pip_total !== null, points = (result.points || {})[p.name];
        var pips = known ? pipsText(p.pip_total) : _("? pips");
        var line = _("{name}: {hand} = {pips}", { name: p.name, hand: (p.hand || []).map(DC.tileText).join(" "), pips: pips });
        if (points !== undefined) { var pointsText = ngettext("{count} point", "{count} points", points); line = _("{line} · {points}", { line: line, points: pointsText }); }
        ul.appendChild(DC.el("li", { text: line }));
      });
    }
  }
  function renderScoreboard(sb) {
    DC.setText("game-end", DC.gameEndText(sb.end));
    DC.$("final").hidden = !sb.final;
    DC.setText("final", sb.final ? sb.final.text : "");
    DC.clear(DC.$("scoreboard")).appendChild(DC.scoreTable(sb));
  }
  function load() { return DC.api("GET", base).then(render); }
  function upload(blob, name) {
    var fd = new FormData(); fd.append("photo", blob, name || "hand.jpg");
    msg("upload-msg", _("Reading your tiles…"));
    DC.api("POST", base + "/photo", fd).then(function (d) {
      dirty = false;
      if (d._status === 503) { msg("upload-msg", _("Photo kept. {why} Add your tiles below.", { why: d.error }), "warn"); render(d.view); }
      else { msg("upload-msg", ngettext("Found {count} tile. Check it, fix any mistake, then confirm.", "Found {count} tiles. Check them, fix any mistake, then confirm.", d.view.me.pending.tiles.length), "ok"); render(d.view); }
    }).catch(function (e) { msg("upload-msg", e.message, "error"); });
  }
  DC.$("hand-file").addEventListener("change", function (ev) { if (ev.target.files[0]) upload(ev.target.files[0], ev.target.files[0].name); ev.target.value = ""; });
  if (DC.canUseWebcam()) {
    DC.$("live-camera").hidden = false;
    DC.$("live-camera").addEventListener("click", function () {
      DC.startWebcam(DC.$("webcam"), DC.$("webcam-video"), DC.$("webcam-shot"), function (b) { upload(b, "camera.jpg"); }).catch(function (e) { msg("upload-msg", e.message, "error"); });
    });
  }
  // Retake: a new photo (the reading waits for confirmation again); clear: start the list over.
  DC.$("retake").addEventListener("click", function () { DC.$("hand-file").click(); });
  DC.$("clear").addEventListener("click", function () { tiles = []; dirty = true; renderTiles(); msg("save-msg", _("Tiles cleared: add yours, or take a new photo, then confirm."), "warn"); });
  DC.$("add-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    try { DC.parseTiles(DC.$("add-tile").value).forEach(function (t) { tiles.push(t); }); DC.$("add-tile").value = ""; dirty = true; renderTiles(); }
    catch (e) { msg("save-msg", e.message, "error"); }
  });
  DC.$("save").addEventListener("click", function () {
    DC.api("PUT", base + "/tiles", { tiles: tiles }).then(function (v) {
      dirty = false;
      msg("upload-msg", "");  // the photo's "check them" note is done with
      msg("save-msg", _("Saved: {tiles}, {pips}.", { tiles: tilesText(v.me.hand.length), pips: pipsText(v.me.pip_total) }), "ok");
      render(v);
    })
      .catch(function (e) { msg("save-msg", e.message, "error"); });
  });
  DC.$("reconfirm").addEventListener("click", function () {
    DC.api("POST", base + "/confirm").then(function (v) { dirty = false; msg("save-msg", _("Confirmed again: {tiles}, {pips}.", { tiles: tilesText(v.me.hand.length), pips: pipsText(v.me.pip_total) }), "ok"); render(v); })
      .catch(function (e) { msg("save-msg", e.message, "error"); });
  });
  DC.$("discard").addEventListener("click", function () {
    DC.api("DELETE", base + "/pending").then(function (v) { dirty = false; msg("save-msg", _("Kept your confirmed hand."), "ok"); render(v); })
      .catch(function (e) { msg("save-msg", e.message, "error"); });
  });
  DC.$("cannot-play").addEventListener("change", function (ev) {
    DC.api("POST", base + "/declare", { cannot_play: ev.target.checked }).then(render).catch(function (e) { msg("block-result", e.message, "error"); });
  });
  // The hand on screen is not the confirmed one yet (a photo's reading, or edits).
  function unconfirmed() { return !!(view && (dirty || (view.me.pending && view.me.pending.tiles) || view.me.to_confirm)); }
  DC.$("propose").addEventListener("click", function () {
    // One confirmation for both steps: a proposer whose hand is still unconfirmed confirms the
    // tiles shown (the question names them) and proposes at once.
    var confirmFirst = unconfirmed();
    var question = confirmFirst
      ? _("Confirm your hand as shown ({tiles}, {pips}) and propose a block? If nobody can play, the table host checks the block and scores the round; every hand locks until then.", { tiles: tilesText(tiles.length), pips: pipsText(total()) })
      : _("Propose a block? If nobody can play, the table host checks the block and scores the round; every hand locks until then.");
    if (!confirm(question)) return;
    msg("block-result", _("Checking clockwise from you…"));
    var saved = confirmFirst ? DC.api("PUT", base + "/tiles", { tiles: tiles }).then(function (v) { dirty = false; render(v); }) : Promise.resolve();
    // A proposal only: the table host scores a block or dismisses it.
    saved.then(function () { return DC.api("POST", base + "/block-check", {}); })
      .then(function (d) {
        if (lastCheck !== d.outcome.id) { lastCheck = d.outcome.id; DC.showSteps(DC.$("steps"), DC.$("block-result"), d.outcome); }
        render(d.view);
      })
      .catch(function (e) { msg("block-result", e.message, "error"); });
  });
  load().then(function () {
    // Follow the table: any change (another player's check, end of round) reloads this view.
    DC.live(view.game.id, function () { load(); });
  }).catch(function (e) { msg("upload-msg", e.message, "error"); });
})();

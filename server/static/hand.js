"use strict";
(function () {
  var token = DC.$("app").getAttribute("data-token"), base = "/api/hand/" + encodeURIComponent(token);
  var tiles = [], dirty = false, lastCheck = null, view = null;
  function msg(id, text, cls) { var n = DC.$(id); n.textContent = text; n.className = cls || ""; }
  function total() { return tiles.reduce(function (s, t) { return s + (t[0] || 0) + (t[1] || 0); }, 0); }
  function renderTiles() {
    var list = DC.clear(DC.$("tiles"));
    tiles.forEach(function (t, i) {
      var a = DC.el("input", { type: "number", min: "0", max: "15", value: t[0], "aria-label": "tile " + (i + 1) + " first half", inputmode: "numeric" });
      var b = DC.el("input", { type: "number", min: "0", max: "15", value: t[1], "aria-label": "tile " + (i + 1) + " second half", inputmode: "numeric" });
      var del = DC.el("button", { type: "button", text: "✕", "aria-label": "remove tile" });
      a.addEventListener("input", function () { tiles[i][0] = parseInt(a.value, 10); dirty = true; DC.setText("total", total() + " pips"); });
      b.addEventListener("input", function () { tiles[i][1] = parseInt(b.value, 10); dirty = true; DC.setText("total", total() + " pips"); });
      del.addEventListener("click", function () { tiles.splice(i, 1); dirty = true; renderTiles(); });
      list.appendChild(DC.el("li", { class: "hand-tile" }, [a, "–", b, del]));
    });
    DC.setText("total", total() + " pips · " + tiles.length + " tiles");
  }
  function render(v) {
    view = v;
    var r = v.round;
    DC.setText("round-info", v.game.name + " · " + v.game.variant + " · round " + r.number + (r.status === "ended" ? " (ended)" : ""));
    DC.setText("open-ends", r.open_ends.length ? r.open_ends.join(", ") : "none yet");
    if (v.models) msg("models", v.models.available ? "" : "Photo reading is off on this server: " + v.models.message, v.models.available ? "muted" : "warn");
    if (!dirty) { tiles = v.me.hand.map(function (t) { return t.slice(); }); renderTiles(); }
    DC.$("cannot-play").checked = v.me.declared_cannot_play;
    if (v.me.has_photo) DC.drawScene(DC.$("scene-wrap"), base + "/image", v.me.scene, { version: v.version, alt: "your hand" });
    var check = r.block_checks[0];
    if (check && check.id !== lastCheck) { lastCheck = check.id; DC.showSteps(DC.$("steps"), DC.$("block-result"), check); }
    var res = DC.$("result"); res.hidden = r.status !== "ended";
    if (!res.hidden) {
      var result = r.result || {};
      DC.setText("winner", (result.winner ? "Winner: " + result.winner : "No winner") + ((result.tied || []).length > 1 ? " · tied: " + result.tied.join(", ") : ""));
      var ul = DC.clear(DC.$("reveal"));
      v.players.forEach(function (p) { ul.appendChild(DC.el("li", { text: p.name + ": " + (p.hand || []).map(DC.tileText).join(" ") + " = " + (p.pip_total === undefined || p.pip_total === null ? "?" : p.pip_total) + " pips" + ((result.points || {})[p.name] !== undefined ? " · " + result.points[p.name] + " points" : "") })); });
    }
  }
  function load() { return DC.api("GET", base).then(render); }
  function upload(blob, name) {
    var fd = new FormData(); fd.append("photo", blob, name || "hand.jpg");
    msg("upload-msg", "Reading your tiles…");
    DC.api("POST", base + "/photo", fd).then(function (d) {
      dirty = false;
      if (d._status === 503) { msg("upload-msg", "Photo kept. " + d.error + " Add your tiles below.", "warn"); render(d.view); }
      else { msg("upload-msg", "Found " + d.view.me.hand.length + " tiles. Check them and fix any mistake.", "ok"); render(d.view); }
    }).catch(function (e) { msg("upload-msg", e.message, "error"); });
  }
  DC.$("hand-file").addEventListener("change", function (ev) { if (ev.target.files[0]) upload(ev.target.files[0], ev.target.files[0].name); ev.target.value = ""; });
  if (window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
    DC.$("live-camera").hidden = false;
    DC.$("live-camera").addEventListener("click", function () {
      DC.startWebcam(DC.$("webcam"), DC.$("webcam-video"), DC.$("webcam-shot"), function (b) { upload(b, "camera.jpg"); }).catch(function (e) { msg("upload-msg", e.message, "error"); });
    });
  }
  DC.$("add-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    try { DC.parseTiles(DC.$("add-tile").value).forEach(function (t) { tiles.push(t); }); DC.$("add-tile").value = ""; dirty = true; renderTiles(); }
    catch (e) { msg("save-msg", e.message, "error"); }
  });
  DC.$("save").addEventListener("click", function () {
    DC.api("PUT", base + "/tiles", { tiles: tiles }).then(function (v) { dirty = false; msg("save-msg", "Saved: " + v.me.hand.length + " tiles, " + v.me.pip_total + " pips.", "ok"); render(v); })
      .catch(function (e) { msg("save-msg", e.message, "error"); });
  });
  DC.$("cannot-play").addEventListener("change", function (ev) {
    DC.api("POST", base + "/declare", { cannot_play: ev.target.checked }).then(render).catch(function (e) { msg("block-result", e.message, "error"); });
  });
  DC.$("propose").addEventListener("click", function () {
    msg("block-result", "Checking clockwise from you…");
    DC.api("POST", base + "/block-check").then(function (d) { if (lastCheck !== d.outcome.id) { lastCheck = d.outcome.id; DC.showSteps(DC.$("steps"), DC.$("block-result"), d.outcome); } render(d.view); })
      .catch(function (e) { msg("block-result", e.message, "error"); });
  });
  load().then(function () {
    // Follow the table: any change (another player's check, end of round) reloads this view.
    DC.live(view.game.id, function () { load(); });
  }).catch(function (e) { msg("upload-msg", e.message, "error"); });
})();

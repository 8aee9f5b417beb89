/* DominoCam shared helpers: JSON API calls, live state (SSE with polling fallback), scene drawing.
   Plain ES2017, no build step, no external assets. */
"use strict";
/* The page's language: the catalogue the server rendered into #dc-messages (server/i18n.py).
   _("Winner: {name}", {name: n}) and ngettext("{count} tile", "{count} tiles", n, {...}) look
   a message up (English, the source text, when it is missing) and fill its named
   placeholders; a sentence is never built from translated pieces. */
var I18N = (function () {
  var node = document.getElementById("dc-messages"), data = {};
  try { data = node ? JSON.parse(node.textContent) : {}; } catch (e) { data = {}; }
  var messages = data.messages || {}, plurals = data.plurals || { one: 0, other: 1 };
  var language = data.language || document.documentElement.lang || "en";
  var rules = window.Intl && Intl.PluralRules ? new Intl.PluralRules(language) : null;
  function fill(text, params) {
    return params ? text.replace(/\{(\w+)\}/g, function (all, key) { return params[key] === undefined ? all : String(params[key]); }) : text;
  }
  function gettext(msgid, params) {
    var text = messages[msgid];
    return fill(typeof text === "string" && text ? text : msgid, params);
  }
  function plural(singular, pluralText, count, params) {
    var forms = messages[singular], p = {};
    Object.keys(params || {}).forEach(function (k) { p[k] = params[k]; });
    if (p.count === undefined) p.count = number(count);
    if (!Array.isArray(forms) || !forms.length) return fill(count === 1 ? singular : pluralText, p);
    var category = rules ? rules.select(count) : (count === 1 ? "one" : "other");
    var index = plurals[category] !== undefined ? plurals[category] : plurals.other || 0;
    return fill(forms[Math.min(index, forms.length - 1)] || forms[0], p);
  }
  /* Numbers and times as the page's language writes them (Babel formats them on the server). */
  function number(value) { return typeof value === "number" && window.Intl ? new Intl.NumberFormat(language).format(value) : String(value); }
  function time(seconds) { return new Date(seconds * 1000).toLocaleTimeString(language); }
  return { _: gettext, ngettext: plural, number: number, time: time, language: language };
})();
var _ = I18N._, ngettext = I18N.ngettext;
var DC = (function () {
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function svgEl(tag, attrs) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }
  function clear(node) { while (node && node.firstChild) node.removeChild(node.firstChild); return node; }
  function $(id) { return document.getElementById(id); }
  function setText(id, text) { var n = $(id); if (n) n.textContent = text; }

  /* fetch JSON; writes carry X-DominoCam so the session cookie is accepted (CSRF guard). */
  function api(method, url, body) {
    var opts = { method: method, headers: { "X-DominoCam": "1", "Accept": "application/json" }, credentials: "same-origin" };
    if (body instanceof FormData || body instanceof Blob) opts.body = body;
    else if (body !== undefined) { opts.body = JSON.stringify(body); opts.headers["Content-Type"] = "application/json"; }
    return fetch(url, opts).then(function (r) {
      return r.json().catch(function () { return { error: "HTTP " + r.status }; }).then(function (data) {
        data = data || {};
        data._status = r.status;
        if (!r.ok && r.status !== 503) { var e = new Error(data.error || ("HTTP " + r.status)); e.data = data; throw e; }
        return data;
      });
    });
  }

  /* Live state: EventSource first; if it fails twice, poll /api/state?since= every 2 s. */
  function live(gameId, onState, onStatus) {
    var version = -1, polling = false, failures = 0, source = null;
    var q = gameId ? "?game=" + encodeURIComponent(gameId) : "";
    function accept(state) { if (state && state.version !== undefined && state.changed !== false) { version = state.version; onState(state); } }
    function poll() {
      polling = true;
      if (onStatus) onStatus(_("polling"));
      var url = "/api/state" + (q ? q + "&" : "?") + "since=" + version;
      fetch(url, { headers: { "Accept": "application/json" } }).then(function (r) { return r.json(); })
        .then(accept).catch(function () { if (onStatus) onStatus(_("offline, retrying")); })
        .then(function () { setTimeout(poll, 2000); });
    }
    function sse() {
      if (!window.EventSource || /[?&]poll=1/.test(location.search)) return poll();
      source = new EventSource("/api/events" + q);
      source.addEventListener("state", function (ev) { failures = 0; if (onStatus) onStatus(_("live")); accept(JSON.parse(ev.data)); });
      source.onerror = function () {
        failures += 1;
        if (onStatus) onStatus(_("reconnecting"));
        if (failures >= 3 && !polling) { source.close(); poll(); }
      };
    }
    sse();
    return { refresh: function () { fetch("/api/state" + q).then(function (r) { return r.json(); }).then(accept); } };
  }

  /* A state older than the one on screen: an answer overtaken by a newer one (a reload the
     live feed asked for, answered after the page's own upload or edit), never drawn. */
  function older(next, current) { return !!(current && next && next.version !== undefined && current.version !== undefined && next.version < current.version); }

  /* Draw the image with every tile outlined and read, and the open ends marked. */
  function drawScene(wrap, imageUrl, scene, opts) {
    opts = opts || {};
    clear(wrap);
    if (!imageUrl && !(scene && scene.image)) { wrap.appendChild(el("p", { class: "muted", text: opts.empty || _("No photo yet.") })); return; }
    var img = el("img", { alt: opts.alt || _("table photo"), id: opts.imgId || "scene-img" });
    if (imageUrl) img.src = imageUrl + (imageUrl.indexOf("?") < 0 ? "?v=" : "&v=") + (opts.version || 0);
    wrap.appendChild(img);
    if (!scene || !scene.image) return;
    var w = scene.image.width, h = scene.image.height;
    var svg = svgEl("svg", { viewBox: "0 0 " + w + " " + h, preserveAspectRatio: "none", "aria-label": _("tiles read") });
    (scene.tiles || []).forEach(function (t) {
      if (!t.corners) return;
      var pts = t.corners.map(function (p) { return p[0] + "," + p[1]; }).join(" ");
      var cls = "tile " + (t.face === "down" ? "down" : "up") + (t.corrected ? " corrected" : "") + (t.doubtful ? " doubtful" : "") + (opts.onTile ? " clickable" : "");
      if (opts.selected === t.id) cls += " selected";
      var poly = svgEl("polygon", { points: pts, class: cls, "data-tile": t.id });
      var title = svgEl("title", {}); title.textContent = t.pips ? (t.doubtful ? _("tile {id}: {tile} (may be misread)", { id: t.id, tile: t.pips.join("-") }) : _("tile {id}: {tile}", { id: t.id, tile: t.pips.join("-") }))
        : _("tile {id} (face down)", { id: t.id });
      poly.appendChild(title);
      if (opts.onTile) poly.addEventListener("click", function () { opts.onTile(t); });
      svg.appendChild(poly);
    });
    // Boxes the reader judged not tiles: drawn apart (dashed, grey), never counted.
    (scene.rejected || []).forEach(function (box, i) {
      if (!box.corners) return;
      var pts = box.corners.map(function (p) { return p[0] + "," + p[1]; }).join(" ");
      var poly = svgEl("polygon", { points: pts, class: "rejected" + (opts.onRejected ? " clickable" : ""), "data-rejected": i });
      var title = svgEl("title", {}); title.textContent = _("not a tile? {reading}", { reading: box.pips ? box.pips.join("-") : faceText(box.face) });
      poly.appendChild(title);
      if (opts.onRejected) poly.addEventListener("click", function () { opts.onRejected(box, i); });
      svg.appendChild(poly);
    });
    var marks = svgEl("g", { class: "marks" });
    svg.appendChild(marks);
    wrap.appendChild(svg);
    // Labels and dots keep one size on screen: placed once the photo is laid out, again on resize.
    function place() { placeMarks(marks, scene, w / (img.getBoundingClientRect().width || 0)); }
    img.addEventListener("load", place);
    if (window.ResizeObserver) new ResizeObserver(place).observe(img);
  }

  function centre(corners) {
    return [corners.reduce(function (s, p) { return s + p[0]; }, 0) / corners.length,
      corners.reduce(function (s, p) { return s + p[1]; }, 0) / corners.length];
  }
  function overlap(a, b) {
    var x = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0), y = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
    return x > 0 && y > 0 ? x * y : 0;
  }
  /* Where each open-end dot goes: just past its tile's open end, outside the tile, so it never
     sits on a label. Pure: scene in, [{x, y, r}] out (photo units; `unit` = units per CSS px). */
  function endDots(scene, unit) {
    var byId = {};
    (scene.tiles || []).forEach(function (t) { if (t.corners) byId[t.id] = t; });
    var r = 7 * unit, dots = [];
    ((scene.layout || {}).lines || []).forEach(function (line) {
      var end = line.open_end;
      if (!end || !end.point) return;
      var p = end.point, tile = byId[end.tile], dx = 0, dy = 0;
      if (tile) { var c = centre(tile.corners); dx = p[0] - c[0]; dy = p[1] - c[1]; }
      var len = Math.sqrt(dx * dx + dy * dy);
      if (len < 1e-6) { dx = 0; dy = -1; len = 1; }
      dots.push({ x: p[0] + dx / len * r * 1.4, y: p[1] + dy / len * r * 1.4, r: r });
    });
    return dots;
  }
  function cornersBox(corners) {
    var xs = corners.map(function (p) { return p[0]; }), ys = corners.map(function (p) { return p[1]; });
    return { x0: Math.min.apply(null, xs), y0: Math.min.apply(null, ys), x1: Math.max.apply(null, xs), y1: Math.max.apply(null, ys) };
  }
  /* Each face-up tile's label box, beside its tile so the pips stay visible to check against
     (above, below, left, right, the corners, on the tile last), at the first place that covers
     no open-end dot, no label placed before it and the fewest tiles; a place that must cover
     something covers as little as it can. Pure: returns [{tile, text, x0, y0, x1, y1, size}]
     in photo units (`unit` = photo units per CSS pixel). */
  function labelBoxes(scene, dots, unit, width, height) {
    var size = 15 * unit, gap = 2 * unit, placed = [], out = [];
    var faceUp = (scene.tiles || []).filter(function (t) { return t.corners && t.pips; });
    var tileBoxes = (scene.tiles || []).filter(function (t) { return t.corners; }).map(function (t) { return cornersBox(t.corners); });
    var dotBoxes = dots.map(function (d) { var m = d.r * 1.25; return { x0: d.x - m, y0: d.y - m, x1: d.x + m, y1: d.y + m }; });
    function cost(box) {
      var hard = dotBoxes.concat(placed).reduce(function (sum, o) { return sum + overlap(box, o); }, 0);
      var soft = tileBoxes.reduce(function (sum, o) { return sum + overlap(box, o); }, 0);
      return hard * 100 + soft;
    }
    faceUp.forEach(function (t) {
      var text = t.pips.join("-"), tb = cornersBox(t.corners), c = centre(t.corners);
      var bw = (text.length * 0.62 + 0.8) * size, bh = 1.45 * size, best = null;
      var spots = [[c[0], tb.y0 - gap - bh / 2], [c[0], tb.y1 + gap + bh / 2], [tb.x0 - gap - bw / 2, c[1]], [tb.x1 + gap + bw / 2, c[1]],
        [tb.x0 - bw / 2, tb.y0 - bh / 2], [tb.x1 + bw / 2, tb.y0 - bh / 2], [tb.x0 - bw / 2, tb.y1 + bh / 2], [tb.x1 + bw / 2, tb.y1 + bh / 2], c];
      spots.forEach(function (spot) {
        var x0 = Math.min(Math.max(spot[0] - bw / 2, 0), Math.max(width - bw, 0));
        var y0 = Math.min(Math.max(spot[1] - bh / 2, 0), Math.max(height - bh, 0));
        var box = { x0: x0, y0: y0, x1: x0 + bw, y1: y0 + bh }, k = cost(box);
        if (!best || k < best.cost - 1e-9) best = { box: box, cost: k };
      });
      placed.push(best.box);
      out.push({ tile: t.id, text: text, x0: best.box.x0, y0: best.box.y0, x1: best.box.x1, y1: best.box.y1, size: size });
    });
    return out;
  }
  function placeMarks(group, scene, unit) {
    if (!isFinite(unit) || unit <= 0) return;  // not laid out yet
    clear(group);
    var dots = endDots(scene, unit);
    labelBoxes(scene, dots, unit, scene.image.width, scene.image.height).forEach(function (b) {
      var g = svgEl("g", { class: "labels", "data-label-tile": b.tile });
      g.appendChild(svgEl("rect", { class: "label-bg", x: b.x0, y: b.y0, width: b.x1 - b.x0, height: b.y1 - b.y0, rx: b.size * 0.35 }));
      var text = svgEl("text", { x: (b.x0 + b.x1) / 2, y: (b.y0 + b.y1) / 2, "text-anchor": "middle", "dominant-baseline": "central", "font-size": b.size });
      text.textContent = b.text;
      g.appendChild(text);
      group.appendChild(g);
    });
    dots.forEach(function (d) { group.appendChild(svgEl("circle", { cx: d.x, cy: d.y, r: d.r, class: "open-end" })); });
  }

  function tileText(t) { return Array.isArray(t) ? t[0] + "-" + t[1] : String(t); }
  function parseTiles(text) {
    var out = [];
    (text || "").split(/[\s,;]+/).forEach(function (part) {
      if (!part) return;
      var m = /^(\d+)\s*[-|:/]\s*(\d+)$/.exec(part);
      if (!m) throw new Error(_("cannot read tile '{text}': write it as 3-5", { text: part }));
      out.push([parseInt(m[1], 10), parseInt(m[2], 10)]);
    });
    return out;
  }

  /* Show the verification one player at a time. */
  function showSteps(list, resultNode, outcome) {
    clear(list);
    if (resultNode) resultNode.textContent = "";
    var run = list._dcRun = (list._dcRun || 0) + 1;  // a newer call cancels this animation
    if (!outcome) return;
    var steps = outcome.steps || [];
    var i = 0;
    function next() {
      if (list._dcRun !== run) return;
      if (i < steps.length) {
        var s = steps[i++];
        list.appendChild(el("li", { class: s.can_play ? "can" : "cannot",
          text: s.can_play ? _("{name} can still play", { name: s.player }) : _("{name} confirms: cannot play", { name: s.player }) }));
        setTimeout(next, 350);
        return;
      }
      if (!resultNode) return;
      if (outcome.blocked && outcome.awaiting_confirmation) {
        resultNode.className = "ok"; resultNode.textContent = _("Blocked: confirmed by every player. The round is scored once the host confirms.");
      } else if (outcome.blocked) {
        resultNode.className = "ok"; resultNode.textContent = _("Blocked: confirmed by every player. The round is over.");
      } else if (outcome.stopped && outcome.stopped.player) {
        // While the round is open the tile stays secret (only its player is told it).
        var st = outcome.stopped, aLine = _("a line"), canPlay = st.tile
          ? _("Not blocked: {name} can play {tile} on {line}", { name: st.player, tile: tileText(st.tile), line: st.line_shown || aLine })
          : _("Not blocked: {name} can play", { name: st.player });
        resultNode.className = "error";
        resultNode.textContent = st.foul ? _("{can_play} — FOUL: {foul}", { can_play: canPlay, foul: foulText(st) }) : _("{can_play}.", { can_play: canPlay });
      } else {
        resultNode.className = "error";
        // The reason is worded here from the verdict's conditions (the stored text is English).
        var boneyardOpen = (outcome.conditions || {}).boneyard_exhausted === false;
        resultNode.textContent = boneyardOpen ? _("Not blocked: tiles can still be drawn from the boneyard.") : _("Not blocked: play goes on.");
      }
    }
    next();
  }

  /* Mexican Train: one train per player in seat order, then the public train, each with its
     open end and marker (a train not started yet has no line on the table). Null for games
     without an engine. */
  function trains(s) {
    var r = s.round;
    if (r.engine === null || r.engine === undefined) return null;
    var rows = [];
    function row(owner, line) {
      return { owner: owner, label: owner ? _("{name}'s train", { name: owner }) : _("Public train"), started: !!line,
        open_end: line ? line.open_end : null, marked: !!(line && line.marked), name: line ? line.name : "" };
    }
    s.players.forEach(function (p) {
      var own = r.lines.filter(function (l) { return l.owner === p.name; });
      if (!own.length) rows.push(row(p.name, null));
      own.forEach(function (l) { rows.push(row(p.name, l)); });
    });
    var names = s.players.map(function (p) { return p.name; });
    var public_ = r.lines.filter(function (l) { return !l.owner || names.indexOf(l.owner) < 0; });
    if (!public_.length) rows.push(row(null, null));
    public_.forEach(function (l) { rows.push(row(null, l)); });
    return rows;
  }
  /* "Round 3 of 13 · engine 10-10 (12-12 … 0-0)" for a game with an engine, else "". */
  function engineText(s) {
    var r = s.round, set = s.game.set;
    if (r.engine === null || r.engine === undefined) return "";
    var end = s.scoreboard.end, params = { number: r.number, of: end && end.planned_rounds, engine: r.engine, set: set };
    return end && end.planned_rounds ? _("Round {number} of {of} · engine {engine}-{engine} ({set}-{set} … 0-0)", params)
      : _("Round {number} · engine {engine}-{engine} ({set}-{set} … 0-0)", params);
  }

  /* The reader's doubts for players: one sentence naming the tiles to check (what to do
     comes from the page), the reader's own notes behind a "Why?" toggle. */
  function renderDoubts(box, scene, todo, shown) {
    clear(box);
    var tiles = ((scene || {}).tiles || []).filter(function (t) { return t.doubtful; });
    /* The warnings in a player's words (the API's warnings_shown); the Scene's English only
       when none were given. */
    var notes = shown || (scene || {}).warnings || [];
    if (tiles.length) {
      var names = tiles.map(function (t) { return t.pips ? tileText(t.pips) : _("a face-down tile"); });
      box.appendChild(el("p", { class: "warn doubt", text: tiles.length === 1 ? _("This tile may be misread: {tiles}. {todo}", { tiles: names[0], todo: todo }) : _("These tiles may be misread: {tiles}. {todo}", { tiles: names.join(", "), todo: todo }) }));
    } else if ((scene || {}).needs_review) {
      box.appendChild(el("p", { class: "warn doubt", text: _("The reading may be wrong somewhere. {todo}", { todo: todo }) }));
    }
    if (notes.length) {
      var list = el("ul", {}, notes.map(function (n) { return el("li", { text: n }); }));
      box.appendChild(el("details", { class: "why" }, [el("summary", { text: _("Why?") }), list]));
    }
  }

  /* A foul worded as the player acted: said "cannot play", or only proposed the block. */
  function foulText(st) {
    if (st.foul_by === "proposed") return _("{name} proposed a block but can still play.", { name: st.player });
    return _("{name} had declared they cannot play.", { name: st.player });
  }

  /* How the game ends, from the scoreboard's `end`: "Round 3 of 13 · lowest total wins". */
  function gameEndText(end) {
    if (end && end.end === "descending-doubles") return _("Round {number} of {of} · lowest total wins", { number: Math.min(end.rounds_played + 1, end.planned_rounds), of: end.planned_rounds });
    if (end && end.end === "target") return end.lower_wins ? _("Played to {target} points · lowest total wins", { target: number(end.target) }) : _("Played to {target} points · highest total wins", { target: number(end.target) });
    return "";
  }
  var number = I18N.number;
  /* A ruling waiting for the host, worded from its machine fields (`by`, `proposer`, `player`). */
  function pendingText(p) {
    if (!p) return "";
    if (p.waiting) return p.by === "block" ? _("{name} proposed a block. The table host checks the round before it is ruled.", { name: p.proposer })
      : _("{name} called domino. The table host checks the round before it is scored.", { name: p.player });
    return p.by === "block" ? _("Blocked: every player confirmed {name}'s block. The round is scored once the host confirms.", { name: p.proposer })
      : _("{name} called domino. The round is scored once the host confirms.", { name: p.player });
  }
  /* Who made an audit entry: a player's name, or the host / the rules engine in words. */
  function authorText(author) { return author === "host" ? _("host") : author === "rules" ? _("rules engine") : author; }
  /* A tile's face as a word; a round's end (the state's machine codes) as words. */
  function faceText(face) { return face === "down" ? _("face down") : face === "up" ? _("face up") : String(face); }
  function endedByText(code) { return code === "domino" ? _("domino") : code === "block" ? _("blocked game") : code ? String(code) : _("ended"); }
  /* Capture a still from getUserMedia (https or localhost only) as a JPEG Blob. */
  /* The scoreboard as a table: one row per ended round, then the totals (winners marked). */
  function scoreTable(sb) {
    var table = el("table", { id: "scoreboard-table" });
    var head = el("tr", {}, [el("th", { text: _("Round") })]);
    sb.columns.forEach(function (c) { head.appendChild(el("th", { text: c })); });
    table.appendChild(head);
    sb.rounds.forEach(function (r) {
      var tr = el("tr", {}, [el("td", { text: r.ended_by ? _("{number} ({ended_by})", { number: r.number, ended_by: endedByText(r.ended_by) }) : String(r.number) })]);
      sb.columns.forEach(function (c) { tr.appendChild(el("td", { text: I18N.number(r.points[c] === undefined ? 0 : r.points[c]) })); });
      table.appendChild(tr);
    });
    var total = el("tr", { class: "total" }, [el("th", { text: _("Total") })]);
    var winners = (sb.final || {}).winners || [];
    sb.columns.forEach(function (c) { total.appendChild(el("th", { "data-total": c, class: winners.indexOf(c) >= 0 ? "winner" : "", text: I18N.number(sb.totals[c]) })); });
    table.appendChild(total);
    return table;
  }
  function canUseWebcam() { return !!(window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia); }
  function startWebcam(box, video, button, onBlob) {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) return Promise.reject(new Error(_("camera not available on this page (needs https or localhost)")));
    return navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1920 } } }).then(function (stream) {
      box.hidden = false; video.srcObject = stream;
      button.onclick = function () {
        var c = document.createElement("canvas");
        c.width = video.videoWidth; c.height = video.videoHeight;
        c.getContext("2d").drawImage(video, 0, 0);
        c.toBlob(function (blob) { onBlob(blob); }, "image/jpeg", 0.9);
      };
    });
  }

  /* The audit trail, newest first: time, author, what (and the reason, once shown). */
  function renderAudit(list, entries) {
    clear(list);
    (entries || []).forEach(function (e) {
      var params = { time: I18N.time(e.time), author: authorText(e.author), text: e.shown || e.text, reason: e.reason };
      list.appendChild(el("li", { "data-action": e.action, text: e.reason ? _("{time} · {author} · {text} (reason: {reason})", params) : _("{time} · {author} · {text}", params) }));
    });
  }

  return { renderAudit: renderAudit, el: el, svgEl: svgEl, clear: clear, $: $, setText: setText, api: api, live: live, older: older,
    drawScene: drawScene, tileText: tileText, faceText: faceText, endedByText: endedByText, gameEndText: gameEndText, pendingText: pendingText, num: I18N.number, time: I18N.time, parseTiles: parseTiles, showSteps: showSteps, startWebcam: startWebcam, canUseWebcam: canUseWebcam, scoreTable: scoreTable, trains: trains, engineText: engineText, renderDoubts: renderDoubts };
})();
/* The language picker (server/templates/_language.html) is a plain form; with scripts it is
   sent as soon as a language is picked. */
(function () {
  var form = document.getElementById("language-form");
  if (!form) return;
  form.querySelector("select").addEventListener("change", function () { form.submit(); });
})();

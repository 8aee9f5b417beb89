// Shared by the event's pages: the API with the page's token, and text-only output (a
// player's name can never inject markup: everything goes in with textContent).
"use strict";
const dominocam = (() => {
  const data = document.body.dataset;
  function api(path, options = {}) {
    const headers = {...(options.headers || {})};
    if (data.token) headers.Authorization = "Bearer " + data.token;
    if (options.json !== undefined) {
      headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(options.json);
    }
    return fetch(data.root + path, {...options, headers}).then((r) =>
      r.json().then((body) => {
        if (!r.ok) throw new Error(body.error || r.statusText);
        return body;
      }));
  }
  function text(id, value) { document.getElementById(id).textContent = value; }
  function el(tag, content, attrs = {}) {
    const node = document.createElement(tag);
    if (content !== undefined) node.textContent = content;
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }
  function tiles(list) { return list.map((t) => t.join("-")).join(" ") || "no tiles"; }
  function parseTiles(value) {
    const t = value.trim();
    return t ? t.split(/[\s,;]+/).map((p) => p.split("-").map(Number)) : [];
  }
  return {data, api, text, el, tiles, parseTiles};
})();

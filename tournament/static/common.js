// Shared by the event's pages and overlays: the page's language, the API with the page's
// token, and text-only output (a player's name can never inject markup: everything goes in
// with textContent).
"use strict";
// The page's language, as single-table mode's common.js: the catalogue server/i18n.py
// rendered into #dc-messages. _("{name} can still play.", {name: n}) and
// ngettext("{count} tile", "{count} tiles", n) look a message up (the English source text
// when it is missing) and fill its named placeholders; a sentence is never built from
// translated pieces.
const I18N = (() => {
  const node = document.getElementById("dc-messages");
  let data = {};
  try { data = node ? JSON.parse(node.textContent) : {}; } catch (e) { data = {}; }
  const messages = data.messages || {};
  const plurals = data.plurals || {one: 0, other: 1};
  const language = data.language || document.documentElement.lang || "en";
  const rules = window.Intl && Intl.PluralRules ? new Intl.PluralRules(language) : null;
  function number(value) {
    return typeof value === "number" && window.Intl ? new Intl.NumberFormat(language).format(value) : String(value);
  }
  function fill(text, params) {
    return params ? text.replace(/\{(\w+)\}/g, (all, key) => params[key] === undefined ? all : String(params[key])) : text;
  }
  function gettext(msgid, params) {
    const text = messages[msgid];
    return fill(typeof text === "string" && text ? text : msgid, params);
  }
  function plural(singular, pluralText, count, params) {
    const forms = messages[singular];
    const p = {...(params || {})};
    if (p.count === undefined) p.count = number(count);
    if (!Array.isArray(forms) || !forms.length) return fill(count === 1 ? singular : pluralText, p);
    const category = rules ? rules.select(count) : (count === 1 ? "one" : "other");
    const index = plurals[category] !== undefined ? plurals[category] : plurals.other || 0;
    return fill(forms[Math.min(index, forms.length - 1)] || forms[0], p);
  }
  // An address of the API or of a stream in the page's language (`?lang=`: an EventSource
  // sends no header of its own, and an overlay's `?lang=` is not in a cookie).
  function withLang(path) {
    return path + (path.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(language);
  }
  return {_: gettext, ngettext: plural, number, language, withLang};
})();
const _ = I18N._;
const ngettext = I18N.ngettext;
const dominocam = (() => {
  const data = document.body.dataset;
  function api(path, options = {}) {
    const headers = {...(options.headers || {})};
    if (data.token) headers.Authorization = "Bearer " + data.token;
    if (options.json !== undefined) {
      headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(options.json);
    }
    return fetch((data.root || "") + I18N.withLang(path), {...options, headers}).then((r) =>
      r.json().then((body) => {
        if (!r.ok) throw new Error(body.error || r.statusText);
        return body;
      }));
  }
  function events(path) { return new EventSource((data.root || "") + I18N.withLang(path)); }
  function text(id, value) { document.getElementById(id).textContent = value; }
  function el(tag, content, attrs = {}) {
    const node = document.createElement(tag);
    if (content !== undefined) node.textContent = content;
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }
  function tiles(list) { return list.map((t) => t.join("-")).join(" ") || _("no tiles"); }
  function parseTiles(value) {
    const t = value.trim();
    return t ? t.split(/[\s,;]+/).map((p) => p.split("-").map(Number)) : [];
  }
  return {data, api, events, text, el, tiles, parseTiles, number: I18N.number};
})();
// The language picker (templates/_language.html) is a plain form; with scripts it is sent
// as soon as a language is picked.
(() => {
  const form = document.getElementById("language-form");
  if (form) form.querySelector("select").addEventListener("change", () => form.submit());
})();

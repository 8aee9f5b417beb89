"use strict";
(function () {
  var info = null;
  var variant = DC.$("variant"), settingsBox = DC.$("settings");
  function defaultText(value, s) { return s.kind === "bool" ? (value ? _("yes") : _("no")) : typeof value === "number" ? DC.num(value) : String(value); }
  function renderSettings() {
    DC.clear(settingsBox);
    var name = variant.value, values = (info.settings || {})[name] || {}, schema = info.schema || {};
    var v = (info.info || {})[name] || {};
    var help = v.description ? _("{title}: {description}", { title: v.title || name, description: v.description }) : (v.title || name);
    DC.setText("variant-help", v.teams ? _("{help} Teams score together: add , TEAM after each name.", { help: help }) : help);
    if (v.set) DC.$("set").value = String(v.set);
    Object.keys(values).forEach(function (key) {
      var s = schema[key] || { kind: typeof values[key] === "boolean" ? "bool" : "int", choices: [] };
      var input;
      if (s.kind === "choice") {
        input = DC.el("select", { "data-key": key, "data-kind": "choice" });
        s.choices.forEach(function (c) { var o = DC.el("option", { value: c, text: c }); if (c === values[key]) o.selected = true; input.appendChild(o); });
      } else if (s.kind === "bool") {
        input = DC.el("input", { type: "checkbox", "data-key": key, "data-kind": "bool" }); input.checked = !!values[key];
      } else {
        input = DC.el("input", { type: "number", "data-key": key, "data-kind": "int", value: values[key] });
      }
      input.setAttribute("data-default", JSON.stringify(values[key]));
      var source = (v.sources || {})[key];
      var params = { variant: v.title || name, value: defaultText(values[key], s), source: source };
      var about = source ? _("Default for {variant}: {value} (source: {source}).", params) : _("Default for {variant}: {value}.", params);
      settingsBox.appendChild(DC.el("label", { "data-setting": key }, [DC.el("strong", { text: s.label || key }), " ", input,
        DC.el("span", { class: "muted setting-help", text: s.help ? _("{help}. {default}", { help: s.help, "default": about }) : about })]));
    });
  }
  DC.api("GET", "/api/variants").then(function (data) {
    info = data;
    data.variants.forEach(function (n) { variant.appendChild(DC.el("option", { value: n, text: n })); });
    if (data.variants.indexOf("block") >= 0) variant.value = "block";
    renderSettings();
  });
  variant.addEventListener("change", renderSettings);
  DC.$("setup-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var form = ev.target, rules = {};
    settingsBox.querySelectorAll("[data-key]").forEach(function (input) {
      var kind = input.getAttribute("data-kind"), value;
      if (kind === "bool") value = input.checked; else if (kind === "int") value = parseInt(input.value, 10); else value = input.value;
      if (JSON.stringify(value) !== input.getAttribute("data-default")) rules[input.getAttribute("data-key")] = value;
    });
    var players = form.players.value.split("\n").map(function (line) { return line.trim(); }).filter(Boolean).map(function (line) {
      var parts = line.split(","); return parts.length > 1 ? { name: parts[0].trim(), team: parts[1].trim() } : { name: line };
    });
    var spec = { name: form.name.value, variant: variant.value, set: parseInt(DC.$("set").value, 10), players: players, rules: rules };
    if (DC.$("deal").value) spec.deal = parseInt(DC.$("deal").value, 10);
    DC.api("POST", "/api/games", spec)
      .then(function (state) { location.href = "/games/" + state.game.id + "/players"; })  // links come next: hand them out
      .catch(function (e) { DC.setText("setup-error", e.message); });
  });
})();

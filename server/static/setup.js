"use strict";
// The setup page: the server writes every variant, its description and the settings that
// matter for it in words (templates/setup.html); this script shows the chosen variant's,
// hides a setting while another makes it moot, and sends the engine's codes.
(function () {
  var variant = DC.$("variant");
  function chosen(selector) { return document.querySelector(selector + "[data-variant='" + variant.value + "']"); }
  function valueOf(input) {
    var kind = input.getAttribute("data-kind");
    if (kind === "bool") return input.value === "true";
    if (kind === "int") return parseInt(input.value, 10);
    return input.value;
  }
  function showDependent() {
    var box = chosen(".variant-settings");
    if (!box) return;
    box.querySelectorAll("[data-depends-on]").forEach(function (label) {
      var other = box.querySelector("[data-key='" + label.getAttribute("data-depends-on") + "']");
      var moot = other ? label.getAttribute("data-not-when").split(" ") : [];
      label.hidden = !!other && moot.indexOf(other.value) >= 0;
    });
  }
  function showVariant() {
    document.querySelectorAll(".variant-about, .variant-settings").forEach(function (box) {
      box.hidden = box.getAttribute("data-variant") !== variant.value;
    });
    var option = variant.options[variant.selectedIndex];
    if (option && option.getAttribute("data-set")) DC.$("set").value = option.getAttribute("data-set");
    showDependent();
  }
  variant.addEventListener("change", showVariant);
  DC.$("settings-box").addEventListener("change", showDependent);
  showVariant();
  DC.$("setup-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var form = ev.target, rules = {};
    chosen(".variant-settings").querySelectorAll("[data-key]").forEach(function (input) {
      var value = valueOf(input);
      if (JSON.stringify(value) !== JSON.stringify(JSON.parse(input.getAttribute("data-default")))) rules[input.getAttribute("data-key")] = value;
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

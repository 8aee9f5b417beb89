"use strict";
(function () {
  var box = DC.$("links"), gameId = box.getAttribute("data-game");
  function render(data) {
    DC.clear(box);
    data.players.forEach(function (p) {
      var rotate = DC.el("button", { type: "button", text: "New link" });
      rotate.addEventListener("click", function () {
        if (confirm("Revoke " + p.name + "'s link and make a new one?")) DC.api("POST", "/api/games/" + gameId + "/players/" + p.id + "/rotate-link").then(render);
      });
      box.appendChild(DC.el("figure", { class: "player-link", "data-player": p.name }, [
        DC.el("figcaption", { class: "big", text: p.name + (p.team ? " (" + p.team + ")" : "") }),
        DC.el("img", { src: p.qr + "?t=" + encodeURIComponent(p.token.slice(-6)), alt: "QR code for " + p.name, width: "220", height: "220" }),
        DC.el("p", {}, [DC.el("a", { href: p.url, class: "hand-link", text: "open " + p.name + "'s page" })]),
        DC.el("code", { text: p.url }), rotate
      ]));
    });
  }
  DC.api("GET", "/api/games/" + gameId + "/players").then(render);
})();

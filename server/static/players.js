"use strict";
(function () {
  var box = DC.$("links"), gameId = box.getAttribute("data-game");
  function render(data) {
    DC.clear(box);
    data.players.forEach(function (p) {
      var rotate = DC.el("button", { type: "button", text: _("New link") });
      rotate.addEventListener("click", function () {
        if (confirm(_("Revoke {name}'s link and make a new one?", { name: p.name }))) DC.api("POST", "/api/games/" + gameId + "/players/" + p.id + "/rotate-link").then(render);
      });
      var caption = DC.el("figcaption", { class: "big", text: p.team ? _("{name} ({team})", { name: p.name, team: p.team }) : p.name });
      if (!p.token) {
        /* A link made by an earlier version: only its hash is kept, it works but cannot be shown. */
        box.appendChild(DC.el("figure", { class: "player-link hidden-link", "data-player": p.name }, [caption,
          DC.el("p", { class: "muted", text: _("This link was made by an earlier version of DominoCam, which cannot show it again. It still works on {name}'s phone; press New link to show a QR code (the old link then stops working).", { name: p.name }) }),
          rotate]));
        return;
      }
      box.appendChild(DC.el("figure", { class: "player-link", "data-player": p.name }, [caption,
        DC.el("img", { src: p.qr + "?t=" + encodeURIComponent(p.token.slice(-6)), alt: _("QR code for {name}", { name: p.name }), width: "220", height: "220" }),
        DC.el("p", {}, [DC.el("a", { href: p.url, class: "hand-link", text: _("open {name}'s page", { name: p.name }) })]),
        DC.el("code", { text: p.url }), rotate
      ]));
    });
  }
  DC.api("GET", "/api/games/" + gameId + "/players").then(render);
})();

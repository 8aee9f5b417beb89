"use strict";
(function () {
  var button = DC.$("print-button");
  if (button) button.addEventListener("click", function () { window.print(); });
})();

// Suggestions for a comma-separated field (the post's topics): its <datalist> offers each
// name after what is already typed, so the topic being typed is completed, not the whole
// list. Without this script the list still suggests whole names for the first topic.
(function () {
  "use strict";

  function refresh(input) {
    var list = input.list;
    if (!list) return;
    if (!list.dataset.names) {
      list.dataset.names = JSON.stringify(
        Array.prototype.map.call(list.options, function (option) { return option.value; })
      );
    }
    var comma = input.value.lastIndexOf(",");
    var before = comma < 0 ? "" : input.value.slice(0, comma + 1) + " ";
    var chosen = before.split(",").map(function (name) { return name.trim().toLowerCase(); });
    var options = JSON.parse(list.dataset.names)
      .filter(function (name) { return chosen.indexOf(name.toLowerCase()) < 0; })
      .map(function (name) {
        var option = document.createElement("option");
        option.value = before + name;
        option.textContent = name;
        return option;
      });
    list.replaceChildren.apply(list, options);
  }

  document.addEventListener("input", function (event) {
    var input = event.target;
    if (input instanceof HTMLInputElement && input.hasAttribute("data-list-multiple")) {
      refresh(input);
    }
  });
  document.addEventListener("focusin", function (event) {
    var input = event.target;
    if (input instanceof HTMLInputElement && input.hasAttribute("data-list-multiple")) {
      refresh(input);
    }
  });
})();

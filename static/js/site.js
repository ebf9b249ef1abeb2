// Keyboard and screen-reader care for the htmx swaps on the listing.
// "read more" appends cards: move focus to the first new card so keyboard users land on
// the new content (the counter is an aria-live region and announces the new count).
(function () {
  "use strict";
  var countBefore = 0;

  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "post-list") {
      countBefore = target.children.length;
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "post-list") return;
    var firstNew = target.children[countBefore];
    var link = firstNew && firstNew.querySelector(".card-title a");
    if (link) link.focus();
  });
})();

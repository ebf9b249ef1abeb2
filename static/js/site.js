// Keyboard and screen-reader care for the htmx swaps on the listing.
// "read more" appends cards: move focus to the first new card so keyboard users land on
// the new content (the counter is an aria-live region and announces the new count).
// A topic swap replaces the whole section, counter included, and keeps focus on the chosen
// topic: the persistent #listing-status region says what the new list holds.
(function () {
  "use strict";
  var countBefore = 0;

  function text(el) {
    return el ? el.textContent.replace(/\s+/g, " ").trim() : "";
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "post-list") {
      countBefore = target.children.length;
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (event.target.id === "all-posts") {
      var status = document.getElementById("listing-status");
      var chosen = event.target.querySelector('.topic-filter [aria-current="page"]');
      if (status && chosen) {
        status.textContent = text(chosen.firstChild) + ": " + text(document.getElementById("counter"));
      }
      return;
    }
    if (!target || target.id !== "post-list") return;
    var firstNew = target.children[countBefore];
    var link = firstNew && firstNew.querySelector(".card-title a");
    if (link) link.focus();
  });
})();

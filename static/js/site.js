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

// htmx keeps snapshots of the pages it swapped in this tab's sessionStorage, and a page seen
// while signed in holds the editor's name and a CSRF token. Logging out forgets them, in
// this tab and, through a localStorage event, in the site's other tabs.
(function () {
  "use strict";
  var SIGNAL = "fieldnotes-logged-out";

  function forgetHistory() {
    try {
      sessionStorage.removeItem("htmx-history-cache");
      sessionStorage.removeItem("htmx-current-path-for-history");
    } catch (e) { /* storage turned off: nothing was kept */ }
  }

  document.addEventListener("submit", function (event) {
    if (!event.target.matches || !event.target.matches(".logout-form")) return;
    forgetHistory();
    try {
      localStorage.setItem(SIGNAL, String(Date.now()));
    } catch (e) { /* other tabs then keep theirs until their own logout */ }
  });

  window.addEventListener("storage", function (event) {
    if (event.key === SIGNAL) forgetHistory();
  });
})();

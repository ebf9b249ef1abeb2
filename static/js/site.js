// Listing swaps: after read more, focus moves to the first new card; after a topic swap,
// #listing-status (aria-live) says what the list now holds.
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

// Logging out drops htmx's snapshots of signed-in pages (they hold a CSRF token), here and,
// through a storage event, in the site's other tabs.
(function () {
  "use strict";
  function forget() {
    try {
      sessionStorage.removeItem("htmx-history-cache");
    } catch (e) {}
  }
  document.addEventListener("submit", function (event) {
    if (!event.target.matches(".logout-form")) return;
    forget();
    try {
      localStorage.setItem("fieldnotes-logout", Date.now());
    } catch (e) {}
  });
  addEventListener("storage", function (event) {
    if (event.key === "fieldnotes-logout") forget();
  });
})();

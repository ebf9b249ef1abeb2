// After "read more" (posts or results), focus goes to the first new card; after a topic
// swap, #listing-status (aria-live) says what the list now holds.
(function () {
  "use strict";
  var LISTS = ["post-list", "result-list"];
  var countBefore = 0;

  function text(el) {
    return el ? el.textContent.replace(/\s+/g, " ").trim() : "";
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (target && LISTS.indexOf(target.id) >= 0) countBefore = target.children.length;
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
    if (!target || LISTS.indexOf(target.id) < 0) return;
    var firstNew = target.children[countBefore];
    var link = firstNew && firstNew.querySelector(".card-title a");
    if (link) link.focus();
  });

  // A post's Edit link, for a logged-in editor. Cached pages are the same for everyone, so
  // the link is asked for (with htmx's own attributes) only when the editor hint cookie
  // (blog/web/viewer.py) is there: readers send no request for it. Anyone it is not for
  // gets an empty answer.
  var editSlot = document.getElementById("post-edit");
  if (editSlot && /(?:^|;\s*)fieldnotes_editor=1(?:;|$)/.test(document.cookie)) {
    editSlot.setAttribute("data-hx-get", editSlot.getAttribute("data-edit-link"));
    editSlot.setAttribute("data-hx-trigger", "load");
    editSlot.setAttribute("data-hx-swap", "innerHTML");
    if (window.htmx) window.htmx.process(editSlot);
  }

  // Logging out drops htmx's snapshots of signed-in pages (they hold a CSRF token), in all tabs.
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

  // Theme: "system" (CSS follows the device), "light" or "dark" (<html data-theme>), kept in
  // localStorage; the header button cycles them and says which is on.
  var KEY = "fieldnotes-theme";
  var CHOICES = ["system", "light", "dark"];
  var choice;
  try {
    choice = localStorage.getItem(KEY);
  } catch (e) {}
  if (CHOICES.indexOf(choice) < 0) choice = "system";

  function show() {
    var root = document.documentElement;
    var button = document.getElementById("theme-toggle");
    if (choice === "system") delete root.dataset.theme;
    else root.dataset.theme = choice;
    if (!button) return;
    button.dataset.choice = choice;
    button.lastChild.textContent = "Theme: " + choice;
  }

  document.addEventListener("click", function (event) {
    if (!event.target.closest("#theme-toggle")) return;
    choice = CHOICES[(CHOICES.indexOf(choice) + 1) % 3];
    try {
      localStorage.setItem(KEY, choice);
    } catch (e) {}
    show();
  });
  document.addEventListener("htmx:historyRestore", show);
  show();
})();

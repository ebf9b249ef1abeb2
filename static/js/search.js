// Keyboard and history care for search as you type (the header box in _search_box.html).
// - The first search from another page pushes a history entry; later keystrokes replace it,
//   so Back leaves the results instead of replaying every prefix that was typed.
// - Enter or the Search button moves focus to the results heading; typing keeps it in the box.
// - "read more" on the results moves focus to the first new result, like the listing.
// - The box's text follows the address when history is restored.
// - Typing on a results page keeps its topic; "All topics" adds no empty topic= to the address.
(function () {
  "use strict";

  function box() {
    return document.getElementById("site-search");
  }

  function onSearchPage() {
    return window.location.pathname === "/search";
  }

  function syncHistoryMode() {
    var form = box();
    if (!form) return;
    if (onSearchPage()) {
      form.removeAttribute("data-hx-push-url");
      form.setAttribute("data-hx-replace-url", "true");
    } else {
      form.removeAttribute("data-hx-replace-url");
      form.setAttribute("data-hx-push-url", "true");
    }
  }

  function syncBoxText() {
    var input = document.getElementById("site-search-q");
    if (!input) return;
    var text = onSearchPage() ? new URLSearchParams(window.location.search).get("q") || "" : "";
    if (input.value !== text) input.value = text;
  }

  // An empty topic ("All topics") stays out of the address, so shared links stay short.
  document.addEventListener("htmx:configRequest", function (event) {
    var params = event.detail.parameters;
    var form = box();
    if (event.detail.verb !== "get" || !params) return;
    var topic = document.getElementById("search-topic");
    if (form && form.contains(event.detail.elt) && topic && topic.value) {
      params.topic = topic.value;
    }
    if (params.topic === "") delete params.topic;
  });

  // Enter fires both the form's submit and the box's "search" event (so does clearing the
  // box with its x button, which leaves it empty and keeps the focus where it is).
  function wasSubmitted(config) {
    if (!config) return false;
    var trigger = config.triggeringEvent;
    if (config.elt === box()) return true;
    return Boolean(trigger && trigger.type === "search" && config.elt.value);
  }

  var resultsBefore = 0;

  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "result-list") resultsBefore = target.children.length;
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    if (!target) return;
    if (target.id === "result-list") {
      var firstNew = target.children[resultsBefore];
      var link = firstNew && firstNew.querySelector(".card-title a");
      if (link) link.focus();
      return;
    }
    if (target.id === "main" && wasSubmitted(event.detail.requestConfig)) {
      var heading = document.getElementById("search-title");
      if (heading) heading.focus();
    }
  });

  document.addEventListener("htmx:pushedIntoHistory", syncHistoryMode);
  document.addEventListener("htmx:historyRestore", function () {
    syncHistoryMode();
    syncBoxText();
  });
  syncHistoryMode();
})();

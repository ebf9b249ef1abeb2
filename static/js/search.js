// Search as you type (_search_box.html): one history entry per search, not per keystroke;
// Enter focuses the results heading; the box follows the address on Back; the results'
// topic is kept, and never sent empty. (site.js focuses results that "read more" adds.)
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
    var results = onSearchPage();
    form.removeAttribute(results ? "data-hx-push-url" : "data-hx-replace-url");
    form.setAttribute(results ? "data-hx-replace-url" : "data-hx-push-url", "true");
  }

  function syncBoxText() {
    var input = document.getElementById("site-search-q");
    if (!input) return;
    var text = onSearchPage() ? new URLSearchParams(window.location.search).get("q") || "" : "";
    if (input.value !== text) input.value = text;
  }

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

  // Enter fires submit and "search"; clearing the box (its x) fires "search" empty.
  function wasSubmitted(config) {
    if (!config) return false;
    var trigger = config.triggeringEvent;
    if (config.elt === box()) return true;
    return Boolean(trigger && trigger.type === "search" && config.elt.value);
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    if (target && target.id === "main" && wasSubmitted(event.detail.requestConfig)) {
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

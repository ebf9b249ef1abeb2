// Authoring pages. htmx requests carry the CSRF token in a header; refusals the server
// meant to be shown (validation, conflicts, size limits, an ended session) are swapped in
// although htmx leaves 4xx answers alone by default; anything else is reported in the alert
// box without touching what the editor typed.
(function () {
  "use strict";

  // Answers that carry the editor form back with messages in it.
  var FORM_ANSWERS = [409, 410, 413, 422];

  function meta() {
    return document.querySelector('meta[name="csrf-token"]');
  }

  function setToken(value) {
    var tag = meta();
    if (tag) tag.setAttribute("content", value);
    document.querySelectorAll('input[name="csrf_token"]').forEach(function (input) {
      input.value = value;
    });
  }

  function say(message) {
    var box = document.getElementById("editor-alert");
    if (box) box.textContent = message;
  }

  function megabytes(bytes) {
    return (bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "") + " MB";
  }

  document.addEventListener("htmx:configRequest", function (event) {
    var tag = meta();
    if (tag && event.detail.verb !== "get") {
      event.detail.headers["X-CSRFToken"] = tag.getAttribute("content");
    }
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.detail.elt && event.detail.elt.id === "post-form") say("");
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    var fresh = xhr && xhr.getResponseHeader("X-CSRF-Token");
    if (fresh) setToken(fresh);
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr || xhr.status < 400) return;
    if (xhr.getResponseHeader("HX-Retarget") || FORM_ANSWERS.indexOf(xhr.status) !== -1) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
      return;
    }
    say("The server could not handle that (error " + xhr.status + "). Nothing on this page " +
        "was lost: try again in a moment.");
  });

  document.addEventListener("htmx:sendError", function () {
    say("The server could not be reached. Nothing on this page was lost: check the " +
        "connection and try again.");
  });

  // An image over the limit is refused by the server anyway; say so before uploading it.
  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches('input[type="file"][data-max-bytes]')) return;
    var limit = Number(input.getAttribute("data-max-bytes"));
    var file = input.files && input.files[0];
    if (file && limit && file.size > limit) {
      say("That image is " + megabytes(file.size) + "; the limit is " + megabytes(limit) +
          ". Choose a smaller file.");
      input.value = "";
    }
  });
})();

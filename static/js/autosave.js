// Autosave for the editor of a stored post: a few seconds after the editor stops typing,
// the form's text goes to /editor/posts/<id>/autosave, where it is kept as an "autosave"
// revision. That publishes nothing and leaves the post as saved. Nothing is sent when the
// text is what the page opened with or what the last autosave sent. New posts are not
// autosaved (they have no id yet). As the editor opens, an autosave newer than the post's
// last save is offered above the form.
(function () {
  "use strict";

  var IDLE_MS = 4000;
  var tracked = null; // the form being watched (htmx replaces it after each save)
  var lastSent = ""; // the text the server holds for it: as loaded, or as last autosaved
  var timer = null;
  var sending = false;

  function postForm() {
    var form = document.getElementById("post-form");
    var id = form && form.querySelector('input[name="post_id"]');
    return form && id && id.value ? form : null;
  }

  function endpoint(form) {
    return form.getAttribute("action") + "/autosave";
  }

  function token() {
    var tag = document.querySelector('meta[name="csrf-token"]');
    return tag ? tag.getAttribute("content") : "";
  }

  // The form's fields as one string, files and the token left out: what "changed" compares.
  function snapshot(form) {
    var params = new URLSearchParams();
    new FormData(form).forEach(function (value, name) {
      if (typeof value === "string" && name !== "csrf_token") params.append(name, value);
    });
    return params.toString();
  }

  function track(form) {
    if (form === tracked) return;
    tracked = form;
    lastSent = form ? snapshot(form) : "";
    clearTimeout(timer);
  }

  function send() {
    var form = postForm();
    if (!form || form !== tracked) return;
    var text = snapshot(form);
    if (text === lastSent) return;
    if (sending) {
      timer = setTimeout(send, IDLE_MS);
      return;
    }
    sending = true;
    fetch(endpoint(form), {
      method: "POST",
      body: new URLSearchParams(text),
      credentials: "same-origin",
      headers: { "X-CSRFToken": token() },
    }).then(function (response) {
      if (response.status === 204 && form === tracked) {
        lastSent = text;
        form.setAttribute("data-autosaved-at", new Date().toISOString());
      }
    }).catch(function () {
      // Offline or refused: the text is still on the page; the next pause tries again.
    }).then(function () {
      sending = false;
    });
  }

  function typed(event) {
    var form = postForm();
    if (!form || !event.target || event.target.form !== form) return;
    track(form);
    clearTimeout(timer);
    timer = setTimeout(send, IDLE_MS);
  }

  function offerNewerAutosave(form) {
    fetch(endpoint(form), { credentials: "same-origin" }).then(function (response) {
      if (response.status !== 200) return null;
      return response.text();
    }).then(function (html) {
      if (html && form.isConnected && !document.getElementById("autosave-offer")) {
        form.insertAdjacentHTML("beforebegin", html);
      }
    }).catch(function () {});
  }

  function start() {
    var form = postForm();
    track(form);
    if (form) offerNewerAutosave(form);
  }

  document.addEventListener("input", typed);
  document.addEventListener("change", typed);
  // htmx swaps in a fresh form after each save. After a save that worked, what it holds is
  // saved: the new start. After a refused one (422, 409...) it holds unsaved text: that is
  // sent at the next pause unless the server already holds it.
  document.addEventListener("htmx:afterSettle", function (event) {
    var form = postForm();
    if (form === tracked) return;
    var xhr = event.detail && event.detail.xhr;
    if (!form || (xhr && xhr.status === 200)) {
      track(form);
      return;
    }
    tracked = form;
    clearTimeout(timer);
    timer = setTimeout(send, IDLE_MS);
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

// Ctrl+S (Cmd+S on a Mac) in the post editor saves, as pressing Save does. A post with
// nothing changed since it was opened or last saved is not sent again (the status says so),
// and a press while a save is on its way does nothing: that save is the one.
(function () {
  "use strict";

  var base = null; // the form as the server last sent it
  var baseText = null; // its fields then, or null when it holds text not yet saved

  function snapshot(form) {
    var params = new URLSearchParams();
    new FormData(form).forEach(function (value, name) {
      if (typeof value === "string") params.append(name, value);
      else if (value && value.name) params.append(name, "file:" + value.name + ":" + value.size);
    });
    return params.toString();
  }

  // A stored post as opened or just saved is the baseline; a new post, or one whose save
  // was refused, always has something to save.
  function baseline() {
    var form = document.getElementById("post-form");
    if (!form || form === base) return;
    base = form;
    var stored = form.querySelector('input[name="post_id"]');
    var outcome = form.getAttribute("data-outcome");
    var settled = outcome === "" || outcome === "saved";
    baseText = stored && stored.value && settled ? snapshot(form) : null;
  }

  function say(message) {
    var box = document.getElementById("save-status");
    if (!box) return;
    box.setAttribute("role", "status");
    box.setAttribute("aria-live", "polite");
    box.classList.remove("save-status-problem", "save-status-saved");
    box.textContent = "";
    var line = document.createElement("p");
    line.textContent = message;
    box.appendChild(line);
  }

  document.addEventListener("keydown", function (event) {
    var key = (event.key || "").toLowerCase();
    if (key !== "s" || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) {
      return;
    }
    var form = document.getElementById("post-form");
    if (!form) return;
    event.preventDefault(); // not the browser's "Save page as"
    baseline();
    var button = form.querySelector("#save-button, #save-as-draft");
    // A save on its way disables the form's buttons (data-hx-disabled-elt); the
    // form's other requests (previews, slug hints) must not swallow the press.
    if (event.repeat || !button || button.matches(":disabled")) return;
    if (baseText !== null && snapshot(form) === baseText) {
      say("Nothing to save: the post is as it was last saved.");
      return;
    }
    button.click();
  });

  // Taken as soon as a new form is swapped in, not when htmx settles it a moment later: a
  // press in between would otherwise take the text typed since as the saved text.
  document.addEventListener("htmx:afterSwap", baseline);
  document.addEventListener("htmx:afterSettle", baseline);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", baseline);
  } else {
    baseline();
  }
})();

// Autosave is htmx's: the status beside the bar's buttons posts the form a few seconds after
// the last change (its hx-trigger) and shows the answer ("Autosaved 16:21"). This says
// "Unsaved changes" there as soon as something is typed, and keeps an autosave that did not
// go through (logged out, offline, refused) to that status: the alert box at the top is for
// what the editor asked for, and the text is still on the page either way.
(function () {
  "use strict";

  function status() {
    return document.getElementById("autosave-status");
  }

  function typed(event) {
    var target = event.target;
    if (!event.isTrusted || !target || !target.closest || !target.closest("#post-form")) return;
    var shown = status();
    if (shown && shown.textContent !== "Unsaved changes") shown.textContent = "Unsaved changes";
  }

  function fromAutosave(event) {
    var detail = event.detail || {};
    var elt = (detail.requestConfig && detail.requestConfig.elt) || detail.elt;
    return !!elt && elt.id === "autosave-status";
  }

  // Listened for on the way down, so editor.js's handlers for the editor's own requests
  // never see an autosave's answer.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (!fromAutosave(event) || !xhr || xhr.status < 400) return;
    event.stopImmediatePropagation();
    event.detail.isError = false;
    if (xhr.status === 409) {  // another editor's draft changes: the answer says whose
      event.detail.shouldSwap = true;
      return;
    }
    event.detail.shouldSwap = false;
    var shown = status();
    if (shown) {
      shown.textContent = xhr.status === 401 ?
          "Not autosaved: you are logged out. Save to log in again." :
          "Not autosaved (error " + xhr.status + "). Your text is still here.";
    }
  }, true);

  document.addEventListener("htmx:sendError", function (event) {
    if (!fromAutosave(event)) return;
    event.stopImmediatePropagation();
    var shown = status();
    if (shown) shown.textContent = "Not autosaved: the server could not be reached.";
  }, true);

  // Input only: every change of a field's value fires it. A text field's `change` comes when
  // it loses focus, and a save's answer moving focus to the field's replacement fires it on
  // the old one after the answer said "Saved": it would call saved text unsaved.
  document.addEventListener("input", typed);
})();

// A save refused because the session ended or changed is sent again, once, without another
// press of Save. Logged out (401): a login dialog opens over the editor; logging in there
// gives the form the new session's token and sends the same save, with the text as it is.
// Logged in again elsewhere meanwhile (the page's form token is from the old session, 400
// with a fresh token): the save goes again at once with the fresh token. The login link of
// another request's alert (a preview met the ended session) opens the same dialog. Without
// scripts the server's own answers stand: the login page, and the form back with its text.
(function () {
  "use strict";

  var waiting = null; // the button whose save waits for a login, or null
  var resendAfterRequest = null; // the button to press once the refused request has ended
  var resent = false; // whether the save on its way is already a second try
  var returnTo = null; // where the writer was when the dialog opened: {field, start, end}

  function dialog() {
    return document.getElementById("session-dialog");
  }

  // The status beside Save (as editor.js shows it): a problem is spoken at once.
  function tell(message, problem) {
    var box = document.getElementById("save-status");
    if (!box) return null;
    box.setAttribute("role", problem ? "alert" : "status");
    box.setAttribute("aria-live", problem ? "assertive" : "polite");
    box.classList.toggle("save-status-problem", !!problem);
    box.classList.remove("save-status-saved");
    box.textContent = "";
    var line = document.createElement("p");
    line.textContent = message;
    box.appendChild(line);
    return box;
  }

  // The save button that sent a request of the editor form, or null for any other request
  // (previews, hints, autosaves: they are not the editor's own act, so they open nothing).
  function saveButton(event) {
    var config = (event.detail || {}).requestConfig || {};
    var elt = config.elt || (event.detail || {}).elt;
    var trigger = config.triggeringEvent;
    if (!elt || elt.id !== "post-form" || !trigger || trigger.type !== "submit") return null;
    var button = trigger.submitter;
    if (button && button.isConnected) return button;
    return elt.querySelector("#save-button, #save-as-draft");
  }

  function send(button) {
    if (!button || !button.isConnected || button.disabled) {
      var box = tell("Not saved yet: press Save to send your text.", true);
      if (box) box.focus();
      return;
    }
    resent = true;
    button.click();
  }

  // Open the dialog; `button` is the save to send once logged in (null: nothing waits).
  function open(button) {
    var box = dialog();
    waiting = button;
    var active = document.activeElement;
    returnTo = active && active !== document.body && !box.contains(active) ? {
      field: active,
      start: typeof active.selectionStart === "number" ? active.selectionStart : null,
      end: typeof active.selectionEnd === "number" ? active.selectionEnd : null
    } : null;
    if (button) {
      tell("Not saved: you were logged out. Log in to save; your text is still here.", true);
    }
    document.getElementById("session-login-problem").textContent = "";
    var password = document.getElementById("session-password");
    password.value = "";
    if (!box.open) box.showModal();
    var email = document.getElementById("session-email");
    (email.value ? password : email).focus();
  }

  // Back to the field the writer was in, caret and all, before the save goes again (so the
  // editor comes back with them there too).
  function goBack() {
    var back = returnTo;
    returnTo = null;
    if (!back || !back.field.isConnected) return;
    back.field.focus({ preventScroll: true });
    if (back.start !== null) {
      try {
        back.field.setSelectionRange(back.start, back.end);
      } catch (error) {
        // Not a text field: focus is enough.
      }
    }
  }

  // Capture: this runs before editor.js's listener, which shows other refusals.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    var button = xhr && saveButton(event);
    if (!button) return;
    var again = resent;
    resent = false;
    var freshToken = xhr.getResponseHeader("X-CSRF-Token");
    if (xhr.status === 401 && dialog()) {
      event.detail.handledBySession = true;
      event.detail.shouldSwap = false;
      event.detail.isError = false;
      open(button);
    } else if (xhr.status === 400 && freshToken && !again) {
      // editor.js gives every form the fresh token as the request ends; then it goes again.
      event.detail.handledBySession = true;
      event.detail.shouldSwap = false;
      event.detail.isError = false;
      resendAfterRequest = button;
    }
  }, true);

  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    if (resendAfterRequest && elt && elt.id === "post-form") {
      var button = resendAfterRequest;
      resendAfterRequest = null;
      window.setTimeout(function () { send(button); }, 0);
      return;
    }
    if (!elt || elt.id !== "session-login") return;
    var xhr = event.detail.xhr;
    var password = document.getElementById("session-password");
    if (xhr && xhr.status === 204) {
      password.value = "";
      var button = waiting;
      waiting = null;
      dialog().close();
      goBack();
      var alert = document.getElementById("editor-alert");
      if (alert) alert.textContent = "";
      if (button) {
        tell("Logged in again. Saving…", false);
        window.setTimeout(function () { send(button); }, 0);
      } else {
        tell("Logged in again. Your text is still here, not saved yet.", false);
      }
    } else {
      // The reason is in the dialog (spoken as an alert); the password is typed again.
      password.value = "";
      password.focus();
    }
  });

  // Closed without logging in (Not now, or Escape): nothing was saved, and Save says so.
  // Another request of the editor met the ended session (a preview, a hint): its alert's
  // login link opens the dialog here rather than a new tab.
  document.addEventListener("click", function (event) {
    if (event.target.id === "session-cancel") {
      dialog().close();
      return;
    }
    var link = event.target.closest && event.target.closest("#editor-alert a.login-link");
    if (link && dialog() && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
      event.preventDefault();
      open(null);
    }
  });

  document.addEventListener("close", function (event) {
    if (event.target !== dialog() || !waiting) return;
    waiting = null;
    var box = tell("Not saved: you are logged out. Press Save to log in again; your text " +
                   "is still here.", true);
    if (box) box.focus();
  }, true);
})();

// The writer's place in the post editor outlives a save. htmx replaces the whole editor with
// the server's answer (the Save button, Ctrl+S or Cmd+S, or any other request aimed at
// #post-editor): the field that had focus gets it back, with its caret, its selection and how
// far it was scrolled, and the page stays where it was on screen. The fields stay open while
// a save is on its way (only the buttons wait), and what is typed meanwhile is carried into
// the editor that comes back, as typing (so it counts as unsaved, and Ctrl+Z knows it).
// An answer that needs the writer keeps the focus the server gives it: a refused save (the
// summary of what went wrong) or a question before publishing, each marked `autofocus`.
(function () {
  "use strict";

  var EDITOR = "post-editor";
  var place = null; // where the writer was when the last request left, until a swap uses it
  var settling = null; // the place just restored, until the swap has settled
  var sent = null; // the text fields as the request took them: [{field, value}]
  var TEXT = 'input[id][type="text"], input[id][type="search"], input[id][type="url"], ' +
      "textarea[id]";

  function editor() {
    return document.getElementById(EDITOR);
  }

  function aimsAtEditor(event) {
    var detail = event.detail || {};
    var target = (detail.requestConfig && detail.requestConfig.target) || detail.target;
    return !!target && target.id === EDITOR;
  }

  // The focused field of the editor (one with an id, which its replacement shares), or null.
  function focusedField() {
    var active = document.activeElement;
    var box = editor();
    if (!active || !box || active === document.body || !active.id) return null;
    return box.contains(active) ? active : null;
  }

  function record() {
    var field = focusedField();
    // Focus outside the editor (in the login dialog, say): the place recorded as the first
    // request left is still the one to go back to.
    if (!field && place) return;
    var anchor = field || document.getElementById("body");
    var selectable = field && typeof field.selectionStart === "number";
    place = {
      id: field ? field.id : null,
      start: selectable ? field.selectionStart : null,
      end: selectable ? field.selectionEnd : null,
      direction: selectable ? field.selectionDirection : null,
      scrollTop: field ? field.scrollTop : 0,
      anchorId: anchor ? anchor.id : null,
      anchorTop: anchor ? anchor.getBoundingClientRect().top : 0,
      x: window.scrollX,
      y: window.scrollY
    };
  }

  // Whether the swapped-in editor asks for the writer's attention: a refusal, or a question
  // (publish to readers now?). The server marks what must take focus with `autofocus`.
  function asksForAttention() {
    var form = document.getElementById("post-form");
    var outcome = form ? form.getAttribute("data-outcome") : "";
    var box = editor();
    return (!!outcome && outcome !== "saved") || !!(box && box.querySelector("[autofocus]"));
  }

  // The same field at the same height on screen, even when a notice above it came or went.
  function scrollBack(kept) {
    var anchor = kept.anchorId && document.getElementById(kept.anchorId);
    if (anchor) {
      window.scrollBy(0, anchor.getBoundingClientRect().top - kept.anchorTop);
    } else {
      window.scrollTo(kept.x, kept.y);
    }
  }

  function restore() {
    var kept = place;
    place = null;
    if (!kept || asksForAttention()) return;
    settling = kept;
    scrollBack(kept);
    refocus(kept);
  }

  function refocus(kept) {
    var field = kept.id && document.getElementById(kept.id);
    if (!field || field.disabled || typeof field.focus !== "function") return;
    field.focus({ preventScroll: true });
    if (kept.start !== null && typeof field.setSelectionRange === "function") {
      try {
        var length = field.value.length;
        field.setSelectionRange(Math.min(kept.start, length), Math.min(kept.end, length),
                                kept.direction || "none");
      } catch (error) {
        // A field that takes no selection (a date, a checkbox): focus is enough.
      }
    }
    field.scrollTop = kept.scrollTop;
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!aimsAtEditor(event)) return;
    record();
    var form = document.getElementById("post-form");
    sent = form ? Array.prototype.map.call(form.querySelectorAll(TEXT), function (field) {
      return { field: field, value: field.value };
    }) : null;
  });

  // Text typed into the old editor while the request was on its way, by field.
  function typedMeanwhile() {
    var typed = [];
    (sent || []).forEach(function (was) {
      var now = was.field.value;
      var field = now !== was.value && document.getElementById(was.field.id);
      if (field && field !== was.field && !field.disabled && !field.readOnly &&
          field.value !== now) {
        typed.push({ field: field, value: now });
      }
    });
    sent = null;
    return typed;
  }

  // Put `value` in the field as typing would: the browser's editing command keeps the undo
  // history and sends the input events the editor's other scripts count as a change.
  function retype(field, value, mayFocus) {
    if (mayFocus) {
      field.focus({ preventScroll: true });
      field.setSelectionRange(0, field.value.length);
      try {
        if (document.execCommand("insertText", false, value) && field.value === value) return;
      } catch (error) {
        // Fall through to setting the value.
      }
    }
    field.value = value;
    field.dispatchEvent(new Event("input", { bubbles: true }));
  }

  // The writer may have typed or moved on while the request was on its way: the place just
  // before the swap is the freshest.
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (aimsAtEditor(event) && event.detail.shouldSwap && focusedField()) {
      place = null;
      record();
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    if (aimsAtEditor(event)) restore();
  });

  // The editor's other scripts take the fresh editor's state as it settles (saved, or the
  // baseline Ctrl+S compares with); text typed meanwhile comes after, as a change of its own.
  // Parts shown once the swap has settled (the body's image tools) can move the page under
  // the writer: it is put back once more.
  document.addEventListener("htmx:afterSettle", function (event) {
    if (!aimsAtEditor(event)) return;
    var kept = settling;
    settling = null;
    var typed = typedMeanwhile();
    typed.forEach(function (entry) { retype(entry.field, entry.value, !!kept); });
    if (!kept) return;
    if (typed.length) refocus(kept);
    scrollBack(kept);
  });
})();

// The body's formatting toolbar and its shortcuts (Ctrl+B, Ctrl+I, Ctrl+K; Cmd on a Mac).
// Each tool writes Markdown around the selection, or on the selected lines, through the
// browser's own editing command where it has one, so Ctrl+Z undoes it like typing; what was
// done is said in a polite live region. Listeners sit on the document: saves swap the editor.
(function () {
  "use strict";

  var MAC = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || "");
  var KEYS = { b: "bold", i: "italic", k: "link" };

  // Markers around the selection: [before, after, what to select when nothing was, name].
  var WRAPS = {
    bold: ["**", "**", "bold text", "Bold"],
    italic: ["*", "*", "italic text", "Italic"],
    code: ["`", "`", "code", "Code"]
  };
  // Markers at the start of each selected line.
  var LINES = { heading: ["## ", "Heading"], list: ["- ", "List"], quote: ["> ", "Quotation"] };

  function body() {
    return document.getElementById("body");
  }

  function announce(message) {
    var box = document.getElementById("toolbar-status");
    if (!box) return;
    box.textContent = "";
    // A moment apart, so the same message twice is spoken twice.
    window.setTimeout(function () { box.textContent = message; }, 30);
  }

  // Replace characters start..end of the body with `text`, keeping the undo history where the
  // browser allows, then select selStart..selEnd (offsets into the new text).
  function replace(field, start, end, text, selStart, selEnd) {
    field.focus();
    field.setSelectionRange(start, end);
    var done = false;
    try {
      done = document.execCommand("insertText", false, text);
    } catch (error) {
      done = false;
    }
    if (!done || field.value.slice(start, start + text.length) !== text) {
      field.setRangeText(text, start, end, "end");
      field.dispatchEvent(new Event("input", { bubbles: true }));
    }
    field.setSelectionRange(start + selStart, start + selEnd);
  }

  function wrap(field, name) {
    var spec = WRAPS[name];
    var open = spec[0];
    var close = spec[1];
    var start = field.selectionStart;
    var end = field.selectionEnd;
    var value = field.value;
    var chosen = value.slice(start, end);
    // Already wrapped (markers just outside the selection, or at its ends): unwrap.
    var outside = start >= open.length && value.slice(start - open.length, start) === open &&
        value.slice(end, end + close.length) === close;
    var inside = chosen.length >= open.length + close.length &&
        chosen.slice(0, open.length) === open && chosen.slice(-close.length) === close;
    if (name === "italic") {  // "**" is bold, not two italics
      outside = outside && value.charAt(start - 2) !== "*" && value.charAt(end + 1) !== "*";
      inside = inside && chosen.charAt(1) !== "*";
    }
    if (outside) {
      replace(field, start - open.length, end + close.length, chosen, 0, chosen.length);
      return spec[3] + " removed.";
    }
    if (inside) {
      var bare = chosen.slice(open.length, chosen.length - close.length);
      replace(field, start, end, bare, 0, bare.length);
      return spec[3] + " removed.";
    }
    if (name === "code" && chosen.indexOf("\n") !== -1) {
      var before = start > 0 && value.charAt(start - 1) !== "\n" ? "\n" : "";
      var code = chosen.replace(/\n$/, "");
      var block = before + "```\n" + code + "\n```\n";
      replace(field, start, end, block, before.length + 4, before.length + 4 + code.length);
      return "Code block added.";
    }
    var inner = chosen || spec[2];
    replace(field, start, end, open + inner + close, open.length, open.length + inner.length);
    return spec[3] + (chosen ? " added." : " added: type over the selected words.");
  }

  // [words](address) and ![description](address): the address is selected, to type over.
  function link(field, image) {
    var start = field.selectionStart;
    var end = field.selectionEnd;
    var chosen = field.value.slice(start, end);
    var looksLikeAddress = /^(https?:\/\/|\/)\S*$/.test(chosen);
    var words = looksLikeAddress ? "" : chosen;
    var address = looksLikeAddress ? chosen : "https://";
    if (!words) words = image ? "description of the image" : "link text";
    var text = (image ? "!" : "") + "[" + words + "](" + address + ")";
    var wordsAt = image ? 2 : 1;
    if (looksLikeAddress || !chosen) {
      replace(field, start, end, text, wordsAt, wordsAt + words.length);
      return (image ? "Image added: type its description." : "Link added: type its words.");
    }
    var addressAt = wordsAt + words.length + 2;
    replace(field, start, end, text, addressAt, addressAt + address.length);
    return (image ? "Image added: type its address." : "Link added: type its address.");
  }

  function lines(field, name) {
    var marker = LINES[name][0];
    var value = field.value;
    var start = value.lastIndexOf("\n", field.selectionStart - 1) + 1;
    var endAt = field.selectionEnd;
    if (endAt > field.selectionStart && value.charAt(endAt - 1) === "\n") endAt -= 1;
    var end = value.indexOf("\n", endAt);
    if (end === -1) end = value.length;
    var rows = value.slice(start, end).split("\n");
    var marked = rows.every(function (row) { return row.indexOf(marker) === 0 || !row; });
    var changed = rows.map(function (row) {
      if (marked) return row.indexOf(marker) === 0 ? row.slice(marker.length) : row;
      if (name === "heading") row = row.replace(/^#{1,6} /, "");
      return row ? marker + row : (rows.length === 1 ? marker : row);
    }).join("\n");
    // Markdown starts a list, a quotation or a heading only after a blank line: give the
    // new block one when the line above is a paragraph's.
    var above = value.slice(value.lastIndexOf("\n", start - 2) + 1, Math.max(start - 1, 0));
    if (!marked && start > 0 && above.trim() && above.indexOf(marker) !== 0) {
      changed = "\n" + changed;
    }
    replace(field, start, end, changed, changed.length, changed.length);
    var what = LINES[name][1];
    return marked ? what + " removed." : what + " added" +
        (rows.length > 1 ? " to " + rows.length + " lines." : ".");
  }

  function apply(name) {
    var field = body();
    if (!field || field.disabled || field.readOnly) return;
    var said;
    if (WRAPS[name]) said = wrap(field, name);
    else if (name === "link") said = link(field, false);
    else if (name === "image") said = link(field, true);
    else if (LINES[name]) said = lines(field, name);
    if (said) announce(said);
  }

  function tools(bar) {
    return Array.prototype.slice.call(bar.querySelectorAll("button[data-md]"));
  }

  // One Tab stop: the button last used (or the first) takes it.
  function rove(bar, next) {
    tools(bar).forEach(function (button) {
      button.tabIndex = button === next ? 0 : -1;
    });
    next.focus();
  }

  // Titles name the Mac's key there.
  function label(root) {
    if (!MAC) return;
    root.querySelectorAll(".md-toolbar button[title]").forEach(function (button) {
      button.title = button.title.replace("Ctrl+", "⌘");
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".md-toolbar button[data-md]");
    if (!button) return;
    rove(button.closest(".md-toolbar"), button);
    apply(button.getAttribute("data-md"));
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var bar = target.closest && target.closest(".md-toolbar");
    if (bar && target.matches("button[data-md]")) {
      var all = tools(bar);
      var at = all.indexOf(target);
      var next = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1,
                   Home: 0, End: all.length - 1 }[event.key];
      if (next === undefined) return;
      event.preventDefault();
      rove(bar, all[(next + all.length) % all.length]);
      return;
    }
    if (target.id !== "body" || event.altKey || event.shiftKey) return;
    if (!event.ctrlKey && !event.metaKey) return;
    var name = KEYS[(event.key || "").toLowerCase()];
    if (!name) return;
    event.preventDefault();
    apply(name);
  });

  document.addEventListener("htmx:afterSettle", function () { label(document); });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { label(document); });
  } else {
    label(document);
  }
})();

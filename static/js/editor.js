// Authoring pages. htmx requests carry the CSRF token in a header; refusals the server
// meant to be shown (validation, conflicts, size limits, an ended session) are swapped in
// although htmx leaves 4xx answers alone by default; anything else is reported in the alert
// box without touching what the editor typed.
(function () {
  "use strict";

  // Answers that carry the editor form back with messages in it (403: a role's refusal,
  // the text kept).
  var FORM_ANSWERS = [403, 409, 410, 413, 422];

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

  // The alert box at the top speaks for requests other than saves (the preview, the address
  // hint); a save's refusal is spoken beside the Save button instead, so it is said once.
  function alertBox(speaks) {
    var box = document.getElementById("editor-alert");
    if (box && speaks) box.setAttribute("role", "alert");
    else if (box) box.removeAttribute("role");
    return box;
  }

  function say(message, speaks) {
    var box = alertBox(speaks !== false);
    if (box) box.textContent = message;
  }

  function form() {
    return document.getElementById("post-form");
  }

  // Whether an htmx event belongs to a save: the editor form made the request. (The swap
  // events' own `elt` is the element swapped into, so ask the request's settings first.)
  function fromForm(event) {
    var detail = event.detail || {};
    var elt = (detail.requestConfig && detail.requestConfig.elt) || detail.elt;
    return !!elt && elt.id === "post-form";
  }

  // The status beside the Save button. A problem is spoken at once (role=alert) and takes
  // focus, since the editor has to act on it; success is spoken politely.
  function status(message, problem, html) {
    var box = document.getElementById("save-status");
    if (!box) return;
    box.setAttribute("role", problem ? "alert" : "status");
    box.setAttribute("aria-live", problem ? "assertive" : "polite");
    box.classList.toggle("save-status-problem", !!problem);
    box.classList.toggle("save-status-saved", !problem && !!message);
    if (html) {
      box.innerHTML = html;
    } else {
      box.textContent = "";
      if (message) {
        var line = document.createElement("p");
        line.textContent = message;
        box.appendChild(line);
      }
    }
    if (problem && message) box.focus();
  }

  // A save's refusal: in the alert box at the top and beside Save.
  function refuse(message) {
    say(message, false);
    status(message, true);
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
    if (!fromForm(event)) return;
    var oversized = oversizedFile(form() || event.detail.elt);
    if (oversized) {
      event.preventDefault();
      refuseFile(oversized);
      return;
    }
    say("", false);
    status("Saving…", false);
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    var fresh = xhr && xhr.getResponseHeader("X-CSRF-Token");
    if (fresh) setToken(fresh);
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    // An ended session, met by a save: session.js logs in again and sends it once more.
    if (!xhr || xhr.status < 400 || event.detail.handledBySession) return;
    var retarget = xhr.getResponseHeader("HX-Retarget");
    if (retarget || FORM_ANSWERS.indexOf(xhr.status) !== -1) {
      if (retarget === "#editor-alert") alertBox(!fromForm(event));
      event.detail.shouldSwap = true;
      event.detail.isError = false;
      return;
    }
    var message = "The server could not handle that (error " + xhr.status + "). Nothing on " +
        "this page was lost: try again in a moment.";
    if (fromForm(event)) refuse(message); else say(message);
  });

  // A save refused with an alert (logged out, too large, token expired): the alert box got
  // it from htmx; the editor is looking at the Save button, so it goes there too.
  document.addEventListener("htmx:afterSwap", function (event) {
    if (!fromForm(event) || event.detail.target.id !== "editor-alert") return;
    var box = document.getElementById("editor-alert");
    status(box.textContent.trim(), true, box.innerHTML);
  });

  document.addEventListener("htmx:sendError", function (event) {
    var message = "The server could not be reached. Nothing on this page was lost: check " +
        "the connection and try again.";
    if (fromForm(event)) refuse(message); else say(message);
  });

  // Images -----------------------------------------------------------------------------------

  function fileTooBig(input) {
    var limit = Number(input.getAttribute("data-max-bytes"));
    var file = input.files && input.files[0];
    return file && limit && file.size > limit ? { input: input, file: file, limit: limit } : null;
  }

  function oversizedFile(root) {
    var inputs = root.querySelectorAll('input[type="file"][data-max-bytes]');
    for (var i = 0; i < inputs.length; i++) {
      var found = fileTooBig(inputs[i]);
      if (found) return found;
    }
    return null;
  }

  // The message beside the file field (created once, tied to the field for screen readers).
  function fileMessage(input, text) {
    var id = input.id + "-size-error";
    var line = document.getElementById(id);
    if (!line && text) {
      line = document.createElement("p");
      line.id = id;
      line.className = "field-errors";
      input.insertAdjacentElement("afterend", line);
      var described = (input.getAttribute("aria-describedby") || "").split(" ");
      if (described.indexOf(id) === -1) described.push(id);
      input.setAttribute("aria-describedby", described.join(" ").trim());
    }
    if (!line) return;
    line.textContent = text;
    line.hidden = !text;
    if (text) input.setAttribute("aria-invalid", "true");
    else if (!input.closest(".field-invalid")) input.removeAttribute("aria-invalid");
  }

  // An image over the limit is refused by the server anyway: refuse it here, before it is
  // uploaded, and say so beside the file field and beside Save. The choice is undone (the
  // form would not save with it), never silently: the message names the file.
  function refuseFile(found) {
    var said = megabytes(found.file.size), most = megabytes(found.limit);
    if (said === most) {  // as the server says it: in bytes when both read the same
      said = found.file.size.toLocaleString("en") + " bytes";
      most = found.limit.toLocaleString("en") + " bytes";
    }
    var text = "This image, “" + found.file.name + "”, is " + said + "; the limit is " + most +
        ", so it was not attached. Choose a smaller file.";
    found.input.value = "";
    fileMessage(found.input, text);
    status("Not saved yet: " + text, true);
  }

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches('input[type="file"][data-max-bytes]')) return;
    var found = fileTooBig(input);
    if (found) refuseFile(found);
    else fileMessage(input, "");
  });

  // Length counts ----------------------------------------------------------------------------

  // Characters as the server counts them: code points, without the control characters the
  // store removes, and without the spaces at the ends of fields it trims.
  function length(value, trim) {
    if (trim) value = value.trim();
    var count = 0;
    for (var i = 0; i < value.length; i++) {
      var code = value.charCodeAt(i);
      if (code >= 0xdc00 && code <= 0xdfff && i > 0) {
        var before = value.charCodeAt(i - 1);
        if (before >= 0xd800 && before <= 0xdbff) continue;
      }
      if (code < 32 && code !== 9 && code !== 10 && code !== 13) continue;
      if (code === 127) continue;
      count++;
    }
    return count;
  }

  function grouped(number) {
    return number.toLocaleString("en-US");
  }

  // Update one field's "123 / 300"; returns true when its text just went over the limit.
  function recount(counter) {
    var input = document.getElementById(counter.getAttribute("data-count-for"));
    if (!input) return false;
    var limit = Number(counter.getAttribute("data-limit"));
    var count = length(input.value, input.id !== "body");
    var over = count > limit;
    var was = counter.classList.contains("field-count-over");
    counter.querySelector(".field-count-value").textContent = grouped(count) + " / " +
        grouped(limit);
    counter.querySelector(".field-count-note").textContent = over ?
        ": " + grouped(count - limit) + " over the limit" : "";
    counter.classList.toggle("field-count-over", over);
    return over && !was;
  }

  var pendingCount = null;
  function countSoon(input) {
    var counter = document.getElementById(input.id + "-count");
    if (!counter || !counter.hasAttribute("data-count-for")) return;
    if (pendingCount === counter) return;
    pendingCount = counter;
    window.requestAnimationFrame(function () {
      pendingCount = null;
      if (recount(counter)) {
        var label = document.querySelector('label[for="' + input.id + '"]');
        status((label ? label.textContent.trim() : "This field") + " is over its limit of " +
            grouped(Number(counter.getAttribute("data-limit"))) + " characters: it will not " +
            "save until it is shorter.", false);
      }
    });
  }

  // Publish times ----------------------------------------------------------------------------

  // The publish time is typed in the site's zone (the field's data-site-zone). When this
  // browser's zone is another, a note beside the field gives the same moment in this
  // browser's zone, reckoned as the server does: a time the clocks show twice is the first.
  var HOUR = 3600 * 1000;
  var clocks = {};

  function browserZone() {
    try {
      return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    } catch (error) {
      return "";
    }
  }

  // What a zone's clocks read at an instant: {year, month, day, hour, minute}.
  function reading(ms, zone) {
    if (!clocks[zone]) {
      clocks[zone] = new Intl.DateTimeFormat("en-US", {
        timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit",
        day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit"
      });
    }
    var parts = {};
    clocks[zone].formatToParts(new Date(ms)).forEach(function (part) {
      parts[part.type] = Number(part.value);
    });
    parts.hour = parts.hour % 24;
    return parts;
  }

  // A clock reading as milliseconds, as if it were UTC (years below 100 included).
  function asUTC(r) {
    var date = new Date(0);
    date.setUTCFullYear(r.year, r.month - 1, r.day);
    date.setUTCHours(r.hour, r.minute, r.second || 0, 0);
    return date.getTime();
  }

  function offset(ms, zone) {
    return asUTC(reading(ms, zone)) - Math.floor(ms / 1000) * 1000;
  }

  // The instant a clock reading in `zone` names (the first of two), or null when the clocks
  // there skip it.
  function instantOf(r, zone) {
    var wall = asUTC(r);
    var found = null;
    [-24, 0, 24].forEach(function (hours) {
      var guess = offset(wall + hours * HOUR, zone);
      var instant = wall - guess;
      if (offset(instant, zone) === guess && (found === null || instant < found)) {
        found = instant;
      }
    });
    return found;
  }

  function pad(number) {
    return (number < 10 ? "0" : "") + number;
  }

  function dayOf(r) {
    return ("000" + r.year).slice(-4) + "-" + pad(r.month) + "-" + pad(r.day);
  }

  // The note's text for what the field holds, or "" when there is nothing to add.
  function zoneNote(input) {
    var site = input.getAttribute("data-site-zone");
    var mine = browserZone();
    if (!site || !mine || site === mine) return "";
    var value = input.value.trim();
    var typed = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?/.exec(value);
    try {
      if (!typed) return value ? "" : "Times here are in " + site + "; yours is " + mine + ".";
      var r = { year: +typed[1], month: +typed[2], day: +typed[3], hour: +typed[4],
                minute: +typed[5], second: +(typed[6] || 0) };
      var instant = instantOf(r, site);
      if (instant === null) {
        return "This time does not exist in " + site + ": the clocks go forward over it.";
      }
      var first = asUTC({ year: 1, month: 1, day: 1, hour: 0, minute: 0 });
      var last = asUTC({ year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59 });
      if (instant < first || instant > last) return "";  // the server says why
      var there = reading(instant, mine);
      var time = pad(there.hour) + ":" + pad(there.minute);
      var day = dayOf(there) === dayOf(r) ? "" : " on " + dayOf(there);
      return "= " + time + day + " in your zone, " + mine;
    } catch (error) {
      return "";  // a zone this browser does not know: no note rather than a wrong one
    }
  }

  // Show (or hide) the note beside one publish-time field, tied to it for screen readers.
  function showZoneNote(input) {
    var id = input.id + "-zone";
    var note = document.getElementById(id);
    var text = zoneNote(input);
    if (!note && text) {
      note = document.createElement("p");
      note.id = id;
      note.className = "field-hint zone-note";
      input.insertAdjacentElement("afterend", note);
      var described = (input.getAttribute("aria-describedby") || "").split(" ");
      if (described.indexOf(id) === -1) described.push(id);
      input.setAttribute("aria-describedby", described.join(" ").trim());
    }
    if (!note) return;
    note.textContent = text;
    note.hidden = !text;
  }

  function zoneNotes(root) {
    root.querySelectorAll("input[data-site-zone]").forEach(showZoneNote);
  }

  ["input", "change"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var input = event.target;
      if (input.matches && input.matches("input[data-site-zone]")) showZoneNote(input);
    });
  });

  // Unsaved changes --------------------------------------------------------------------------

  var PREFIX = "fieldnotes:unsaved:";
  // uid: a new post's identity stays the page's own, never one restored from another page.
  var SKIP = { csrf_token: true, post_id: true, uid: true, action: true, image: true };
  var dirty = false;
  var key = null;
  var storeTimer = null;

  function storage() {
    try {
      return window.localStorage;
    } catch (error) {
      return null;  // storage turned off: leaving still asks first
    }
  }

  function fieldsOf(target) {
    var fields = {};
    target.querySelectorAll("input[name], textarea[name]").forEach(function (input) {
      if (SKIP[input.name] || input.type === "file" || input.type === "submit") return;
      if (input.type === "checkbox") fields[input.name] = input.checked;
      else if (input.type === "radio") {
        if (input.checked) fields[input.name] = input.value;
      } else if (target.querySelectorAll('[name="' + input.name + '"]').length > 1) {
        // A repeated field (one box per author) keeps every value, in order.
        (fields[input.name] = fields[input.name] || []).push(input.value);
      } else fields[input.name] = input.value;
    });
    return fields;
  }

  // The fields an editor types or picks: hidden ones (the lock version...) do not count.
  function sameText(kept, target) {
    var now = fieldsOf(target);
    return Object.keys(kept).every(function (name) {
      var input = target.querySelector('[name="' + name + '"]');
      return (input && input.type === "hidden") ||
          JSON.stringify(now[name]) === JSON.stringify(kept[name]);
    });
  }

  function keep() {
    var box = storage();
    var target = form();
    if (!box || !target || !dirty || !key) return;
    try {
      box.setItem(PREFIX + key, JSON.stringify({ at: new Date().toISOString(),
                                                  fields: fieldsOf(target) }));
    } catch (error) {
      // Full or refused: the text is still on the page, and leaving asks first.
    }
  }

  function keepSoon() {
    window.clearTimeout(storeTimer);
    storeTimer = window.setTimeout(keep, 500);
  }

  function forget(name) {
    var box = storage();
    if (box && name) box.removeItem(PREFIX + name);
  }

  function forgetAll() {
    window.clearTimeout(storeTimer);
    var box = storage();
    if (!box) return;
    Object.keys(box).forEach(function (name) {
      if (name.indexOf(PREFIX) === 0) box.removeItem(name);
    });
  }

  function kept(name) {
    var box = storage();
    var raw = box && name ? box.getItem(PREFIX + name) : null;
    if (!raw) return null;
    try {
      var entry = JSON.parse(raw);
      return entry && entry.fields ? entry : null;
    } catch (error) {
      return null;
    }
  }

  function restore(entry, target) {
    Object.keys(entry.fields).forEach(function (name) {
      var value = entry.fields[name];
      target.querySelectorAll('[name="' + name + '"]').forEach(function (input, index) {
        if (Array.isArray(value)) input.value = value[index] || "";
        else if (input.type === "checkbox") input.checked = !!value;
        else if (input.type === "radio") input.checked = input.value === value;
        else input.value = value;
        // Counters, the preview and the address hint follow, as if typed.
        input.dispatchEvent(new Event("input", { bubbles: true }));
        input.dispatchEvent(new Event("change", { bubbles: true }));
      });
    });
    dirty = true;
  }

  // On opening the editor: offer back what this browser kept of unsaved changes.
  function offer(target) {
    var box = document.getElementById("draft-offer");
    var entry = kept(key);
    if (!box || !entry) return;
    if (sameText(entry.fields, target)) {
      forget(key);
      return;
    }
    var when = new Date(entry.at);
    document.getElementById("draft-offer-text").textContent =
        "You have unsaved changes from " + when.toLocaleString() + ", kept in this browser.";
    box.hidden = false;
    document.getElementById("draft-restore").addEventListener("click", function () {
      restore(entry, target);
      box.hidden = true;
      keep();
      status("Your unsaved changes are back in the form. They are not saved yet.", false);
      var first = target.querySelector("#title");
      if (first) first.focus();
    });
    document.getElementById("draft-discard").addEventListener("click", function () {
      forget(key);
      box.hidden = true;
      status("Your unsaved changes were discarded.", false);
    });
  }

  // Take the state of a freshly shown editor: saved, refused (still unsaved), or just opened.
  function settle(opening) {
    var target = form();
    if (!target) return;
    var before = key;
    key = target.getAttribute("data-draft-key");
    var outcome = target.getAttribute("data-outcome");
    target.querySelectorAll("[data-count-for]").forEach(recount);
    zoneNotes(target);
    if (outcome === "saved") {
      dirty = false;
      forget(before);
      forget(key);
    } else if (outcome) {
      dirty = true;  // the text on the page was refused: it is not stored yet
      if (before && before !== key) forget(before);
      keep();
    } else if (opening) {
      offer(target);
    }
    var shown = document.getElementById("save-status");
    if (shown && shown.getAttribute("role") === "alert" && shown.textContent.trim()) {
      shown.focus();
    } else if (!opening && shown && shown.textContent.trim()) {
      // A live region swapped in whole may not be spoken: say it again in place.
      var html = shown.innerHTML;
      shown.innerHTML = "";
      window.setTimeout(function () { shown.innerHTML = html; }, 50);
    }
  }

  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!input.closest || !input.closest("#post-form")) return;
    countSoon(input);
    if (event.isTrusted) {
      dirty = true;
      keepSoon();
    }
  });

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!input.closest || !input.closest("#post-form") || !event.isTrusted) return;
    if (input.type === "file") return;  // a chosen file cannot be kept or restored
    dirty = true;
    keepSoon();
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.detail.target && event.detail.target.id === "post-editor") settle(false);
  });

  // Without htmx the Save buttons post the form as a page: leaving that way is saving. (htmx
  // takes over the submit first and cancels it, so an htmx save is not counted here.)
  var submitting = false;
  var loggingOut = false;
  document.addEventListener("submit", function (event) {
    if (event.target.id === "post-form" && !event.defaultPrevented) submitting = true;
    // Logging out from an authoring page leaves no unsaved text behind in this browser
    // (the page still asks first if this one has some).
    if (event.target.classList && event.target.classList.contains("logout-form")) {
      loggingOut = true;
      forgetAll();
    }
  });

  window.addEventListener("beforeunload", function (event) {
    if (!dirty || submitting) return;
    if (!loggingOut) keep();
    event.preventDefault();
    event.returnValue = "";  // older browsers show the prompt only when this is set
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { settle(true); });
  } else {
    settle(true);
  }
})();

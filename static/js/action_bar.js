// The editor's action bar. "Preview" posts the form to a new tab as a plain form would (its
// formaction and formtarget), not through htmx, which would swap the answer into the editor.
// Its main button says what pressing it does with the date typed:
// "Schedule" for a time still to come in the site's zone, else "Publish" (or "Update" on a
// live post). The server decides the same way and asks before anything reaches readers, so
// this only keeps the label honest while the date is typed.
(function () {
  "use strict";

  function pad(number) {
    return (number < 10 ? "0" : "") + number;
  }

  // Now, as the site's clocks read it: "YYYY-MM-DDTHH:MM", comparable with the field's value.
  function nowIn(zone) {
    try {
      var parts = {};
      new Intl.DateTimeFormat("en-US", {
        timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit",
        hour: "2-digit", minute: "2-digit"
      }).formatToParts(new Date()).forEach(function (part) { parts[part.type] = part.value; });
      return parts.year + "-" + parts.month + "-" + parts.day + "T" +
          pad(Number(parts.hour) % 24) + ":" + parts.minute;
    } catch (error) {
      return null;
    }
  }

  function relabel() {
    var button = document.getElementById("publish-button");
    var field = document.getElementById("published_at");
    if (!button || !field) return;
    var now = nowIn(field.getAttribute("data-site-zone") || "UTC");
    var value = field.value.trim().slice(0, 16);
    var later = !!now && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) && value > now;
    button.value = later ? "schedule" : button.getAttribute("data-now-action");
    button.textContent = later ? button.getAttribute("data-later-label") :
        button.getAttribute("data-now-label");
  }

  // Caught on the way down, before htmx's own listener on the form takes the submission.
  document.addEventListener("submit", function (event) {
    var button = event.submitter;
    if (button && button.id === "preview-button") event.stopImmediatePropagation();
  }, true);

  ["input", "change"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      if (event.target && event.target.id === "published_at") relabel();
    });
  });
  document.addEventListener("htmx:afterSettle", relabel);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", relabel);
  } else {
    relabel();
  }
})();

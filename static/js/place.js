// Back after "read more": the back/forward cache brings the page back as it was. Where the
// browser loads it afresh instead, this puts back the list the reader had (kept in
// sessionStorage per address when they left), the card they opened where it was.
(function () {
  "use strict";
  var KEY = "fieldnotes-place";
  var opened = -1;

  function saved() {
    try {
      var all = JSON.parse(sessionStorage.getItem(KEY));
      return Array.isArray(all) ? all : [];
    } catch (e) {
      return [];
    }
  }
  function here() {
    return location.pathname + location.search;
  }
  function items() {
    return document.querySelectorAll("#post-list > li");
  }
  function links(root) {
    var found = root.querySelectorAll("#post-list .card-title a");
    return " " + [].map.call(found, (a) => a.getAttribute("href")).join(" ");
  }

  // Only an address with ?page= can hold more cards than a fresh load of it shows.
  function save() {
    var section = document.getElementById("all-posts");
    if (!section || !/[?&]page=/.test(location.search)) return;
    var cards = items();
    var card = opened;
    for (var i = 0; card < 0 && i < cards.length; i++) {
      if (cards[i].getBoundingClientRect().bottom > 0) card = i;
    }
    var all = saved().filter((p) => p && p.url !== here());
    all.push({
      url: here(),
      html: section.outerHTML,
      card: card,
      top: cards[card] ? cards[card].getBoundingClientRect().top : 0,
    });
    // A few addresses are enough for Back; fewer when the tab's storage is full.
    for (var keep = 5; keep > 0; keep--) {
      try {
        sessionStorage.setItem(KEY, JSON.stringify(all.slice(-keep)));
        history.scrollRestoration = "manual";
        return;
      } catch (e) {}
    }
  }

  // Only when the cards this load brought end the saved list: otherwise posts came or went
  // meanwhile, and the fresh page (with its link to newer posts) is the truth.
  function restore() {
    var section = document.getElementById("all-posts");
    var place = saved().filter((p) => p && p.url === here())[0];
    if (!section || !place) return;
    var parsed = document.createElement("template");
    parsed.innerHTML = String(place.html);
    var kept = parsed.content.getElementById("all-posts");
    var fresh = links(section);
    if (!kept || fresh === " " || !links(kept).endsWith(fresh)) return section.scrollIntoView();
    section.replaceWith(kept);
    var card = items()[place.card];
    if (!card) return;
    scrollTo(0, card.getBoundingClientRect().top + scrollY - place.top);
    card.querySelector(".card-title a").focus({ preventScroll: true });
  }

  document.addEventListener("click", (event) => {
    var card = event.target.closest("#post-list > li");
    opened = card ? [].indexOf.call(items(), card) : -1;
  });
  addEventListener("pageshow", () => (opened = -1));
  addEventListener("pagehide", save);
  // Back to an earlier read more's address from another page loads it afresh too.
  document.addEventListener("htmx:beforeHistorySave", save);

  var entry = performance.getEntriesByType("navigation")[0];
  if (entry && entry.type === "back_forward") restore();
})();

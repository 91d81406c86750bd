// Live updates: the server sends a "change" event (server-sent events)
// with the store's write generation; when it differs from the page's, the
// page's content (#live) is fetched again and swapped in place, without a
// reload. The page works without this script: every table is in the HTML.
(function () {
  "use strict";
  // The stream is beside the pages: this script is static/live.js
  // under the dashboard's root, whatever path that root has.
  var events = new URL("../events", document.currentScript.src).href;
  var live = document.getElementById("live");
  if (!live || !window.EventSource || !window.fetch) return;
  var state = document.getElementById("live-state");
  var updated = document.getElementById("updated");
  var busy = false, again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.text(); })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, "text/html");
        var next = doc.getElementById("live");
        if (next) {
          live.replaceWith(next);
          live = next;
        }
        var t = doc.getElementById("updated");
        if (t && updated) { updated.textContent = t.textContent; updated.setAttribute("datetime", t.getAttribute("datetime")); }
        if (state) state.textContent = "Updated";
      })
      .catch(function () { if (state) state.textContent = "Could not update; last updated"; })
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  var es = new EventSource(events);
  es.addEventListener("change", function (e) {
    if (e.data !== live.getAttribute("data-tx")) refresh();
  });
  es.onerror = function () { if (state) state.textContent = "Reconnecting; last updated"; };
  es.onopen = function () { if (state) state.textContent = "Updated"; };
})();

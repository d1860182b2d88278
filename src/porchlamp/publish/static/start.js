// Where to start: filter the good first issues by ecosystem and language. The filter lives in the
// address (#ecosystem=...&language=...), checked against the choices that exist.
(function () {
  "use strict";
  var table = document.getElementById("start"), form = document.getElementById("start-controls");
  if (!table || !form) { return; }
  var eco = document.getElementById("start-eco"), lang = document.getElementById("start-lang");
  var count = document.getElementById("start-count");
  function has(select, v) { return Array.prototype.some.call(select.options, function (o) { return o.value === v; }); }
  function fromAddress() {
    var q = new URLSearchParams(location.hash.slice(1));
    var e = q.get("ecosystem") || "", l = q.get("language") || "";
    if (eco) { eco.value = has(eco, e) ? e : ""; }
    lang.value = has(lang, l) ? l : "";
  }
  function apply() {
    var shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) {
      var ok = (!eco || !eco.value || tr.getAttribute("data-eco") === eco.value) && (!lang.value || tr.getAttribute("data-lang") === lang.value);
      tr.hidden = !ok;
      if (ok) { shown++; }
    });
    count.textContent = shown.toLocaleString("en-US") + (shown === 1 ? " issue." : " issues.");
  }
  function remember() {
    var q = new URLSearchParams();
    if (eco && eco.value) { q.set("ecosystem", eco.value); }
    if (lang.value) { q.set("language", lang.value); }
    history.pushState(null, "", q.toString() ? "#" + q.toString() : location.pathname + location.search);
  }
  form.hidden = false;
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  [eco, lang].filter(Boolean).forEach(function (s) { s.addEventListener("change", function () { remember(); apply(); }); });
  window.addEventListener("popstate", function () { fromAddress(); apply(); });
  window.addEventListener("hashchange", function () { fromAddress(); apply(); });
  fromAddress();
  apply();
  document.documentElement.setAttribute("data-ready", "1");
}());

// Rankings: switch goal, filter and sort instantly from data/v1/rankings.json.
// Builds rows with textContent only: nothing from the data is ever parsed as HTML.
(function () {
  "use strict";
  var script = document.currentScript;
  var root = (script && script.getAttribute("data-root")) || "";
  var table = document.getElementById("rankings");
  var form = document.getElementById("controls");
  if (!table || !form || !window.fetch) { return; }
  var PAGE = 50;
  var state = { profile: table.getAttribute("data-profile") || "default", eco: table.getAttribute("data-ecosystem") || "",
                lang: "", q: "", key: "rank", dir: 1, page: 1 };
  var index = null, col = {};
  var $ = function (id) { return document.getElementById(id); };

  function fmtPct(x) { return x === null || x === undefined ? "–" : Math.round(x * 100) + "%"; }
  function fmtHours(h) {
    if (h === null || h === undefined) { return "–"; }
    if (h < 1) { return Math.round(h * 60) + " min"; }
    if (h < 48) { return Math.round(h) + " h"; }
    return (h / 24).toFixed(1) + " days";
  }
  function fmtDelta(d) { return d === null || d === undefined ? "–" : (d > 0 ? "+" + d : String(d)); }
  function val(row, key) {
    if (key === "rank" || key === "score" || key === "tier" || key === "delta") { return row[col[state.profile + "." + key]]; }
    return row[col[key]];
  }
  // The same path segment as the publisher's slug(): letters, digits, _ and - stay, so do dots
  // after the first byte; any other UTF-8 byte becomes ~xx.
  function slug(text) {
    var bytes = new TextEncoder().encode(text), out = "";
    for (var i = 0; i < bytes.length; i++) {
      var b = bytes[i];
      var keep = (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 95 || b === 45 || (b === 46 && i > 0);
      out += keep ? String.fromCharCode(b) : "~" + (b < 16 ? "0" : "") + b.toString(16);
    }
    return out || "_";
  }
  function href(repo) {
    var cut = repo.indexOf("/");
    return root + "projects/" + slug(repo.slice(0, cut)) + "/" + slug(repo.slice(cut + 1)) + ".html";
  }
  function cell(tr, text, cls) {
    var td = document.createElement("td");
    td.textContent = text;
    if (cls) { td.className = cls; }
    tr.appendChild(td);
    return td;
  }
  function rows() {
    var q = state.q.toLowerCase();
    var out = index.rows.filter(function (r) {
      return (!state.eco || r[col.ecosystem] === state.eco) && (!state.lang || r[col.language] === state.lang) &&
             (!q || r[col.repo].toLowerCase().indexOf(q) !== -1) && val(r, "rank") !== null;
    });
    var key = state.key, dir = state.dir;
    out.sort(function (a, b) {
      var x = val(a, key), y = val(b, key);
      if (x === y) { return val(a, "rank") - val(b, "rank"); }
      if (x === null || x === undefined) { return 1; }
      if (y === null || y === undefined) { return -1; }
      return (x < y ? -1 : 1) * dir;
    });
    return out;
  }
  function render() {
    var list = rows();
    var pages = Math.max(1, Math.ceil(list.length / PAGE));
    if (state.page > pages) { state.page = pages; }
    var body = document.createElement("tbody");
    list.slice((state.page - 1) * PAGE, state.page * PAGE).forEach(function (r) {
      var tr = document.createElement("tr");
      cell(tr, String(val(r, "rank")));
      var td = cell(tr, "");
      var a = document.createElement("a");
      a.href = href(r[col.repo]);
      a.textContent = r[col.repo];
      td.appendChild(a);
      var tier = val(r, "tier") || "";
      var t = cell(tr, "");
      var span = document.createElement("span");
      span.className = "tier tier-" + tier.replace(" (capped)", "-capped").toLowerCase();
      span.textContent = tier;
      t.appendChild(span);
      cell(tr, val(r, "score") === null ? "–" : Number(val(r, "score")).toFixed(1));
      cell(tr, fmtPct(r[col.answered_share]));
      cell(tr, fmtHours(r[col.median_hours]));
      cell(tr, r[col.ecosystem] || "");
      cell(tr, r[col.stars] === null ? "–" : Number(r[col.stars]).toLocaleString("en"));
      cell(tr, fmtDelta(val(r, "delta")), "delta");
      body.appendChild(tr);
    });
    table.replaceChild(body, table.tBodies[0]);
    var labels = {};
    Array.prototype.forEach.call($("profile").options, function (o) { labels[o.value] = o.textContent; });
    table.caption.textContent = labels[state.profile] + " ranking" + (state.eco ? ", " + state.eco + " projects" : "") +
      ": " + list.length + " projects" + (pages > 1 ? ", page " + state.page + " of " + pages : "");
    table.setAttribute("data-profile", state.profile);
    var pager = document.querySelector("nav.pager");
    if (pager) {
      while (pager.firstChild) { pager.removeChild(pager.firstChild); }
      [["← previous", state.page - 1], ["next →", state.page + 1]].forEach(function (b, i) {
        var btn = document.createElement("button");
        btn.type = "button";
        btn.textContent = b[0];
        btn.disabled = b[1] < 1 || b[1] > pages;
        btn.addEventListener("click", function () { state.page = b[1]; render(); });
        pager.appendChild(btn);
        if (i === 0) { var s = document.createElement("span"); s.textContent = " page " + state.page + " of " + pages + " "; pager.appendChild(s); }
      });
    }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.setAttribute("aria-sort", th.getAttribute("data-key") === state.key ? (state.dir > 0 ? "ascending" : "descending") : "none");
    });
    var h = "profile=" + encodeURIComponent(state.profile) + (state.eco ? "&ecosystem=" + encodeURIComponent(state.eco) : "");
    if (window.history && history.replaceState) { history.replaceState(null, "", "#" + h); }
  }
  function bind() {
    form.hidden = false;
    var views = document.querySelector("nav.views");
    if (views) { views.hidden = true; }
    $("profile").addEventListener("change", function (e) { state.profile = e.target.value; state.page = 1; render(); });
    $("ecosystem").addEventListener("change", function (e) { state.eco = e.target.value; state.page = 1; render(); });
    $("language").addEventListener("change", function (e) { state.lang = e.target.value; state.page = 1; render(); });
    $("search").addEventListener("input", function (e) { state.q = e.target.value; state.page = 1; render(); });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      var key = th.getAttribute("data-key");
      var btn = document.createElement("button");
      btn.type = "button";
      btn.textContent = th.textContent;
      btn.title = th.title || ("Sort by " + th.textContent);
      th.textContent = "";
      th.appendChild(btn);
      btn.addEventListener("click", function () {
        state.dir = state.key === key ? -state.dir : (key === "rank" || key === "repo" || key === "tier" || key === "ecosystem" || key === "median_hours" ? 1 : -1);
        state.key = key;
        render();
      });
    });
  }
  var hash = new URLSearchParams(window.location.hash.slice(1));
  if (hash.get("profile")) { state.profile = hash.get("profile"); }
  if (hash.get("ecosystem") !== null && hash.get("ecosystem") !== undefined && hash.has("ecosystem")) { state.eco = hash.get("ecosystem"); }
  fetch(root + "data/v1/rankings.json").then(function (r) { return r.json(); }).then(function (data) {
    index = data;
    data.columns.forEach(function (c, i) { col[c] = i; });
    bind();
    $("profile").value = state.profile;
    $("ecosystem").value = state.eco;
    render();
    document.documentElement.setAttribute("data-ready", "1");
  });
}());

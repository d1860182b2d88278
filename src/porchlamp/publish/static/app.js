// Rankings: switch goal, filter, search every project and sort instantly, from the ranking split
// into parts (data/v1/rankings/parts.json says how many; each part is 1,000 rows of one goal in rank
// order), and data/v1/search.json, fetched on the first search. The view lives in the address
// (#goal=...), checked against what exists, so a link, a reload and Back all show the same table.
// The page as served is the view it names, so nothing is fetched on arrival; a view in rank order
// fetches only the parts down to its page, and a search or another order fetches every part of its
// goal (megabytes past 10,000 ranked projects), saying so while it waits.
// Rows are built with textContent only: nothing from the data is ever parsed as HTML.
(function () {
  "use strict";
  var script = document.currentScript;
  var root = (script && script.getAttribute("data-root")) || "";
  var table = document.getElementById("rankings");
  var form = document.getElementById("controls");
  if (!table || !form || !window.fetch || !window.Promise) { return; }
  var PAGE = 50;
  var KEYS = ["rank", "repo", "tier", "score", "answered_share", "trend", "median_hours", "outside_prs", "ecosystem", "stars", "delta"];
  var ASCENDING = { rank: 1, repo: 1, tier: 1, ecosystem: 1, median_hours: 1 };
  // manifest: parts.json; goals: goal -> {rows: its parts from the first without a gap, joined,
  // next: the part those rows end before, arrived: parts that came early, asking: parts on their way}.
  var state = null, manifest = null, col = {}, goals = {}, asked = 0, fresh = false, all = null, allCol = {};
  var $ = function (id) { return document.getElementById(id); };
  // The view this file is, as served: an address without a view names it. Read once, before any
  // redraw changes the table, so that Back to the bare address shows this view again.
  var served = { profile: table.getAttribute("data-profile") || "default", eco: table.getAttribute("data-ecosystem") || "",
                 page: table.getAttribute("data-page") || "1" };

  function fmtHours(h) {
    if (h === null || h === undefined) { return "none"; }
    if (h < 1) { return Math.round(h * 60) + " min"; }
    if (h < 48) { return Math.round(h) + " h"; }
    return (h / 24).toFixed(1) + " days";
  }
  function fmtDelta(d) { return d === null || d === undefined ? "–" : (d > 0 ? "+" + d : String(d)); }
  // A menu's values; the forge menu is there only when ranked projects live on two forges or more.
  function options(id) { return $(id) ? Array.prototype.map.call($(id).options, function (o) { return o.value; }) : [""]; }
  function val(row, key) { return row[col[key]]; }
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
  function link(repo) {
    var a = document.createElement("a");
    a.href = href(repo);
    a.textContent = repo;
    return a;
  }
  function cell(tr, text, cls, label) {
    var td = document.createElement("td");
    td.textContent = text;
    if (cls) { td.className = cls; }
    if (label) { td.setAttribute("data-label", label); }
    tr.appendChild(td);
    return td;
  }

  // -- the view in the address, validated --------------------------------------------------------
  function fromAddress() {
    var h = new URLSearchParams(window.location.hash.slice(1));
    var named = window.location.hash.length > 1;  // else the address names the view as served
    var s = { profile: h.get("goal") || h.get("profile") || "", eco: h.get("ecosystem") || "", lang: h.get("language") || "",
              forge: h.get("forge") || "", q: h.get("q") || "", key: h.get("sort") || "rank", dir: h.get("dir") === "desc" ? -1 : 1,
              page: parseInt(h.get("page") || (named ? "1" : served.page), 10) };
    if (options("profile").indexOf(s.profile) === -1) { s.profile = served.profile; }
    // An address that names no ecosystem shows the page's own (an ecosystem's ranking page serves
    // it; "All" is an ecosystem= with nothing after it); one it does not know shows all.
    if (!h.has("ecosystem")) { s.eco = served.eco; } else if (options("ecosystem").indexOf(s.eco) === -1) { s.eco = ""; }
    if (options("language").indexOf(s.lang) === -1) { s.lang = ""; }
    if (options("forge").indexOf(s.forge) === -1) { s.forge = ""; }
    if (KEYS.indexOf(s.key) === -1) { s.key = "rank"; s.dir = 1; }
    if (!(s.page >= 1)) { s.page = 1; }
    s.q = s.q.slice(0, 100);
    return s;
  }
  function toAddress() {
    var p = new URLSearchParams();
    p.set("goal", state.profile);
    if (state.eco || served.eco) { p.set("ecosystem", state.eco); }  // "All" said, on a page that serves one
    if (state.lang) { p.set("language", state.lang); }
    if (state.forge) { p.set("forge", state.forge); }
    if (state.q) { p.set("q", state.q); }
    if (state.key !== "rank" || state.dir !== 1) { p.set("sort", state.key); p.set("dir", state.dir > 0 ? "asc" : "desc"); }
    if (state.page > 1) { p.set("page", String(state.page)); }
    return "#" + p.toString();
  }
  function remember(push) {
    var target = toAddress();
    if (target === window.location.hash) { return; }
    if (push) { history.pushState(null, "", target); } else { history.replaceState(null, "", target); }
  }
  function showControls() {
    $("profile").value = state.profile;
    $("ecosystem").value = state.eco;
    $("language").value = state.lang;
    if ($("forge")) { $("forge").value = state.forge; }
    $("sort").value = state.key;
    if ($("search").value !== state.q) { $("search").value = state.q; }
  }

  // -- the table -------------------------------------------------------------------------------
  function getJSON(path) {
    // After a part from another snapshot than the manifest (the site was published again while
    // this page was open), every file is asked of the server again, not taken from the cache.
    return fetch(root + "data/v1/" + path, fresh ? { cache: "no-cache" } : {}).then(function (r) {
      if (!r.ok) { throw new Error(path + ": HTTP " + r.status); }
      return r.json();
    });
  }
  function partPath(goal, n) { return manifest.files.replace("{profile}", slug(goal)).replace("{part}", String(n)); }
  function goal(name) { return goals[name] || (goals[name] = { rows: [], next: 1, arrived: {}, asking: {} }); }
  function complete(g) { return g.next > manifest.parts; }
  // A view in rank order from the top needs only the rows down to its page; any other needs them all.
  function prefix() { return !state.q && state.key === "rank" && state.dir === 1; }
  function matches(r) {
    return (!state.eco || r[col.ecosystem] === state.eco) && (!state.lang || r[col.language] === state.lang) &&
      (!state.forge || r[col.forge] === state.forge);
  }
  // In rank order: how many of the view's rows down to its page there are.
  function wantedRows() { var c = counted(); return Math.min(Math.min(state.page, pagesOf(c)) * PAGE, c); }
  function enough(g) {
    if (complete(g)) { return true; }
    if (!prefix()) { return false; }
    var n = 0, want = wantedRows();
    for (var i = 0; i < g.rows.length && n < want; i++) { if (matches(g.rows[i])) { n++; } }
    return n >= want;
  }
  // How many ranked projects the view's ecosystem, language and forge hold, from the manifest's counts.
  function counted() {
    var n = 0;
    manifest.counts.rows.forEach(function (c) {
      if ((!state.eco || c[0] === state.eco) && (!state.lang || c[1] === state.lang) && (!state.forge || c[3] === state.forge)) {
        n += c[2];
      }
    });
    return n;
  }
  function pagesOf(n) { return Math.max(1, Math.ceil(n / PAGE)); }
  // A view no ranked project is in says so in its table, and which one filter to drop shows some:
  // "No ranked Rust project on GitLab. Drop the forge: 12; the language: 3."
  function nothing() {
    var names = { eco: "the ecosystem", lang: "the language", forge: "the forge" };
    var forge = state.forge ? $("forge").options[$("forge").selectedIndex].textContent : "";
    var said = "No ranked " + (state.lang || state.eco ? (state.lang || state.eco) + " " : "") + "project" +
      (forge ? " on " + forge : "") + (state.q ? " matches “" + state.q + "”" : "") + ". ";
    var wider = [];
    ["forge", "lang", "eco"].forEach(function (key) {
      if (!state[key]) { return; }
      var was = state[key];
      state[key] = "";
      var n = counted();
      state[key] = was;
      if (n) { wider.push(names[key] + " (" + n + " ranked)"); }
    });
    var tr = document.createElement("tr");
    var td = cell(tr, said + (wider.length ? "Drop " + wider.join(", or ") + " to see some." :
      state.q ? "Projects that are not ranked are listed below the table." : "Choose All in a menu to see more."), "empty");
    td.colSpan = table.tHead.rows[0].cells.length;
    return tr;
  }
  function ask(name, g, n) {
    if (g.asking[n]) { return g.asking[n]; }
    g.asking[n] = getJSON(partPath(name, n)).then(function (data) {
      if (data.as_of !== manifest.as_of) { throw { stale: true }; }
      g.arrived[n] = data.rows;
      while (g.arrived[g.next]) {
        Array.prototype.push.apply(g.rows, g.arrived[g.next]);
        delete g.arrived[g.next];
        g.next++;
      }
    }, function (err) {
      delete g.asking[n];  // a later view asks again
      throw err;
    });
    return g.asking[n];
  }
  function failed(err) {
    $("count").textContent = "The ranking could not be loaded (" + (err && err.message ? err.message : "network error") +
      "); the table shows the page as served. Reload to try again.";
    table.removeAttribute("aria-busy");
  }
  // Fetch what the view needs, then `then` (dropped if another view was asked for meanwhile).
  function gather(then) {
    var ticket = ++asked, again = false;
    function step() {
      if (ticket !== asked) { return; }
      if (!manifest) { start(); return; }
      var name = state.profile, g = goal(name);
      if (enough(g)) { table.removeAttribute("aria-busy"); then(); return; }
      table.setAttribute("aria-busy", "true");
      var wanted = [];
      if (prefix()) {
        // The parts that likely hold the rows, asked at once: a filter that keeps one project in
        // ten needs about ten times the rows (all the parts, for one that keeps a few). If they
        // fall short, the next part is asked until they do not.
        var scaled = wantedRows() * manifest.ranked / Math.max(1, counted());
        var upto = Math.min(manifest.parts, Math.max(g.next, Math.ceil(scaled / manifest.part_rows)));
        for (var k = g.next; k <= upto; k++) { wanted.push(k); }
      } else {
        $("count").textContent = "Loading all " + manifest.ranked.toLocaleString("en") + " ranked projects" +
          (state.q ? " to search them…" : " to sort them…");
        for (var n = g.next; n <= manifest.parts; n++) { wanted.push(n); }
      }
      Promise.all(wanted.map(function (n) { return ask(name, g, n); })).then(step, retry);
    }
    function retry(err) {
      if (ticket !== asked) { return; }  // the newer view meets the same error itself
      if (err && err.stale && !again) {  // drop what came from the older snapshot and start over, once
        again = fresh = true;
        manifest = null;
        goals = {};
        start();
        return;
      }
      failed(err && err.stale ? new Error("the site changed twice while loading") : err);
    }
    function start() {
      if (manifest) { step(); return; }
      getJSON("rankings/parts.json").then(function (data) {
        if (!manifest) {
          manifest = data;
          col = {};
          data.columns.forEach(function (c, i) { col[c] = i; });
        }
        step();
      }, retry);
    }
    start();
  }
  function show(focusTable) { gather(function () { render(focusTable); }); }
  function rows() {
    var q = state.q.toLowerCase();
    var out = goal(state.profile).rows.filter(function (r) {
      return matches(r) && (!q || r[col.repo].toLowerCase().indexOf(q) !== -1);
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
  function render(focusTable) {
    var list = rows();
    // Without a search the count is the manifest's: in rank order only the parts down to this page are here.
    var total = state.q ? list.length : counted();
    var pages = pagesOf(total);
    if (state.page > pages) { state.page = pages; }
    var body = document.createElement("tbody");
    list.slice((state.page - 1) * PAGE, state.page * PAGE).forEach(function (r) {
      var tr = document.createElement("tr");
      cell(tr, String(val(r, "rank")), "c-rank", "Rank");
      var td = cell(tr, "", "c-project");
      td.appendChild(link(r[col.repo]));
      (r[col.flags] || []).forEach(function (f) {
        var flag = document.createElement("span");
        flag.className = "flag";
        flag.textContent = f;
        td.appendChild(document.createTextNode(" "));
        td.appendChild(flag);
      });
      var tier = val(r, "tier") || "";
      var t = cell(tr, "", "c-tier", "Tier");
      var span = document.createElement("span");
      span.className = "tier tier-" + tier.replace(" (capped)", "-capped").toLowerCase();
      span.textContent = tier;
      t.appendChild(span);
      cell(tr, val(r, "score") === null ? "–" : Number(val(r, "score")).toFixed(1), "c-score", "Score");
      cell(tr, r[col.outside_prs] ? r[col.answered] + " of " + r[col.outside_prs] : "–", "c-answered", "Answered");
      cell(tr, col.trend_words !== undefined ? r[col.trend_words] : "–", "c-trend", "30 days");
      // As the served pages word it; from files without the words, from the rounded hours.
      cell(tr, col.median_words !== undefined ? r[col.median_words] : fmtHours(r[col.median_hours]), "c-median", "Median first response");
      cell(tr, Number(r[col.outside_prs]).toLocaleString("en"), "c-prs", "PRs");
      cell(tr, r[col.ecosystem] || "", "c-eco", "Ecosystem");
      cell(tr, r[col.stars] === null ? "–" : Number(r[col.stars]).toLocaleString("en"), "c-stars", "Stars");
      cell(tr, fmtDelta(val(r, "delta")), "c-delta", "Δ rank");
      body.appendChild(tr);
    });
    if (!list.length) { body.appendChild(nothing()); }
    table.replaceChild(body, table.tBodies[0]);
    table.classList.toggle("no-delta", state.profile === "default");
    var labels = {};
    Array.prototype.forEach.call($("profile").options, function (o) { labels[o.value] = o.textContent; });
    var forge = state.forge ? $("forge").options[$("forge").selectedIndex].textContent : "";
    table.caption.textContent = labels[state.profile] + " ranking" + (state.eco ? ", " + state.eco + " projects" : "") +
      (state.lang ? ", " + state.lang : "") + (forge ? ", on " + forge : "") + ": " + total + " project" + (total === 1 ? "" : "s") +
      (pages > 1 ? ", page " + state.page + " of " + pages : "");
    table.setAttribute("data-profile", state.profile);
    $("count").textContent = total + " ranked project" + (total === 1 ? "" : "s") + (state.q ? (total === 1 ? " matches “" : " match “") + state.q + "”" : "") +
      (pages > 1 ? "; page " + state.page + " of " + pages : "");
    pager(pages);
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.setAttribute("aria-sort", th.getAttribute("data-key") === state.key ? (state.dir > 0 ? "ascending" : "descending") : "none");
    });
    notRanked();
    if (focusTable) {
      table.caption.focus({ preventScroll: true });
      table.scrollIntoView({ block: "start" });
    }
    ready();
  }
  function pager(pages) {
    var nav = document.querySelector("nav.pager");
    if (!nav) { return; }
    while (nav.firstChild) { nav.removeChild(nav.firstChild); }
    [["← previous", state.page - 1], ["next →", state.page + 1]].forEach(function (b, i) {
      var btn = document.createElement("button");
      btn.type = "button";
      btn.textContent = b[0];
      btn.disabled = b[1] < 1 || b[1] > pages;
      btn.addEventListener("click", function () { state.page = b[1]; remember(true); show(true); });
      nav.appendChild(btn);
      if (i === 0) { var s = document.createElement("span"); s.textContent = " page " + state.page + " of " + pages + " "; nav.appendChild(s); }
    });
  }

  // -- search over every project, ranked or not ---------------------------------------------------
  function notRanked() {
    var box = $("also"), list = $("also-list");
    var q = state.q.toLowerCase();
    if (!q) { box.hidden = true; return; }
    if (!all) {
      fetch(root + "data/v1/search.json").then(function (r) { return r.json(); }).then(function (data) {
        all = data;
        data.columns.forEach(function (c, i) { allCol[c] = i; });
        notRanked();
      });
      return;
    }
    var found = all.rows.filter(function (r) { return r[allCol.status] !== "ranked" && r[allCol.repo].toLowerCase().indexOf(q) !== -1; });
    while (list.firstChild) { list.removeChild(list.firstChild); }
    found.slice(0, 50).forEach(function (r) {
      var li = document.createElement("li");
      li.appendChild(link(r[allCol.repo]));
      var words = document.createElement("span");
      words.className = "status";
      words.textContent = " — " + r[allCol.words] + (r[allCol.counts] ? " (" + r[allCol.counts] + ")" : "");
      li.appendChild(words);
      if (r[allCol.review_at]) {  // a mirror: its project, judged in the same snapshot
        var home = document.createElement("span");
        home.className = "status";
        home.appendChild(document.createTextNode("; review happens at "));
        home.appendChild(link(r[allCol.review_at]));
        li.appendChild(home);
      }
      list.appendChild(li);
    });
    if (found.length > 50) {
      var more = document.createElement("li");
      more.textContent = (found.length - 50) + " more: narrow the search";
      list.appendChild(more);
    }
    box.hidden = found.length === 0;
    var ranked = rows().length;
    $("count").textContent = ranked + " ranked project" + (ranked === 1 ? "" : "s") + " and " + found.length +
      " not ranked match “" + state.q + "”";
  }

  // -- wiring ----------------------------------------------------------------------------------
  function bind() {
    form.hidden = false;
    var views = document.querySelector("nav.views");
    if (views) { views.hidden = true; }
    $("profile").addEventListener("change", function (e) { state.profile = e.target.value; state.page = 1; remember(true); show(); });
    $("ecosystem").addEventListener("change", function (e) { state.eco = e.target.value; state.page = 1; remember(true); show(); });
    $("language").addEventListener("change", function (e) { state.lang = e.target.value; state.page = 1; remember(true); show(); });
    if ($("forge")) {
      $("forge").addEventListener("change", function (e) { state.forge = e.target.value; state.page = 1; remember(true); show(); });
    }
    $("search").addEventListener("input", function (e) { state.q = e.target.value.slice(0, 100); state.page = 1; remember(false); show(); });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    // The columns' order as a menu too: where the table is shown as cards its headings are hidden.
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      var o = document.createElement("option");
      o.value = th.getAttribute("data-key");
      o.textContent = th.textContent;
      $("sort").appendChild(o);
    });
    $("sort").addEventListener("change", function (e) {
      state.key = e.target.value;
      state.dir = ASCENDING[state.key] ? 1 : -1;
      state.page = 1;
      remember(true);
      show();
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      var key = th.getAttribute("data-key");
      var btn = document.createElement("button");
      btn.type = "button";
      btn.textContent = th.textContent;
      btn.title = th.title || ("Sort by " + th.textContent);
      th.textContent = "";
      th.appendChild(btn);
      btn.addEventListener("click", function () {
        state.dir = state.key === key ? -state.dir : (ASCENDING[key] ? 1 : -1);
        state.key = key;
        remember(true);
        show();
      });
    });
    // Back, Forward and edits of the address show the view they name; so does a page the browser
    // brings back from its cache or whose menus it refilled from history (pageshow comes after both).
    window.addEventListener("popstate", follow);
    window.addEventListener("hashchange", follow);
    window.addEventListener("pageshow", function (e) {
      if (e.persisted || $("profile").value !== state.profile || $("ecosystem").value !== state.eco ||
          $("language").value !== state.lang || ($("forge") && $("forge").value !== state.forge)) { follow(); }
    });
  }
  function follow() { state = fromAddress(); showControls(); show(); }
  function ready() { document.documentElement.setAttribute("data-ready", "1"); }
  bind();
  state = fromAddress();
  showControls();
  if (window.location.hash.length > 1) {  // an address that names a view, perhaps not this page's
    gather(function () { render(); remember(false); });
  } else {
    pager(parseInt(table.getAttribute("data-pages") || "1", 10));
    ready();
  }
}());

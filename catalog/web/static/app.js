// Catalog list: search as you type. The server renders the same page without JavaScript;
// this only swaps the rows in place. Every value goes into the page through textContent.
(function () {
  "use strict";

  function cell(row, text, cls) {
    var td = document.createElement("td");
    if (cls) { td.className = cls; }
    if (text !== undefined) { td.textContent = text; }
    row.appendChild(td);
    return td;
  }

  function span(parent, cls, text) {
    var s = document.createElement("span");
    s.className = cls;
    s.textContent = text;
    parent.appendChild(s);
  }

  function short(text, n) { return text.length <= n ? text : text.slice(0, n - 1) + "\u2026"; }

  function renderRows(body, items) {
    body.textContent = "";
    if (!items.length) {
      var tr = document.createElement("tr");
      var td = cell(tr, "Nothing matches.", "empty");
      td.colSpan = 7;
      body.appendChild(tr);
      return;
    }
    items.forEach(function (e) {
      var tr = document.createElement("tr");
      var first = cell(tr);
      var a = document.createElement("a");
      a.className = "name";
      a.href = "/f/" + encodeURIComponent(e.id);
      a.textContent = e.name;
      first.appendChild(a);
      var id = document.createElement("div");
      id.className = "id";
      id.textContent = e.id;
      first.appendChild(id);
      cell(tr, short(e.request, 140), "req");
      span(cell(tr), "pill", e.pattern);
      cell(tr, String(e.agents), "n");
      var doms = cell(tr);
      e.domains.forEach(function (d) { span(doms, "tag", d); });
      span(cell(tr), e.valid ? "ok" : "bad", e.valid ? "valid" : "invalid");
      cell(tr, e.created.slice(0, 10), "when");
      body.appendChild(tr);
    });
  }

  function renderPager(pager, params, data) {
    var pages = Math.max(1, Math.ceil(data.total / data.limit));
    var current = Math.floor(data.offset / data.limit) + 1;
    pager.textContent = "";
    function link(page, text, rel) {
      var p = new URLSearchParams(params);
      p.set("page", String(page));
      var a = document.createElement("a");
      a.href = "/?" + p.toString();
      a.rel = rel;
      a.textContent = text;
      pager.appendChild(a);
    }
    if (current > 1) { link(current - 1, "\u2190 newer", "prev"); }
    var s = document.createElement("span");
    s.textContent = "page " + current + " of " + pages.toLocaleString("en");
    pager.appendChild(s);
    if (current < pages) { link(current + 1, "older \u2192", "next"); }
  }

  function init() {
    var form = document.getElementById("filters");
    var body = document.querySelector("#results tbody");
    if (!form || !body) { return; }
    var count = document.getElementById("count");
    var pager = document.getElementById("pager");
    var timer = null, seq = 0;
    function params() {
      var p = new URLSearchParams();
      new FormData(form).forEach(function (v, k) { if (String(v).trim()) { p.set(k, String(v)); } });
      return p;
    }
    function refresh() {
      var p = params(), mine = ++seq;
      fetch("/api/frameworks?" + p.toString(), { headers: { Accept: "application/json" } })
        .then(function (r) { return r.json(); })
        .then(function (data) {
          if (mine !== seq) { return; }  // a newer keystroke already asked again
          if (data.error) { count.textContent = data.error.message; return; }
          renderRows(body, data.items);
          count.textContent = data.total.toLocaleString("en") + " framework" +
            (data.total === 1 ? "" : "s") + (p.get("q") ? ", best match first" : ", newest first");
          renderPager(pager, p, data);
          history.replaceState(null, "", p.toString() ? "/?" + p.toString() : "/");
          document.body.dataset.results = String(data.items.length);
        });
    }
    function soon() { clearTimeout(timer); timer = setTimeout(refresh, 160); }
    form.addEventListener("input", soon);
    form.addEventListener("change", soon);
    form.addEventListener("submit", function (evt) { evt.preventDefault(); refresh(); });
    document.addEventListener("keydown", function (evt) {
      var q = document.getElementById("q");
      if (evt.key === "/" && document.activeElement !== q) { evt.preventDefault(); q.focus(); }
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
}());

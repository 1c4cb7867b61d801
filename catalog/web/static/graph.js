// Topology view of one framework: a small, self-contained SVG renderer (no library, no CDN).
// Layered layout (longest path over the graph minus its back edges, barycentre ordering),
// draggable nodes, hover tracing and click-to-agent. Every label is set with textContent.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var KINDS = ["delegate", "handoff", "sequence", "route", "parallel", "loop"];
  var NODE_H = 46, GAP_Y = 74, GAP_X = 28, PAD = 24;

  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    if (parent) { parent.appendChild(node); }
    return node;
  }

  // Edges that close a cycle (found by depth-first search from the entry) are drawn as
  // arcs and ignored for layering, so loops do not stretch the picture downwards.
  function backEdges(ids, edges, entry) {
    var out = {}, state = {}, back = {};
    ids.forEach(function (id) { out[id] = []; });
    edges.forEach(function (e, i) { out[e.source].push([e.target, i]); });
    function visit(id) {
      state[id] = 1;
      out[id].forEach(function (pair) {
        if (state[pair[0]] === 1) { back[pair[1]] = true; }
        else if (!state[pair[0]]) { visit(pair[0]); }
      });
      state[id] = 2;
    }
    [entry].concat(ids).forEach(function (id) { if (id in out && !state[id]) { visit(id); } });
    return back;
  }

  function layering(ids, edges, back) {
    var layer = {}, changed = true, rounds = 0;
    ids.forEach(function (id) { layer[id] = 0; });
    while (changed && rounds++ < ids.length + 1) {
      changed = false;
      edges.forEach(function (e, i) {
        if (!back[i] && e.source !== e.target && layer[e.target] < layer[e.source] + 1) {
          layer[e.target] = layer[e.source] + 1; changed = true;
        }
      });
    }
    var rows = [];
    ids.forEach(function (id) { (rows[layer[id]] = rows[layer[id]] || []).push(id); });
    return rows.filter(function (r) { return r && r.length; });
  }

  function orderRows(rows, edges) {
    var pos = {};
    rows.forEach(function (r) { r.forEach(function (id, i) { pos[id] = i; }); });
    for (var pass = 0; pass < 4; pass++) {
      rows.forEach(function (row, k) {
        if (k === 0) { return; }
        var bary = {};
        row.forEach(function (id) {
          var ps = edges.filter(function (e) { return e.target === id && e.source !== id; })
            .map(function (e) { return pos[e.source]; });
          bary[id] = ps.length ? ps.reduce(function (a, b) { return a + b; }, 0) / ps.length : pos[id];
        });
        row.sort(function (a, b) { return bary[a] - bary[b]; });
        row.forEach(function (id, i) { pos[id] = i; });
      });
    }
    return rows;
  }

  function layout(graph) {
    var ids = graph.nodes.map(function (n) { return n.id; });
    var back = backEdges(ids, graph.edges, graph.entry);
    var rows = orderRows(layering(ids, graph.edges, back), graph.edges);
    var width = {}, at = {}, maxRow = 0;
    graph.nodes.forEach(function (n) {
      width[n.id] = Math.max(n.id.length * 7.6, n.role.length * 6.6) + 28;
    });
    rows.forEach(function (row) {
      var w = row.reduce(function (s, id) { return s + width[id]; }, 0) + GAP_X * (row.length - 1);
      maxRow = Math.max(maxRow, w);
    });
    rows.forEach(function (row, k) {
      var w = row.reduce(function (s, id) { return s + width[id]; }, 0) + GAP_X * (row.length - 1);
      var x = PAD + (maxRow - w) / 2;
      row.forEach(function (id) {
        at[id] = { x: x, y: PAD + k * (NODE_H + GAP_Y), w: width[id] };
        x += width[id] + GAP_X;
      });
    });
    return { at: at, back: back, w: maxRow + 2 * PAD, h: rows.length * (NODE_H + GAP_Y) - GAP_Y + 2 * PAD };
  }

  function edgePath(a, b, isBack, bend) {
    var ax = a.x + a.w / 2, bx = b.x + b.w / 2;
    if (a === b) {  // a self-loop: a small ear on the right
      var rx = a.x + a.w, ry = a.y + NODE_H / 2;
      return "M" + rx + "," + (ry - 8) + " C" + (rx + 46) + "," + (ry - 30) + " " + (rx + 46) + "," + (ry + 30) + " " + rx + "," + (ry + 8);
    }
    if (isBack || Math.abs(a.y - b.y) < 1) {  // up or sideways: arc around the side
      var side = (a.y === b.y) ? 0 : 60 + bend * 18;
      var sx = Math.max(a.x + a.w, b.x + b.w) + side;
      var y1 = a.y + NODE_H / 2, y2 = b.y + NODE_H / 2;
      if (a.y === b.y) {
        var top = a.y - 26 - bend * 12;
        return "M" + ax + "," + a.y + " C" + ax + "," + top + " " + bx + "," + top + " " + bx + "," + b.y;
      }
      return "M" + (a.x + a.w) + "," + y1 + " C" + sx + "," + y1 + " " + sx + "," + y2 + " " + (b.x + b.w) + "," + y2;
    }
    var down = b.y > a.y;
    var y1s = down ? a.y + NODE_H : a.y, y2s = down ? b.y : b.y + NODE_H;
    var mid = (y1s + y2s) / 2, off = bend * 14;
    return "M" + (ax + off) + "," + y1s + " C" + (ax + off) + "," + mid + " " + (bx + off) + "," + mid + " " + (bx + off) + "," + y2s;
  }

  function draw(container, graph) {
    var L = layout(graph);
    var w = Math.max(L.w, 320), h = Math.max(L.h, 120);
    // Up to 1.4 times the natural size where the panel has room; CSS shrinks it on
    // narrow screens (max-width), so small teams are not blown up to poster size.
    var zoom = Math.min(1.4, Math.max(1, (container.clientWidth - 8) / w));
    var svg = el("svg", { viewBox: "0 0 " + w + " " + h, width: w * zoom, height: h * zoom,
      role: "img", "class": "topology" }, null);
    var defs = el("defs", {}, svg);
    KINDS.forEach(function (k) {
      var m = el("marker", { id: "arrow-" + k, viewBox: "0 0 10 10", refX: 9, refY: 5,
        markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", "class": "arrowhead kind-" + k }, m);
    });
    var edgeLayer = el("g", { "class": "edges" }, svg);
    var nodeLayer = el("g", { "class": "nodes" }, svg);
    var pairs = {}, edgeEls = [];
    graph.edges.forEach(function (e, i) {
      var key = [e.source, e.target].sort().join("\u0000");
      var bend = pairs[key] = (pairs[key] === undefined ? 0 : pairs[key] + 1);
      var path = el("path", { "class": "edge kind-" + e.kind, "marker-end": "url(#arrow-" + e.kind + ")" }, edgeLayer);
      var title = el("title", {}, path);
      title.textContent = e.source + " \u2192 " + e.target + " (" + e.kind + ")";
      path.dataset.source = e.source; path.dataset.target = e.target;
      edgeEls.push({ el: path, e: e, back: !!L.back[i], bend: bend });
    });
    function route() {
      edgeEls.forEach(function (x) {
        x.el.setAttribute("d", edgePath(L.at[x.e.source], L.at[x.e.target], x.back, x.bend));
      });
    }
    graph.nodes.forEach(function (n) {
      var p = L.at[n.id];
      var g = el("g", { "class": "node" + (n.id === graph.entry ? " entry" : ""),
        transform: "translate(" + p.x + "," + p.y + ")", tabindex: 0 }, nodeLayer);
      g.dataset.id = n.id;
      el("rect", { width: p.w, height: NODE_H, rx: 9, ry: 9 }, g);
      var name = el("text", { x: p.w / 2, y: 20, "class": "name" }, g);
      name.textContent = n.id;
      var role = el("text", { x: p.w / 2, y: 36, "class": "role" }, g);
      role.textContent = n.role;
      interact(svg, g, n.id, L, route, edgeEls);
    });
    route();
    container.textContent = "";
    container.appendChild(svg);
  }

  function svgPoint(svg, evt) {
    var pt = svg.createSVGPoint();
    pt.x = evt.clientX; pt.y = evt.clientY;
    return pt.matrixTransform(svg.getScreenCTM().inverse());
  }

  function interact(svg, g, id, L, route, edgeEls) {
    var start = null, moved = false;
    g.addEventListener("pointerdown", function (evt) {
      var p = svgPoint(svg, evt);
      start = { x: p.x - L.at[id].x, y: p.y - L.at[id].y };
      moved = false;
      g.setPointerCapture(evt.pointerId);
      g.classList.add("dragging");
    });
    g.addEventListener("pointermove", function (evt) {
      if (!start) { return; }
      var p = svgPoint(svg, evt);
      L.at[id].x = p.x - start.x; L.at[id].y = p.y - start.y; moved = true;
      g.setAttribute("transform", "translate(" + L.at[id].x + "," + L.at[id].y + ")");
      route();
    });
    g.addEventListener("pointerup", function () {
      start = null; g.classList.remove("dragging");
      if (!moved) {
        var card = document.getElementById("agent-" + id);
        if (card) { card.scrollIntoView({ behavior: "smooth", block: "center" }); card.classList.add("flash"); setTimeout(function () { card.classList.remove("flash"); }, 1200); }
      }
    });
    function focus(on) {
      svg.classList.toggle("focus", on);
      g.classList.toggle("hl", on);
      edgeEls.forEach(function (x) {
        var touches = x.e.source === id || x.e.target === id;
        x.el.classList.toggle("hl", on && touches);
        if (touches) {
          var other = x.e.source === id ? x.e.target : x.e.source;
          var n = svg.querySelector('g.node[data-id="' + CSS.escape(other) + '"]');
          if (n) { n.classList.toggle("near", on); }
        }
      });
    }
    g.addEventListener("mouseenter", function () { focus(true); });
    g.addEventListener("mouseleave", function () { focus(false); });
    g.addEventListener("focus", function () { focus(true); });
    g.addEventListener("blur", function () { focus(false); });
  }

  function init() {
    var box = document.getElementById("graph");
    if (!box) { return; }
    fetch(box.dataset.src, { headers: { Accept: "application/json" } })
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
      .then(function (data) { draw(box, data.entry.graph); box.dataset.ready = "1"; })
      .catch(function (err) { box.textContent = "The graph could not be drawn: " + err.message; });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
}());

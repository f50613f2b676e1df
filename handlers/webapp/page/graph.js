"use strict";
// The "Links" mind map: facts that appear in relations as labelled boxes,
// relations as arrows between them. The layout is deterministic: nodes start
// on a circle and a fixed number of spring steps spread them out.

const SVG_NS = "http://www.w3.org/2000/svg";
const GRAPH_W = 360; // viewBox width; the height follows the layout
const PAD = 6;
const LINE_H = 15;
const FONT = '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

function svgEl(tag, attrs, text) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

// "a long value" cut to at most n characters, ending with "…".
function shorten(text, n) {
  const chars = Array.from(String(text));
  return chars.length <= n ? chars.join("") : chars.slice(0, n - 1).join("") + "…";
}

function relationName(words, relation) {
  return words.relations[relation] || String(relation).replace(/_/g, " ");
}

let measureCtx = null;

// The width of a text line in px (the canvas measures with the page's font; a guess without it).
function textWidth(text, size) {
  measureCtx = measureCtx || document.createElement("canvas").getContext("2d");
  if (!measureCtx) return Array.from(text).length * size * 0.6;
  measureCtx.font = `${size}px ${FONT}`;
  return measureCtx.measureText(text).width;
}

// One or two lines for a node: long labels break at the space nearest the middle.
function labelLines(label) {
  if (textWidth(label, 12) <= 100) return [label];
  const mid = label.length / 2;
  let best = -1;
  for (let i = 0; i < label.length; i++) {
    if (label[i] === " " && (best < 0 || Math.abs(i - mid) < Math.abs(best - mid))) best = i;
  }
  return best < 0 ? [label] : [label.slice(0, best), label.slice(best + 1)];
}

// Spread the nodes inside the viewBox width: repulsion between near pairs, springs
// along the edges, a pull to the middle that keeps separate groups together.
function springLayout(nodes, edges) {
  const n = nodes.length;
  const k = 80;
  nodes.forEach((v, i) => {
    const angle = (2 * Math.PI * i) / n - Math.PI / 2;
    v.x = 80 * Math.cos(angle);
    v.y = (30 + n * 16) * Math.sin(angle);
  });
  let heat = 40;
  for (let step = 0; step < 300; step++) {
    for (const v of nodes) { v.dx = -v.x * 0.05; v.dy = -v.y * 0.05; }
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const a = nodes[i], b = nodes[j];
        const dx = a.x - b.x, dy = a.y - b.y;
        const d = Math.max(1, Math.hypot(dx, dy));
        if (d > 3 * k) continue; // far apart: no push, so separate groups stay close
        const f = (k * k) / d;
        a.dx += (dx / d) * f; a.dy += (dy / d) * f;
        b.dx -= (dx / d) * f; b.dy -= (dy / d) * f;
      }
    }
    for (const e of edges) {
      const dx = e.a.x - e.b.x, dy = e.a.y - e.b.y;
      const d = Math.max(1, Math.hypot(dx, dy));
      const f = (d * d) / k;
      e.a.dx -= (dx / d) * f; e.a.dy -= (dy / d) * f;
      e.b.dx += (dx / d) * f; e.b.dy += (dy / d) * f;
    }
    for (const v of nodes) {
      const d = Math.max(1, Math.hypot(v.dx, v.dy));
      v.x += (v.dx / d) * Math.min(d, heat);
      v.y += (v.dy / d) * Math.min(d, heat);
      const room = GRAPH_W / 2 - PAD - v.w / 2; // stay inside the width
      v.x = Math.max(-room, Math.min(room, v.x));
    }
    heat = Math.max(0.5, heat * 0.985);
  }
}

// Push apart boxes that overlap and arrows too short for their label, mostly vertically
// (the height is free), then move everything into the viewBox. Returns the height.
function untangle(nodes, edges) {
  for (let round = 0; round < 80; round++) {
    let moved = false;
    const push = (a, b, by) => {
      const down = a.y < b.y || (a.y === b.y && a.x <= b.x);
      a.y += down ? -by : by;
      b.y += down ? by : -by;
      moved = true;
    };
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = nodes[i], b = nodes[j];
        const ox = (a.w + b.w) / 2 + 8 - Math.abs(a.x - b.x);
        const oy = (a.h + b.h) / 2 + 10 - Math.abs(a.y - b.y);
        if (ox > 0 && oy > 0) push(a, b, oy / 2 + 0.5);
      }
    }
    for (const e of edges) {
      const gapY = Math.abs(e.a.y - e.b.y) - (e.a.h + e.b.h) / 2;
      const gapX = Math.abs(e.a.x - e.b.x) - (e.a.w + e.b.w) / 2;
      if (gapY < 30 && gapX < e.labelW + 16) push(e.a, e.b, (30 - gapY) / 2 + 0.5);
    }
    if (!moved) break;
  }
  const minY = Math.min(...nodes.map((v) => v.y - v.h / 2));
  for (const v of nodes) {
    v.x += GRAPH_W / 2;
    v.y += PAD - minY;
  }
  return Math.max(...nodes.map((v) => v.y + v.h / 2)) + PAD;
}

// Where the line from the box center towards (dx, dy) leaves the box.
function boxEdge(v, dx, dy) {
  const t = Math.min(
    dx ? (v.w / 2 + 2) / Math.abs(dx) : Infinity,
    dy ? (v.h / 2 + 2) / Math.abs(dy) : Infinity);
  return [v.x + dx * t, v.y + dy * t];
}

// Returns {svg, list} for the relations between shown facts, or null when there are none.
function buildGraph(facts, relations, words) {
  const byId = new Map(facts.map((f) => [f.id, f]));
  const nodes = new Map();
  const edges = new Map(); // "a>b" -> edge; relations between the same pair share one arrow
  const node = (id) => {
    if (!nodes.has(id)) {
      const lines = labelLines(shorten(byId.get(id).value, 24));
      const w = 16 + Math.max(...lines.map((line) => textWidth(line, 12)));
      nodes.set(id, { id, lines, full: byId.get(id).value, w: Math.min(w, GRAPH_W - 2 * PAD), h: 10 + lines.length * LINE_H });
    }
    return nodes.get(id);
  };
  const lines = [];
  for (const r of relations) {
    if (!byId.has(r.source) || !byId.has(r.target) || r.source === r.target) continue;
    const name = relationName(words, r.relation);
    lines.push(`${byId.get(r.source).value} → ${name} → ${byId.get(r.target).value}`);
    const key = `${r.source}>${r.target}`;
    if (edges.has(key)) edges.get(key).names.push(name);
    else edges.set(key, { a: node(r.source), b: node(r.target), names: [name] });
  }
  if (!edges.size) return null;

  const list = [...nodes.values()];
  for (const e of edges.values()) e.labelW = textWidth(e.names.join(", "), 10);
  springLayout(list, [...edges.values()]);
  const height = Math.round(untangle(list, [...edges.values()]));

  const svg = svgEl("svg", {
    viewBox: `0 0 ${GRAPH_W} ${height}`, width: "100%", role: "img", "aria-label": words.links,
  });
  const defs = svgEl("defs");
  const marker = svgEl("marker", {
    id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 8, markerHeight: 8,
    markerUnits: "userSpaceOnUse", orient: "auto",
  });
  marker.append(svgEl("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow" }));
  defs.append(marker);
  svg.append(defs);

  const edgeLayer = svgEl("g");
  const labelLayer = svgEl("g");
  for (const [key, e] of edges) {
    let dx = e.b.x - e.a.x, dy = e.b.y - e.a.y;
    const d = Math.max(1, Math.hypot(dx, dy));
    dx /= d; dy /= d;
    // Two arrows between the same pair (both ways) sit side by side.
    const [from, to] = key.split(">");
    const off = edges.has(`${to}>${from}`) ? 5 : 0;
    const [x1, y1] = boxEdge(e.a, dx, dy);
    const [x2, y2] = boxEdge(e.b, -dx, -dy);
    const ox = -dy * off, oy = dx * off;
    edgeLayer.append(svgEl("line", {
      x1: x1 + ox, y1: y1 + oy, x2: x2 + ox, y2: y2 + oy, class: "edge", "marker-end": "url(#arrow)",
    }));
    labelLayer.append(svgEl("text", {
      x: (x1 + x2) / 2 + ox * 2.4, y: (y1 + y2) / 2 + oy * 2.4 + 3.5, class: "edge-label", "text-anchor": "middle",
    }, e.names.join(", ")));
  }
  const nodeLayer = svgEl("g");
  for (const v of list) {
    const g = svgEl("g", { class: "node" });
    g.append(svgEl("title", {}, v.full));
    g.append(svgEl("rect", { x: v.x - v.w / 2, y: v.y - v.h / 2, width: v.w, height: v.h, rx: 8 }));
    v.lines.forEach((line, i) => {
      const y = v.y + 4 + (i - (v.lines.length - 1) / 2) * LINE_H;
      g.append(svgEl("text", { x: v.x, y, "text-anchor": "middle" }, line));
    });
    nodeLayer.append(g);
  }
  svg.append(edgeLayer, nodeLayer, labelLayer);

  const ul = document.createElement("ul");
  ul.className = "relations";
  for (const line of lines) {
    const li = document.createElement("li");
    li.textContent = line;
    ul.append(li);
  }
  return { svg, list: ul };
}

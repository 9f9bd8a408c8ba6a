// cfg_view.js: draws the control-flow description that tistudio/studio/cfg.py builds from one
// pass's IR as SVG. Offloaded tasks, loops and ifs are nested boxes (each a <g> inside its
// parent's <g>, so the DOM nests as the IR does); straight-line blocks list their statements.
// Edges: fall-through between consecutive nodes, an if's true/false branches and their merge,
// each loop's back edge (left margin), break/continue edges (right margin, red).
// Long blocks show their first and last statements and a "… N more" line that expands them, so
// a 100-statement kernel stays readable. Plain ES module, no dependencies; it is bundled before
// pass_explorer.js (passes_view.explorer_esm), which calls drawCfg.

const SVG_NS = "http://www.w3.org/2000/svg";
const LINE_H = 14; // one statement
const CHAR_W = 6.6; // monospace 11px
const MAX_CHARS = 60; // longer statements end in "…" (the whole text is the tooltip)
const PAD = 8;
const GAP = 20; // between consecutive nodes: room for the fall-through arrow
const HEAD_H = 20; // a box's title line
const BACK = 18; // a loop's left margin, where its back edge runs
const EXIT = 16; // a loop's right margin, where break edges run
const LANE = 12; // below a loop's body, where its back edge runs
const HEAD_LINES = 8; // a long block shows this many statements first...
const TAIL_LINES = 3; // ...and this many last
const COLORS = {
  task: "#2f74d0",
  range: "#1a7f37",
  struct: "#8250df",
  while: "#bc4c00",
  if: "#9a6700",
  region: "#59636e",
};

function svg(tag, attrs, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

function textWidth(chars) {
  return Math.min(chars, MAX_CHARS) * CHAR_W;
}

// ---- measuring: sizes only, bottom up ------------------------------------------------------

function blockLines(block, opts) {
  const stmts = block.stmts;
  const key = String(stmts.length ? stmts[0].line : -1);
  if (stmts.length <= HEAD_LINES + TAIL_LINES + 1 || opts.expanded.has(key)) {
    return stmts.map((s) => ({ stmt: s }));
  }
  const hidden = stmts.length - HEAD_LINES - TAIL_LINES;
  return [
    ...stmts.slice(0, HEAD_LINES).map((s) => ({ stmt: s })),
    { more: hidden, key },
    ...stmts.slice(stmts.length - TAIL_LINES).map((s) => ({ stmt: s })),
  ];
}

function measureSeq(nodes, opts) {
  const items = nodes.map((n) => measure(n, opts));
  const w = Math.max(40, ...items.map((m) => m.w));
  const h = items.reduce((sum, m) => sum + m.h, 0) + GAP * Math.max(0, items.length - 1);
  return { items, w, h: items.length ? h : 0 };
}

function measure(node, opts) {
  if (node.kind === "block") {
    const lines = blockLines(node, opts);
    const chars = Math.max(8, ...node.stmts.map((s) => s.text.length));
    return { node, lines, w: textWidth(chars) + 2 * PAD, h: lines.length * LINE_H + PAD };
  }
  const head = textWidth(node.head.length + 8) + 2 * PAD;
  if (node.kind === "if") {
    const then = measureSeq(node.then, opts);
    const other = measureSeq(node.else, opts);
    const inner = then.w + GAP * 2 + Math.max(other.w, 24);
    const body = Math.max(then.h, other.h, LINE_H);
    return { node, then, other, w: Math.max(head, inner + 2 * PAD), h: HEAD_H + GAP + body + GAP + PAD };
  }
  if (node.kind === "task") {
    const parts = node.parts.map((p) => ({ label: p.label, seq: measureSeq(p.body, opts) }));
    const inner = Math.max(...parts.map((p) => p.seq.w));
    const h = parts.reduce((sum, p) => sum + p.seq.h + (p.label === "body" ? 0 : HEAD_H) + PAD, 0);
    return { node, parts, w: Math.max(head, inner + 2 * PAD), h: HEAD_H + h + PAD };
  }
  const seq = measureSeq(node.body, opts); // loop or region
  const margins = node.kind === "loop" ? BACK + EXIT : 2 * PAD;
  const lane = node.kind === "loop" ? LANE : 0;
  return { node, seq, w: Math.max(head + BACK, seq.w + margins + PAD), h: HEAD_H + PAD + Math.max(seq.h, LINE_H) + PAD + lane };
}

// ---- placing: absolute positions, top down; each node's <g> inside its parent's ------------

function edge(parent, points, cls, marker) {
  const d = points.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
  return svg("path", { d, class: "cfg-edge " + cls, fill: "none", "marker-end": `url(#${marker})` }, parent);
}

function label(parent, x, y, text, cls, anchor) {
  const node = svg("text", { x, y, class: cls, "text-anchor": anchor || "start" }, parent);
  node.textContent = text;
  return node;
}

// Whether control leaves a sequence at its end by break/continue/return (no fall-through).
function exits(m) {
  const last = m.items[m.items.length - 1];
  return Boolean(last && last.node.kind === "block" && last.node.exit);
}

function placeSeq(m, x, y, parent, ctx) {
  let top = y;
  let previous = null;
  for (const item of m.items) {
    const ix = x + (m.w - item.w) / 2;
    const anchors = place(item, ix, top, parent, ctx);
    if (previous) edge(parent, [previous, [anchors.top[0], anchors.top[1] - 1]], "cfg-fall", "cfg-arrow");
    previous = item.node.kind === "block" && item.node.exit ? null : anchors.bottom;
    top += item.h + GAP;
  }
  return { top: [x + m.w / 2, y], bottom: [x + m.w / 2, y + m.h], exits: exits(m) };
}

function box(g, m, x, y, color, dashed) {
  svg("rect", {
    x, y, width: m.w, height: m.h, rx: 6, class: "cfg-box", stroke: color, fill: color,
    "fill-opacity": 0.05, "stroke-dasharray": dashed ? "4 3" : "none",
  }, g);
}

function placeBlock(m, x, y, parent, ctx) {
  const block = m.node;
  const g = svg("g", { class: "cfg-node cfg-block", "data-kind": "block", "data-stmts": block.stmts.length }, parent);
  if (block.exit) g.setAttribute("data-exit", block.exit);
  svg("rect", { x, y, width: m.w, height: m.h, rx: 3, class: "cfg-block-rect" }, g);
  m.lines.forEach((line, i) => {
    const ty = y + PAD / 2 + (i + 0.78) * LINE_H;
    if (line.more !== undefined) {
      const more = label(g, x + PAD, ty, `… ${line.more} more statements (click)`, "cfg-more");
      more.dataset.key = line.key;
      return;
    }
    const text = line.stmt.text;
    const shown = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS - 1) + "…" : text;
    const hit = ctx.query && text.toLowerCase().includes(ctx.query);
    if (hit) svg("rect", { x: x + 2, y: ty - LINE_H + 3, width: m.w - 4, height: LINE_H, class: "cfg-hit" }, g);
    const node = label(g, x + PAD, ty, shown, "cfg-stmt" + (hit ? " hit" : ""));
    node.dataset.line = String(line.stmt.line);
    if (line.stmt.src !== null && line.stmt.src !== undefined) node.dataset.src = String(line.stmt.src);
    svg("title", {}, node).textContent = text;
  });
  if (block.exit && ctx.loops.length) ctx.loops[ctx.loops.length - 1].exits.push({ kind: block.exit, x: x + m.w, y: y + m.h - LINE_H / 2 });
  return { top: [x + m.w / 2, y], bottom: [x + m.w / 2, y + m.h] };
}

function placeIf(m, x, y, parent, ctx) {
  const g = svg("g", { class: "cfg-node cfg-if", "data-kind": "if" }, parent);
  box(g, m, x, y, COLORS.if, true);
  const cx = x + m.w / 2;
  label(g, x + PAD, y + 14, m.node.head, "cfg-head");
  const split = y + HEAD_H + GAP / 2;
  const bodyTop = y + HEAD_H + GAP;
  const bodyH = Math.max(m.then.h, m.other.h, LINE_H);
  const merge = bodyTop + bodyH + GAP / 2;
  const innerW = m.then.w + GAP * 2 + Math.max(m.other.w, 24);
  const left = x + (m.w - innerW) / 2;
  const thenG = svg("g", { class: "cfg-branch", "data-branch": "then" }, g);
  const elseG = svg("g", { class: "cfg-branch", "data-branch": "else" }, g);
  const t = m.then.items.length ? placeSeq(m.then, left, bodyTop, thenG, ctx) : null;
  const tx = left + m.then.w / 2;
  const ex = left + m.then.w + GAP * 2 + Math.max(m.other.w, 24) / 2;
  const e = m.other.items.length ? placeSeq(m.other, ex - m.other.w / 2, bodyTop, elseG, ctx) : null;
  svg("path", { d: `M${cx},${y + HEAD_H - 2} L${cx},${split}`, class: "cfg-edge cfg-branch-edge", fill: "none" }, g);
  edge(g, [[cx, split], [tx, split], [tx, t ? bodyTop - 1 : merge - 4]], "cfg-branch-edge cfg-true", "cfg-arrow");
  if (e) edge(g, [[cx, split], [ex, split], [ex, bodyTop - 1]], "cfg-branch-edge cfg-false", "cfg-arrow");
  else edge(g, [[cx, split], [ex, split], [ex, merge], [cx + 4, merge]], "cfg-branch-edge cfg-false", "cfg-arrow");
  label(g, tx + 4, split + 11, "T", "cfg-tag");
  label(g, ex + 4, split + 11, "F", "cfg-tag");
  for (const [bx, seq] of [[tx, t], [ex, e]]) {
    if (seq && !seq.exits) edge(g, [seq.bottom, [bx, merge], [cx, merge]], "cfg-merge-edge", "cfg-none");
  }
  svg("circle", { cx, cy: merge, r: 3, class: "cfg-merge" }, g);
  svg("path", { d: `M${cx},${merge} L${cx},${y + m.h}`, class: "cfg-edge", fill: "none" }, g);
  return { top: [cx, y], bottom: [cx, y + m.h] };
}

function placeLoop(m, x, y, parent, ctx) {
  const node = m.node;
  const kind = node.kind === "loop" ? node.loop : "region";
  const g = svg("g", { class: `cfg-node cfg-${node.kind}`, "data-kind": node.kind }, parent);
  if (node.kind === "loop") g.setAttribute("data-loop", kind);
  box(g, m, x, y, COLORS[kind], false);
  const headX = node.kind === "loop" ? x + BACK : x + PAD;
  label(g, headX, y + 14, `${kind === "region" ? "" : kind + " · "}${node.head}`, "cfg-head").style.fill = COLORS[kind];
  const loop = { exits: [] };
  if (node.kind === "loop") ctx.loops.push(loop);
  const left = node.kind === "loop" ? x + BACK : x + PAD;
  const inner = placeSeq(m.seq, left, y + HEAD_H + PAD, g, ctx);
  if (node.kind !== "loop") return { top: [x + m.w / 2, y], bottom: [x + m.w / 2, y + m.h] };
  ctx.loops.pop();
  const color = COLORS[kind];
  const laneY = y + m.h - LANE / 2 - 2;
  const from = inner.exits ? [] : [[inner.bottom[0], inner.bottom[1] + 1], [inner.bottom[0], laneY]];
  const back = edge(g, [...from, [inner.bottom[0], laneY], [x + 7, laneY], [x + 7, y + HEAD_H / 2 - 3], [x + BACK - 3, y + HEAD_H / 2 - 3]], "cfg-back", "cfg-arrow-back");
  back.style.stroke = color;
  const rx = x + m.w - 7;
  for (const exit of loop.exits) {
    const target = exit.kind === "continue" ? [[rx, y + HEAD_H / 2 + 3], [x + m.w - 2 - EXIT, y + HEAD_H / 2 + 3]] : [[rx, y + m.h + GAP - 4]];
    edge(g, [[exit.x + 1, exit.y], [rx, exit.y], ...target], `cfg-exit cfg-${exit.kind}`, "cfg-arrow-exit");
  }
  return { top: [x + m.w / 2, y], bottom: [x + m.w / 2, y + m.h] };
}

function placeTask(m, x, y, parent, ctx) {
  const g = svg("g", { class: "cfg-node cfg-task", "data-kind": "task", "data-task": m.node.task }, parent);
  box(g, m, x, y, COLORS.task, false);
  g.lastChild.setAttribute("stroke-width", 2);
  label(g, x + PAD, y + 14, `task · ${m.node.head.replace(/^\$\d+\s*=\s*offloaded\s*/, "")}`, "cfg-head").style.fill = COLORS.task;
  let top = y + HEAD_H;
  for (const part of m.parts) {
    const pg = svg("g", { class: "cfg-part", "data-part": part.label }, g);
    if (part.label !== "body") {
      label(pg, x + PAD, top + 13, part.label, "cfg-tag");
      top += HEAD_H;
    }
    placeSeq(part.seq, x + (m.w - part.seq.w) / 2, top, pg, ctx);
    top += part.seq.h + PAD;
  }
  return { top: [x + m.w / 2, y], bottom: [x + m.w / 2, y + m.h] };
}

function place(m, x, y, parent, ctx) {
  const kind = m.node.kind;
  if (kind === "block") return placeBlock(m, x, y, parent, ctx);
  if (kind === "if") return placeIf(m, x, y, parent, ctx);
  if (kind === "task") return placeTask(m, x, y, parent, ctx);
  return placeLoop(m, x, y, parent, ctx);
}

function defs(root) {
  const d = svg("defs", {}, root);
  for (const [id, color] of [["cfg-arrow", "#8c959f"], ["cfg-arrow-back", "#1a7f37"], ["cfg-arrow-exit", "#cf222e"], ["cfg-none", "none"]]) {
    const marker = svg("marker", { id, viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, d);
    svg("path", { d: "M0,0 L8,4 L0,8 z", fill: color }, marker);
  }
}

// Draw `cfg` (cfg.py's cfg_of) into `container`. opts: {query, expanded: Set of block keys,
// onToggle(key)}. Returns the <svg>.
export function drawCfg(container, cfg, opts = {}) {
  const options = { expanded: opts.expanded || new Set(), query: (opts.query || "").toLowerCase() };
  const root = svg("svg", { class: "cfg-svg", "font-size": 11 });
  defs(root);
  const ctx = { loops: [], query: options.query };
  let y = PAD;
  let width = 0;
  for (const graph of cfg.graphs || []) {
    const g = svg("g", { class: "cfg-graph", "data-head": graph.head }, root);
    label(g, PAD, y + 12, graph.head, "cfg-title");
    const seq = measureSeq(graph.body, options);
    const at = placeSeq(seq, PAD, y + HEAD_H + GAP, g, ctx);
    svg("circle", { cx: at.top[0], cy: y + HEAD_H + 4, r: 4, class: "cfg-entry" }, g);
    if (seq.items.length) edge(g, [[at.top[0], y + HEAD_H + 8], [at.top[0], at.top[1] - 1]], "cfg-fall", "cfg-arrow");
    y += HEAD_H + GAP + seq.h + 2 * PAD;
    width = Math.max(width, seq.w + 2 * PAD, textWidth(graph.head.length) + 2 * PAD);
  }
  root.setAttribute("width", String(Math.ceil(width + EXIT)));
  root.setAttribute("height", String(Math.ceil(y)));
  root.addEventListener("click", (event) => {
    const more = event.target.closest(".cfg-more");
    if (more && opts.onToggle) opts.onToggle(more.dataset.key);
  });
  container.replaceChildren(root);
  return root;
}

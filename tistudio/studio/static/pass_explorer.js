// pass_explorer.js: the passes of one kernel instantiation, the IR after each, its diff with
// the pass before, the pass docstring, the Python source, and the final LLVM IR, assembly and
// WGSL. Clicking an IR line highlights the Python line it came from, and back.
// Lineage: a clicked Python line marks, in the pass list, the passes that created (+),
// rewrote (~) or deleted (−) its statements, and its lines in every pass's IR, the diff, the
// LLVM IR, the assembly and the WGSL (data.lineage, studio/lineage_view.py); a clicked statement (IR, diff,
// LLVM IR, assembly or WGSL line) shows its source line and the passes that created, rewrote and deleted
// it (each a link to that pass), and the same statement is marked wherever it shows.
// The bar hides passes that changed nothing and searches pass names and IR text (the list keeps
// the passes that match, with their count; the text shows the matches marked). The CFG tab
// draws the control-flow graph of the IR after the selected pass (drawCfg, cfg_view.js, which
// passes_view.explorer_esm puts before this file). With more than one instantiation of the
// kernel, each pass shows sparklines of its time and statement count across them.
// The Taichi IR tab shows Taichi 1.7.4's own IR after its pass of the same name (the model's
// `taichi`, studio/taichi_ir.py), once its button has asked Python to run Taichi.
// Keyboard: Up/Down or j/k move between (shown) passes, Home/End jump, 1-7 pick a tab.
// Plain ES module, no dependencies.

const TABS = [
  ["ir", "IR after pass"],
  ["diff", "Diff"],
  ["cfg", "CFG"],
  ["llvm", "LLVM IR"],
  ["asm", "Assembly"],
  ["wgsl", "WGSL"],
  ["taichi", "Taichi IR"],
];

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function codeLine(op, text, gutter, src) {
  const line = h("div", "ti-line" + (op === "+" ? " add" : op === "-" ? " del" : ""));
  line.dataset.op = op;
  line.append(h("span", "ti-gutter", gutter), h("span", "ti-op", op === " " ? "" : op));
  line.append(h("span", "ti-text", text));
  if (src !== null && src !== undefined) line.dataset.src = String(src);
  return line;
}

function passRow(pass, index, maxMs, maxStmts) {
  const row = h("div", "ti-pass" + (pass.changed ? "" : " unchanged"));
  row.dataset.index = String(index);
  row.title = `${pass.name}: ${pass.ms.toFixed(3)} ms, ${pass.stmts} statements`;
  row.append(h("span", "ti-pass-name", pass.name), h("span", "ti-pass-ms", `${pass.ms.toFixed(2)} ms`));
  const bars = row.appendChild(h("div", "ti-bars"));
  const ms = bars.appendChild(h("span", "ti-bar-ms"));
  ms.style.width = `${(70 * pass.ms) / maxMs}px`;
  const st = bars.appendChild(h("span", "ti-bar-stmts"));
  st.style.width = `${(70 * pass.stmts) / maxStmts}px`;
  const delta = bars.appendChild(h("span", "ti-delta"));
  delta.append(h("span", "a", pass.added ? `+${pass.added}` : ""), h("span", "r", pass.removed ? `−${pass.removed}` : ""));
  delta.append(h("span", "ti-muted", ` ${pass.stmts}`));
  return row;
}

// ---- hide unchanged, search, sparklines --------------------------------------------------

function isUnchanged(pass, index) {
  return !pass.changed || (index > 0 && pass.added === 0 && pass.removed === 0);
}

// How often `query` (lower case) occurs in the pass's name and in the IR after it.
function matchCount(pass, query) {
  if (!query) return 0;
  let count = pass.name.toLowerCase().includes(query) ? 1 : 0;
  for (const [op, text] of pass.diff) if (op !== "-" && text.toLowerCase().includes(query)) count += 1;
  return count;
}

// Which passes the list shows: all, less the unchanged ones, less those the search misses
// (the selected pass always stays, marked).
function shownPasses(passes, hide, query, selected) {
  return passes.map((pass, i) => {
    const hits = matchCount(pass, query);
    const hidden = (hide && isUnchanged(pass, i)) || (query !== "" && hits === 0);
    return { hits, shown: !hidden || i === selected, hidden };
  });
}

function sparkline(values, current, color, title) {
  const NS = "http://www.w3.org/2000/svg";
  const W = 44;
  const H = 12;
  const node = document.createElementNS(NS, "svg");
  node.setAttribute("class", "ti-spark");
  node.setAttribute("width", String(W));
  node.setAttribute("height", String(H));
  const known = values.filter((v) => v !== null);
  const lo = Math.min(...known);
  const hi = Math.max(...known);
  const at = (v, i) => [1 + ((W - 2) * i) / Math.max(1, values.length - 1), H - 2 - ((H - 4) * (v - lo)) / Math.max(1e-9, hi - lo)];
  const points = values.map((v, i) => (v === null ? null : at(v, i).map((c) => c.toFixed(1)).join(","))).filter(Boolean);
  const line = document.createElementNS(NS, "polyline");
  line.setAttribute("points", points.join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", color);
  node.appendChild(line);
  values.forEach((v, i) => {
    if (v === null) return;
    const [cx, cy] = at(v, i);
    const dot = document.createElementNS(NS, "circle");
    dot.setAttribute("cx", String(cx));
    dot.setAttribute("cy", String(cy));
    dot.setAttribute("r", i === current ? "2.4" : "1.2"); // the shown instantiation stands out
    dot.setAttribute("fill", color);
    node.appendChild(dot);
  });
  const tip = document.createElementNS(NS, "title");
  tip.textContent = title + values.map((v) => (v === null ? "–" : String(v))).join(", ");
  node.appendChild(tip);
  return node;
}

function addSparks(row, pass, sparks) {
  const series = sparks && sparks.count > 1 && sparks.passes[pass.key];
  if (!series) return;
  const box = row.appendChild(h("div", "ti-sparks"));
  box.append(sparkline(series.ms, sparks.current, "#2f74d0", `${pass.name} ms per instantiation: `));
  box.append(sparkline(series.stmts, sparks.current, "#8c959f", `${pass.name} statements per instantiation: `));
}

function paintPassList(list, passes, selected, view) {
  list.replaceChildren();
  const maxMs = Math.max(1e-6, ...passes.map((p) => p.ms));
  const maxStmts = Math.max(1, ...passes.map((p) => p.stmts));
  const shown = view ? view.shown : passes.map(() => ({ hits: 0, shown: true, hidden: false }));
  passes.forEach((pass, i) => {
    const row = list.appendChild(passRow(pass, i, maxMs, maxStmts));
    if (view) addSparks(row, pass, view.sparks);
    if (!shown[i].shown) row.style.display = "none";
    if (shown[i].hidden) row.classList.add("ti-filtered");
    if (shown[i].hits) row.querySelector(".ti-pass-name").append(h("span", "ti-hits", String(shown[i].hits)));
  });
  const row = list.children[selected];
  if (row) {
    row.classList.add("selected");
    row.scrollIntoView({ block: "nearest" });
  }
}

function paintCode(pre, data, pass, tab, noWgsl, taichi) {
  pre.replaceChildren();
  pre.dataset.tab = tab;
  if (tab === "taichi") {
    taichi();
    return;
  }
  if (tab === "ir" || tab === "diff") {
    let n = 0;
    for (const [op, text, src] of pass.diff) {
      if (tab === "ir" && op === "-") continue;
      const shownOp = tab === "ir" ? " " : op;
      pre.append(codeLine(shownOp, text, op === "-" ? "" : String(++n), src));
    }
    return;
  }
  const text = data[tab];
  if (text === null || text === undefined) {
    pre.append(h("div", "ti-message", tab === "wgsl" ? noWgsl : "not available"));
    return;
  }
  text.split("\n").forEach((line, i) => pre.append(codeLine(" ", line, String(i + 1), null)));
}

// Taichi's IR after the pass matching the selected one (or the Taichi pass picked from the
// list of Taichi's passes below it), the button that runs Taichi, or why there is none.
function paintTaichi(pre, model, state, pass) {
  const taichi = model.get("taichi");
  const ours = taichi.instance === model.get("instance");
  if (!ours || taichi.state === "running") {
    const running = ours && taichi.state === "running";
    pre.append(h("div", "ti-message", running ? "running Taichi 1.7.4…" : "Taichi's own print_ir of this kernel, pass by pass, next to ours."));
    if (running) return;
    const run = pre.appendChild(h("button", "ti-taichi-run", "Run Taichi 1.7.4 on this kernel"));
    run.onclick = () => model.send({ kind: "run_taichi", instance: model.get("instance") });
    return;
  }
  if (taichi.error) {
    pre.append(h("div", "ti-message", taichi.error));
    return;
  }
  const picked = state.taichiPick && state.taichiPick.pass === state.index ? state.taichiPick.at : null;
  const at = picked !== null ? picked : taichi.match[state.index];
  if (at === null || at === undefined) {
    pre.append(h("div", "ti-message", `Taichi has no pass named like “${pass.name}”: pick one of Taichi's passes below.`));
  } else {
    const [name, ir] = taichi.passes[at];
    pre.append(h("div", "ti-source-title", `Taichi 1.7.4 after “${name}”` + (picked !== null ? "" : ` (our ${pass.name})`)));
    ir.split("\n").forEach((line, i) => pre.append(codeLine(" ", line, String(i + 1), null)));
  }
  const list = pre.appendChild(h("div", "ti-taichi-passes"));
  list.style.cssText = "white-space: normal; padding: 8px 12px; line-height: 1.8";
  list.append(h("span", "ti-muted", "Taichi's passes: "));
  taichi.passes.forEach(([name], i) => {
    const link = list.appendChild(h("button", "ti-pass-link" + (i === at ? " active" : ""), name));
    link.style.cssText = "font: 11px var(--ti-mono); padding: 0 4px; margin: 0 3px 0 0" + (i === at ? "; font-weight: bold; outline: 1px solid #2f74d0" : "");
    link.onclick = () => {
      state.taichiPick = { pass: state.index, at: i };
      pre.replaceChildren();
      paintTaichi(pre, model, state, pass);
    };
  });
}

function paintSource(pre, source) {
  pre.replaceChildren(h("div", "ti-source-title", "Python source"));
  source.lines.forEach((text, i) => pre.append(codeLine(" ", text, String(source.first + i), source.first + i)));
}

// Wrap each occurrence of `query` (lower case) in the shown code lines in <mark class="ti-hit">.
function markMatches(pre, query) {
  if (!query) return 0;
  let count = 0;
  for (const span of pre.querySelectorAll(".ti-text")) {
    const text = span.textContent;
    const lower = text.toLowerCase();
    if (!lower.includes(query)) continue;
    const pieces = [];
    let at = 0;
    for (let i = lower.indexOf(query); i >= 0; i = lower.indexOf(query, i + query.length)) {
      pieces.push(document.createTextNode(text.slice(at, i)), h("mark", "ti-hit", text.slice(i, i + query.length)));
      at = i + query.length;
      count += 1;
    }
    pieces.push(document.createTextNode(text.slice(at)));
    span.replaceChildren(...pieces);
  }
  return count;
}

function paintCfg(pane, model, state) {
  const cfg = model.get("cfg");
  if (!cfg.graph || cfg.instance !== model.get("instance") || cfg.pass !== state.index) {
    pane.replaceChildren(h("div", "ti-message", "Building the control-flow graph…"));
    return;
  }
  drawCfg(pane, cfg.graph, {
    query: state.query,
    expanded: state.expanded,
    onToggle: (key) => {
      state.expanded.add(key);
      paintCfg(pane, model, state);
    },
  });
}

// ---- lineage --------------------------------------------------------------------------

// Give each shown code line its statement id (data-sid), and in the LLVM IR and WGSL tabs its
// source line (data-src): rows of the IR tab are the pass's printed lines; the diff's rows
// walk the lines before the pass ("-" and " ") and after it ("+" and " ") side by side.
function linkCode(pre, data, index, tab) {
  const lines = pre.querySelectorAll(":scope > .ti-line");
  const pass = data.passes[index];
  const lineage = data.lineage;
  if (!lineage) return;
  if (tab === "ir" || tab === "diff") {
    const after = pass.ids || [];
    const before = (index > 0 && data.passes[index - 1].ids) || after;
    let i = 0;
    let j = 0;
    let k = 0;
    for (const [op] of pass.diff) {
      if (tab === "ir" && op === "-") {
        i += 1;
        continue;
      }
      const sid = op === "-" ? before[i] : after[j];
      if (op !== "+") i += 1;
      if (op !== "-") j += 1;
      const line = lines[k++];
      if (!line || sid === null || sid === undefined) continue;
      line.dataset.sid = String(sid);
      const origin = lineage.origins[sid];
      if (op === "-" && origin && origin[0] !== null) line.dataset.src = String(origin[0]); // deleted lines too
    }
    return;
  }
  const links = lineage.links && lineage.links[tab];
  if (!links) return;
  lines.forEach((line, n) => {
    if (links.ids[n] !== null && links.ids[n] !== undefined) line.dataset.sid = String(links.ids[n]);
    if (links.src[n] !== null && links.src[n] !== undefined) line.dataset.src = String(links.src[n]);
  });
}

// Badges in the pass list: what each pass did to the statements of source line `src`.
function markPasses(list, data, src) {
  for (const badge of list.querySelectorAll(".ti-lineage")) badge.remove();
  for (const row of list.querySelectorAll(".ti-pass.lineage")) row.classList.remove("lineage");
  const counts = src !== null && data.lineage && data.lineage.by_line[String(src)];
  if (!counts) return;
  counts.forEach(([created, rewritten, deleted], i) => {
    const row = list.children[i];
    if (!row || created + rewritten + deleted === 0) return;
    row.classList.add("lineage");
    const bars = row.querySelector(".ti-bars");
    const badge = bars.insertBefore(h("span", "ti-lineage"), bars.querySelector(".ti-delta"));
    badge.title = `line ${src}: ${created} created, ${rewritten} rewritten, ${deleted} deleted`;
    if (created) badge.append(h("span", "c", `+${created}`));
    if (rewritten) badge.append(h("span", "w", `~${rewritten}`));
    if (deleted) badge.append(h("span", "d", `−${deleted}`));
  });
}

function sourceText(data, line) {
  const at = line - data.source.first;
  return at >= 0 && at < data.source.lines.length ? data.source.lines[at].trim() : "";
}

// The bar above the code: where the clicked statement came from, or what cannot be shown.
function paintInfo(info, data, state, tab, onPass) {
  info.replaceChildren();
  const origin = state.sid !== null && data.lineage && data.lineage.origins[state.sid];
  if (origin) {
    const [line, created, rewritten, deleted] = origin;
    const link = (i) => {
      const button = h("button", "ti-pass-link", data.passes[i].name);
      button.onclick = () => onPass(i);
      return button;
    };
    info.append(h("b", "", `statement #${state.sid}`));
    info.append(document.createTextNode(line === null ? " · no source line" : ` · line ${line}: ${sourceText(data, line)}`));
    info.append(document.createTextNode(" · created by "), link(created));
    if (rewritten.length) {
      info.append(document.createTextNode(" · rewritten by "));
      rewritten.forEach((i, n) => info.append(...(n ? [document.createTextNode(", ")] : []), link(i)));
    }
    if (deleted !== null) info.append(document.createTextNode(" · deleted by "), link(deleted));
  } else if (state.src !== null && tab === "asm" && !(data.lineage && data.lineage.links && data.lineage.links.asm)) {
    info.append(document.createTextNode("This assembly was loaded from the offline cache, without its IR, so it is not linked to the source; recompile to link it."));
  }
  info.style.display = info.childNodes.length ? "" : "none";
}

// Bring `line` into view inside its scrolling pane only (scrollIntoView would also scroll
// the explorer's own columns and the notebook, hiding the tabs).
function scrollWithin(pane, line) {
  const top = line.offsetTop - pane.offsetTop;
  if (top < pane.scrollTop || top + line.offsetHeight > pane.scrollTop + pane.clientHeight) {
    pane.scrollTop = Math.max(0, top - pane.clientHeight / 3);
  }
}

function markStatement(root, sid) {
  for (const node of root.querySelectorAll(".ti-line.same-stmt")) node.classList.remove("same-stmt");
  if (sid === null) return;
  for (const node of root.querySelectorAll(`.ti-line[data-sid="${sid}"]`)) node.classList.add("same-stmt");
}

function highlight(root, src) {
  for (const node of root.querySelectorAll(".ti-line.linked")) node.classList.remove("linked");
  if (src === null) return;
  for (const node of root.querySelectorAll(`.ti-line[data-src="${src}"]`)) node.classList.add("linked");
}

function build(el) {
  el.classList.add("tistudio", "tistudio-passes");
  el.setAttribute("data-lm-suppress-shortcuts", "true");
  const bar = el.appendChild(h("div", "ti-bar"));
  const main = el.appendChild(h("div", "ti-main"));
  const list = main.appendChild(h("div", "ti-passlist"));
  list.tabIndex = 0;
  const right = main.appendChild(h("div", "ti-right"));
  const doc = right.appendChild(h("div", "ti-doc"));
  const tabs = right.appendChild(h("div", "ti-tabs"));
  const panes = right.appendChild(h("div", "ti-panes"));
  const code = panes.appendChild(h("pre", "ti-code ti-ir"));
  const cfg = panes.appendChild(h("div", "ti-cfg"));
  const source = panes.appendChild(h("pre", "ti-code ti-source"));
  const tools = h("span", "ti-tools");
  const hideBox = h("input", "ti-hide-unchanged");
  hideBox.type = "checkbox";
  const hide = tools.appendChild(h("label", "ti-hide", ""));
  hide.append(hideBox, document.createTextNode(" hide unchanged"));
  const search = tools.appendChild(h("input", "ti-search"));
  search.type = "search";
  search.placeholder = "search passes and IR";
  const hits = tools.appendChild(h("span", "ti-muted ti-search-hits"));
  return { bar, main, list, right, doc, tabs, panes, code, cfg, source, tools, hideBox, search, hits };
}

function paintBar(parts, model, data) {
  parts.bar.replaceChildren(h("span", "ti-title", "Pass explorer"));
  const select = parts.bar.appendChild(h("select", "ti-instance"));
  model.get("instances").forEach((label, i) => {
    const option = select.appendChild(h("option", "", label));
    option.value = String(i);
  });
  select.value = String(model.get("instance"));
  select.onchange = () => {
    model.set("instance", Number(select.value));
    model.save_changes();
  };
  if (data.passes) {
    const total = data.passes.reduce((s, p) => s + p.ms, 0);
    parts.bar.append(h("span", "ti-muted", `${data.passes.length} passes · ${total.toFixed(1)} ms in passes · ${data.compile_ms} ms compile · ${data.arch}`));
    parts.bar.append(parts.tools);
  }
}

function paintTabs(parts, model) {
  parts.tabs.replaceChildren();
  for (const [key, title] of TABS) {
    const tab = parts.tabs.appendChild(h("button", "ti-tab" + (model.get("tab") === key ? " active" : ""), title));
    tab.dataset.tab = key;
    tab.onclick = () => {
      model.set("tab", key);
      model.save_changes();
    };
  }
}

function paintAll(parts, model, state) {
  const data = model.get("data");
  paintBar(parts, model, data);
  if (!data.passes || data.passes.length === 0) {
    const why = data.passes
      ? "This instantiation was compiled while no studio was listening, so its passes were not recorded."
      : "No instantiation yet: call one of the cell's kernels and its passes appear here.";
    parts.main.replaceChildren(h("div", "ti-empty", why));
    return;
  }
  if (!parts.main.contains(parts.list)) parts.main.replaceChildren(parts.list, parts.right);
  const count = data.passes.length;
  const index = model.get("pass_index") < 0 || model.get("pass_index") >= count ? count - 1 : model.get("pass_index");
  state.index = index;
  const pass = data.passes[index];
  state.query = model.get("search").trim().toLowerCase();
  const shown = shownPasses(data.passes, model.get("hide_unchanged"), state.query, index);
  state.shown = shown.map((s, i) => (s.shown ? i : -1)).filter((i) => i >= 0);
  paintPassList(parts.list, data.passes, index, { shown, sparks: model.get("sparks") });
  parts.doc.replaceChildren(h("b", "", pass.name), document.createTextNode(" — " + (pass.doc || "(no docstring)")));
  paintTabs(parts, model);
  paintCode(parts.code, data, pass, model.get("tab"), model.get("no_wgsl"), () => paintTaichi(parts.code, model, state, pass));
  linkCode(parts.code, data, index, model.get("tab"));
  const isCfg = model.get("tab") === "cfg";
  parts.code.style.display = isCfg ? "none" : "";
  parts.cfg.style.display = isCfg ? "" : "none";
  if (isCfg) paintCfg(parts.cfg, model, state);
  else parts.cfg.replaceChildren();
  const marked = isCfg ? parts.cfg.querySelectorAll(".cfg-stmt.hit").length : markMatches(parts.code, state.query);
  parts.hideBox.checked = model.get("hide_unchanged");
  if (parts.search.value.trim().toLowerCase() !== state.query) parts.search.value = model.get("search");
  const matching = shown.filter((s) => s.hits > 0).length;
  parts.hits.textContent = state.query ? `${matching} passes · ${marked} here` : "";
  const withSource = model.get("show_source") && model.get("tab") !== "cfg"; // the CFG takes the width
  parts.panes.classList.toggle("nosource", !withSource);
  parts.source.style.display = withSource ? "" : "none";
  paintSource(parts.source, data.source);
  highlight(parts.panes, state.src);
  lineageMarks(parts, data, model, state);
}

function lineageMarks(parts, data, model, state) {
  if (!parts.info) return;
  markPasses(parts.list, data, state.src);
  markStatement(parts.code, state.sid);
  paintInfo(parts.info, data, state, model.get("tab"), (i) => selectPass(model, state, i));
}

function selectPass(model, state, index) {
  const count = (model.get("data").passes || []).length;
  if (count === 0) return;
  model.set("pass_index", Math.max(0, Math.min(count - 1, index)));
  model.save_changes();
}

// The next shown pass from the selected one, `step` (±1) at a time.
function nextShown(state, step) {
  const shown = state.shown || [];
  const later = step > 0 ? shown.filter((i) => i > state.index) : shown.filter((i) => i < state.index).reverse();
  return later.length ? later[0] : state.index;
}

function onKey(event, model, state) {
  const moves = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1 };
  const shown = state.shown || [];
  if (event.key in moves) selectPass(model, state, nextShown(state, moves[event.key]));
  else if (event.key === "Home") selectPass(model, state, shown.length ? shown[0] : 0);
  else if (event.key === "End") selectPass(model, state, shown.length ? shown[shown.length - 1] : 1e9);
  else if (event.key >= "1" && event.key <= String(TABS.length)) {
    model.set("tab", TABS[Number(event.key) - 1][0]);
    model.save_changes();
  } else return;
  event.preventDefault();
  event.stopPropagation();
}

export default {
  render({ model, el }) {
    const parts = build(el);
    const state = { index: 0, src: null, sid: null, query: "", shown: [], expanded: new Set() };
    parts.info = parts.right.insertBefore(h("div", "ti-lineage-info"), parts.panes);
    let pending = false;
    const draw = () => {
      pending = false;
      paintAll(parts, model, state);
      el.dataset.pass = String(state.index);
      el.dataset.tab = model.get("tab");
      el.dataset.ready = "1";
    };
    const schedule = () => {
      if (!pending) {
        pending = true;
        requestAnimationFrame(draw);
      }
    };
    parts.list.addEventListener("click", (event) => {
      const row = event.target.closest(".ti-pass");
      if (row) {
        selectPass(model, state, Number(row.dataset.index));
        parts.list.focus();
      }
    });
    parts.list.addEventListener("keydown", (event) => onKey(event, model, state));
    parts.hideBox.addEventListener("change", () => {
      model.set("hide_unchanged", parts.hideBox.checked);
      model.save_changes();
    });
    parts.search.addEventListener("input", () => {
      model.set("search", parts.search.value);
      model.save_changes();
    });
    parts.search.addEventListener("keydown", (event) => {
      event.stopPropagation(); // typing is not a shortcut (JupyterLab's or ours)
      if (event.key !== "Enter") return;
      const next = state.shown.find((i) => i > state.index && matchCount(model.get("data").passes[i], state.query) > 0);
      const first = state.shown.find((i) => matchCount(model.get("data").passes[i], state.query) > 0);
      if (next !== undefined || first !== undefined) selectPass(model, state, next !== undefined ? next : first);
    });
    parts.panes.addEventListener("click", (event) => {
      // a Python line selects its source line; an IR or code line selects its statement too;
      // the same line (statement) clicked again clears the selection
      const line = event.target.closest(".ti-line[data-src], .ti-line[data-sid]");
      const sid = line && !line.closest(".ti-source") && line.dataset.sid !== undefined ? line.dataset.sid : null;
      const src = line && line.dataset.src !== undefined ? line.dataset.src : null;
      const again = line && (sid !== null ? sid === state.sid : state.sid === null && src === state.src);
      state.src = again ? null : src;
      state.sid = again ? null : sid;
      highlight(parts.panes, state.src);
      const twin = state.src && (line.closest(".ti-source") ? parts.code : parts.source).querySelector(`.ti-line[data-src="${state.src}"]`);
      if (twin) scrollWithin(twin.closest(".ti-code"), twin);
      el.dataset.linked = state.src === null ? "" : String(state.src);
      el.dataset.stmt = state.sid === null ? "" : state.sid;
      lineageMarks(parts, model.get("data"), model, state);
    });
    const names = ["data", "instances", "instance", "pass_index", "tab", "show_source", "hide_unchanged", "search", "cfg", "sparks", "taichi"];
    for (const name of names) model.on("change:" + name, schedule);
    draw();
    return () => names.forEach((name) => model.off("change:" + name, schedule));
  },
};

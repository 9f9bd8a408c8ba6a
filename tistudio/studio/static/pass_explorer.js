// pass_explorer.js: the passes of one kernel instantiation, the IR after each, its diff with
// the pass before, the pass docstring, the Python source, and the final LLVM IR, assembly and
// WGSL. Clicking an IR line highlights the Python line it came from, and back.
// Keyboard: Up/Down or j/k move between passes, Home/End jump, 1-5 pick a tab.
// Plain ES module, no dependencies.

const TABS = [
  ["ir", "IR after pass"],
  ["diff", "Diff"],
  ["llvm", "LLVM IR"],
  ["asm", "Assembly"],
  ["wgsl", "WGSL"],
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

function paintPassList(list, passes, selected) {
  list.replaceChildren();
  const maxMs = Math.max(1e-6, ...passes.map((p) => p.ms));
  const maxStmts = Math.max(1, ...passes.map((p) => p.stmts));
  passes.forEach((pass, i) => list.append(passRow(pass, i, maxMs, maxStmts)));
  const row = list.children[selected];
  if (row) {
    row.classList.add("selected");
    row.scrollIntoView({ block: "nearest" });
  }
}

function paintCode(pre, data, pass, tab, noWgsl) {
  pre.replaceChildren();
  pre.dataset.tab = tab;
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

function paintSource(pre, source) {
  pre.replaceChildren(h("div", "ti-source-title", "Python source"));
  source.lines.forEach((text, i) => pre.append(codeLine(" ", text, String(source.first + i), source.first + i)));
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
  const source = panes.appendChild(h("pre", "ti-code ti-source"));
  return { bar, main, list, right, doc, tabs, panes, code, source };
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
  paintPassList(parts.list, data.passes, index);
  parts.doc.replaceChildren(h("b", "", pass.name), document.createTextNode(" — " + (pass.doc || "(no docstring)")));
  paintTabs(parts, model);
  paintCode(parts.code, data, pass, model.get("tab"), model.get("no_wgsl"));
  parts.panes.classList.toggle("nosource", !model.get("show_source"));
  parts.source.style.display = model.get("show_source") ? "" : "none";
  paintSource(parts.source, data.source);
  highlight(parts.panes, state.src);
}

function selectPass(model, state, index) {
  const count = (model.get("data").passes || []).length;
  if (count === 0) return;
  model.set("pass_index", Math.max(0, Math.min(count - 1, index)));
  model.save_changes();
}

function onKey(event, model, state) {
  const moves = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1 };
  if (event.key in moves) selectPass(model, state, state.index + moves[event.key]);
  else if (event.key === "Home") selectPass(model, state, 0);
  else if (event.key === "End") selectPass(model, state, 1e9);
  else if (event.key >= "1" && event.key <= "5") {
    model.set("tab", TABS[Number(event.key) - 1][0]);
    model.save_changes();
  } else return;
  event.preventDefault();
  event.stopPropagation();
}

export default {
  render({ model, el }) {
    const parts = build(el);
    const state = { index: 0, src: null };
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
    parts.panes.addEventListener("click", (event) => {
      const line = event.target.closest(".ti-line[data-src]");
      state.src = line && line.dataset.src !== String(state.src) ? line.dataset.src : null;
      highlight(parts.panes, state.src);
      const twin = state.src && (line.closest(".ti-source") ? parts.code : parts.source).querySelector(`.ti-line[data-src="${state.src}"]`);
      if (twin) twin.scrollIntoView({ block: "nearest" });
      el.dataset.linked = state.src === null ? "" : String(state.src);
    });
    const names = ["data", "instances", "instance", "pass_index", "tab", "show_source"];
    for (const name of names) model.on("change:" + name, schedule);
    draw();
    return () => names.forEach((name) => model.off("change:" + name, schedule));
  },
};

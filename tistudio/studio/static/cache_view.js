// cache_view.js: one row per kernel and template signature with compile time, hits, misses,
// last use, and why it compiled (short form in the cell, the whole sentence in its tooltip).
// Rows whose counts changed flash briefly. Plain ES module, no dependencies.

const COLUMNS = [
  ["kernel", "kernel", ""],
  ["signature", "template signature", "sig"],
  ["arch", "arch", ""],
  ["compile_ms", "compile", "num"],
  ["hits", "hits", "num"],
  ["misses", "misses", "num"],
  ["last_use", "last use", "num"],
  ["why", "why compiled", "why"],
];

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function ago(seconds) {
  const dt = Math.max(0, Date.now() / 1000 - seconds);
  if (dt < 1.5) return "just now";
  if (dt < 90) return `${Math.round(dt)} s ago`;
  if (dt < 5400) return `${Math.round(dt / 60)} min ago`;
  return `${Math.round(dt / 3600)} h ago`;
}

function cell(row, key, cls) {
  const td = h("td", cls);
  if (key === "compile_ms") {
    td.textContent = `${row.compile_ms.toFixed(1)} ms`;
    if (row.startup_ms >= 0.5) {  // waited for the back end's start (a cell straight after ti.init)
      td.append(h("span", "ti-startup", ` +${row.startup_ms.toFixed(0)} ms start-up`));
      td.title = `compiled in ${row.compile_ms.toFixed(1)} ms, after waiting ${row.startup_ms.toFixed(0)} ms for the back end to start (ti.init starts it in the background)`;
    }
  } else if (key === "last_use") {
    td.textContent = ago(row.last_use);
    td.dataset.time = String(row.last_use);
    td.classList.add("ti-ago");
  } else if (key === "hits") {
    td.textContent = String(row.hits);
    const ratio = h("span", "ti-ratio");
    const fill = ratio.appendChild(h("span"));
    fill.style.width = `${(100 * row.hits) / Math.max(1, row.hits + row.misses)}%`;
    ratio.title = `${row.hits} hits, ${row.misses} misses`;
    td.append(ratio);
  } else if (key === "why") {
    td.textContent = row.why_short;
    td.title = row.why;
  } else td.textContent = String(row[key]);
  return td;
}

function paint(root, model, previous) {
  const rows = model.get("rows");
  root.replaceChildren();
  if (rows.length === 0) {
    root.append(h("div", "ti-empty", "Nothing compiled yet: call a kernel and it appears here."));
    return;
  }
  const table = root.appendChild(h("table"));
  const head = table.appendChild(h("tr"));
  for (const [, title, cls] of COLUMNS) head.append(h("th", cls === "sig" ? "" : cls, title));
  for (const row of rows) {
    const tr = table.appendChild(h("tr", "ti-cache-row"));
    tr.dataset.instance = row.instance;
    tr.dataset.hits = String(row.hits);
    tr.dataset.misses = String(row.misses);
    const before = previous.get(row.instance);
    if (before !== undefined && before !== row.hits + row.misses) tr.classList.add("flash");
    previous.set(row.instance, row.hits + row.misses);
    for (const [key, , cls] of COLUMNS) tr.append(cell(row, key, cls || key));
  }
}

export default {
  render({ model, el }) {
    el.classList.add("tistudio", "tistudio-cache");
    const bar = el.appendChild(h("div", "ti-bar"));
    bar.append(h("span", "ti-title", "Kernel cache"));
    const count = bar.appendChild(h("span", "ti-muted"));
    const root = el.appendChild(h("div"));
    const previous = new Map();
    let pending = false;
    const draw = () => {
      pending = false;
      paint(root, model, previous);
      const rows = model.get("rows");
      const hits = rows.reduce((s, r) => s + r.hits, 0);
      count.textContent = `${rows.length} instantiation(s), ${hits} hit(s)`;
      el.dataset.updates = String(model.get("updates"));
    };
    const schedule = () => {
      if (!pending) {
        pending = true;
        requestAnimationFrame(draw);
      }
    };
    model.on("change:rows", schedule);
    draw();
    const tick = setInterval(() => {
      for (const td of root.querySelectorAll("td.ti-ago")) td.textContent = ago(Number(td.dataset.time));
    }, 1000);
    el.dataset.ready = "1";
    return () => {
      clearInterval(tick);
      model.off("change:rows", schedule);
    };
  },
};

// The page save_html writes: the pass explorer's own module drawn on a static model, and the
// AOT runner's loader (window.tistudio, from an earlier script) on the embedded WebGPU module.
const payload = JSON.parse(document.getElementById("ti-share-data").textContent);

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

// anywidget's model interface (get, set, save_changes, on, off, send) over the saved data. What
// the widget's Python side does on a change is done here from what the page carries: a new
// instantiation brings its data and sparklines, the CFG tab the selected pass's graph.
function staticModel(kernel, noWgsl) {
  const state = {
    instances: kernel.instances, instance: 0, data: kernel.data[0], sparks: kernel.sparks[0],
    pass_index: -1, tab: "ir", hide_unchanged: false, search: "", cfg: {}, show_source: true,
    no_wgsl: noWgsl,
  };
  const listeners = new Map();
  const fire = (key) => (listeners.get("change:" + key) || []).slice().forEach((fn) => fn());
  const set = (key, value) => { state[key] = value; fire(key); };
  function updateCfg() {
    if (state.tab !== "cfg") return;
    const count = state.data.passes.length;
    const index = state.pass_index >= 0 && state.pass_index < count ? state.pass_index : count - 1;
    if (state.cfg.instance === state.instance && state.cfg.pass === index) return;
    set("cfg", { instance: state.instance, pass: index, graph: kernel.cfgs[state.instance][index] });
  }
  const changed = new Set();
  return {
    get: (key) => state[key],
    set(key, value) { changed.add(key); set(key, value); },
    save_changes() {
      const keys = [...changed];
      changed.clear();
      if (keys.includes("instance")) {
        set("data", kernel.data[state.instance]);
        set("sparks", kernel.sparks[state.instance]);
        set("pass_index", -1);
      }
      if (keys.some((k) => ["instance", "tab", "pass_index"].includes(k))) updateCfg();
    },
    on(event, fn) { listeners.set(event, [...(listeners.get(event) || []), fn]); },
    off(event, fn) { listeners.set(event, (listeners.get(event) || []).filter((f) => f !== fn)); },
    send() {},
  };
}

async function explorerModule(text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  try {
    return (await import(url)).default;
  } finally {
    URL.revokeObjectURL(url);
  }
}

// --- the runner ---------------------------------------------------------------------------
const TYPED = { f32: Float32Array, i32: Int32Array, u32: Uint32Array, i8: Int8Array, u8: Uint8Array,
                i16: Int16Array, u16: Uint16Array, u1: Uint8Array };

function whyNoRunner() {
  if (!window.isSecureContext || !(window.crypto && crypto.subtle)) {
    return "This page is not a secure context here, and WebGPU needs one: open it from the file system or over https.";
  }
  if (!navigator.gpu) {
    return "This browser has no WebGPU (navigator.gpu is missing), so the kernels cannot run here: " +
      "open the page in a browser with WebGPU (Chrome or Edge 113+, or with WebGPU enabled). " +
      "The pass explorer below works without it.";
  }
  return null;
}

function defaultArgs(entry) {
  return JSON.stringify((entry.args || []).map((a) => (a.ptype === 1 ? [0, 0, 0, 0] : a.dtype.startsWith("f") ? 0.1 : 1)));
}

function drawField(shape, data) {
  const canvas = h("canvas");
  [canvas.height, canvas.width] = shape;
  let lo = Infinity, hi = -Infinity;
  for (const v of data) { if (v < lo) lo = v; if (v > hi) hi = v; }
  const image = canvas.getContext("2d").createImageData(canvas.width, canvas.height);
  data.forEach((v, i) => {
    const g = hi > lo ? Math.round((255 * (v - lo)) / (hi - lo)) : 0;
    image.data.set([g, g, g, 255], 4 * i);
  });
  canvas.getContext("2d").putImageData(image, 0, 0);
  return canvas;
}

async function showFields(module, box) {
  box.replaceChildren();
  for (const f of module.meta.fields) {
    const { shape, data } = await module.readField(f.field_name);
    let sum = 0;
    for (const v of data) sum += v;
    const line = `${f.field_name} ${JSON.stringify(shape)}: mean ${(sum / data.length).toPrecision(6)}, ` +
      `[${Array.from(data.slice(0, 6), (v) => +v.toPrecision(6)).join(", ")}${data.length > 6 ? ", …" : ""}]`;
    const figure = box.appendChild(h("figure", "ti-share-field"));
    if (shape.length === 2 && data.length === shape[0] * shape[1]) figure.append(drawField(shape, data));
    figure.append(h("figcaption", "", line));
  }
}

async function runner(box) {
  box.append(h("h3", "", "Run in your browser (WebGPU)"));
  const out = h("pre", "ti-share-out");
  const show = (text, error) => { out.textContent = text; out.className = "ti-share-out" + (error ? " error" : ""); };
  if (!payload.module) {
    box.append(h("p", "ti-share-message", payload.cpu_only));
    box.dataset.state = "cpu";
    return;
  }
  const why = whyNoRunner();
  if (why) {
    box.append(h("p", "ti-share-message error", why));
    box.dataset.state = "unavailable";
    return;
  }
  let module;
  try {
    const bytes = Uint8Array.from(atob(payload.module), (c) => c.charCodeAt(0));
    module = await window.tistudio.load(bytes.buffer);
  } catch (e) {
    box.append(h("p", "ti-share-message error", `The runner cannot start here: ${e.message || e}`));
    box.dataset.state = "unavailable";
    return;
  }
  const fields = h("div", "ti-share-fields");
  for (const note of payload.runs) {
    const row = box.appendChild(h("div", "ti-share-run-row"));
    row.append(h("code", "", note.label));
    if (note.error) { row.append(h("span", "error", `not in the module: ${note.error}`)); continue; }
    const entry = module.entries[note.kernel];
    const input = row.appendChild(h("input"));
    input.value = defaultArgs(entry);
    const button = row.appendChild(h("button", "ti-share-run", "run"));
    button.dataset.kernel = note.kernel;
    button.addEventListener("click", async () => {
      try {
        const args = JSON.parse(input.value).map((v, i) => (Array.isArray(v) ? new (TYPED[entry.args[i].dtype] || Float32Array)(v) : v));
        const started = performance.now();
        const result = await module.kernel(note.kernel).run(args);
        const ms = performance.now() - started;
        show(`${note.kernel}: ran in ${ms.toFixed(1)} ms${result === undefined ? "" : `, returned ${JSON.stringify(result)}`}`);
        await showFields(module, fields);
        box.dataset.runs = String(Number(box.dataset.runs || 0) + 1);
      } catch (e) {
        show(String(e), true);
      }
    });
  }
  box.append(out, fields);
  show(`WebGPU adapter ready; kernels: ${module.kernelNames.join(", ")}`);
  box.dataset.state = "ready";
}

async function main() {
  document.title = payload.title;
  document.getElementById("ti-share-title").textContent = payload.title;
  const explorer = await explorerModule(payload.explorer_esm);
  const host = document.getElementById("ti-share-kernels");
  for (const kernel of payload.kernels) {
    const section = host.appendChild(h("section", "ti-share-kernel"));
    section.append(h("h2", "", kernel.name));
    const el = section.appendChild(h("div", "ti-share-explorer"));
    el.dataset.kernel = kernel.name;
    explorer.render({ model: staticModel(kernel, payload.no_wgsl), el });
  }
  document.body.dataset.explorer = "ready";
  await runner(document.getElementById("ti-share-runner"));
  document.body.dataset.ready = "1";
}

main().catch((e) => {
  document.body.dataset.ready = "error";
  document.body.prepend(h("pre", "error", String(e && e.stack ? e.stack : e)));
});

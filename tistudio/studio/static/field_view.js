// field_view.js: a live picture of a field. 1D: a line; 2D: a heat map (i to the right, j up,
// as Taichi's GUI shows fields) with a colour bar; 3D: one slice picked with a slider; vector
// fields: magnitude with optional arrows. NaN and Inf get colours no colour map uses. A sparse
// field's inactive elements are grey and hatched, with the grid of its sparse blocks (activity.py).
// Frames arrive as bytes (float32, or uint8 codes, see frames.py) and are drawn at most once
// per animation frame. Plain ES module, no dependencies.

const LEVELS = 250, NAN_CODE = 251, POS_INF_CODE = 252, NEG_INF_CODE = 253;
const NAN_RGB = [255, 0, 255], INF_RGB = [0, 229, 255];
const INACTIVE_RGB = [200, 200, 200], HATCH = "rgb(150,150,150)";
const MAX_SIDE = 420;

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function fmt(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "—";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "−Inf";
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(3) : Number(v.toPrecision(5)).toString();
}

// --- decoding ----------------------------------------------------------------------------

function values(model) {
  const dv = model.get("data");
  if (!dv || dv.byteLength === 0) return null;
  if (model.get("encoding") === "u8") return new Uint8Array(dv.buffer, dv.byteOffset, dv.byteLength);
  return new Float32Array(dv.buffer.slice(dv.byteOffset, dv.byteOffset + dv.byteLength));
}

function activeMask(model) {
  // one byte per element (1: active) for a sparse field, else null
  const dv = model.get("active");
  if (!dv || dv.byteLength === 0) return null;
  return new Uint8Array(dv.buffer, dv.byteOffset, dv.byteLength);
}

function valueAt(model, raw, k) {
  if (model.get("encoding") === "f32") return raw[k];
  const c = raw[k];
  if (c === NAN_CODE) return NaN;
  if (c === POS_INF_CODE) return Infinity;
  if (c === NEG_INF_CODE) return -Infinity;
  const lo = model.get("vmin"), hi = model.get("vmax");
  return lo + (c * (hi > lo ? hi - lo : 1)) / LEVELS;
}

const paletteMemo = { key: "", value: null };

function palette(model) {
  // 256 RGBA colours for u8 codes: the colour map for 0..LEVELS, then NaN and Inf colours
  const key = model.get("cmap") + "/" + model.get("cmaps").join(",");
  if (paletteMemo.key !== key) {
    paletteMemo.value = makePalette(model);
    paletteMemo.key = key;
  }
  return paletteMemo.value;
}

function makePalette(model) {
  const luts = model.get("luts");
  const index = Math.max(0, model.get("cmaps").indexOf(model.get("cmap")));
  const lut = new Uint8Array(luts.buffer, luts.byteOffset + index * 768, 768);
  const out = new Uint8ClampedArray(256 * 4);
  for (let c = 0; c < 256; c++) {
    let rgb;
    if (c === NAN_CODE) rgb = NAN_RGB;
    else if (c === POS_INF_CODE || c === NEG_INF_CODE) rgb = INF_RGB;
    else {
      const i = Math.round((Math.min(c, LEVELS) * 255) / LEVELS);
      rgb = [lut[3 * i], lut[3 * i + 1], lut[3 * i + 2]];
    }
    out.set([...rgb, 255], 4 * c);
  }
  return new Uint32Array(out.buffer);
}

function codeOf(v, lo, scale) {
  if (v !== v) return NAN_CODE;
  if (v === Infinity) return POS_INF_CODE;
  if (v === -Infinity) return NEG_INF_CODE;
  const c = Math.round((v - lo) * scale);
  return c < 0 ? 0 : c > LEVELS ? LEVELS : c;
}

// --- 2D and 3D ---------------------------------------------------------------------------

function plane(model) {
  // [ni, nj, index(i, j)] of the picture: the field itself, or the chosen slice of a volume
  const shape = model.get("shape");
  if (shape.length === 2) return [shape[0], shape[1], (i, j) => i * shape[1] + j];
  const axis = model.get("slice_axis"), k = Math.min(model.get("slice_index"), shape[axis] - 1);
  const strides = [shape[1] * shape[2], shape[2], 1];
  const [a, b] = [0, 1, 2].filter((x) => x !== axis);
  return [shape[a], shape[b], (i, j) => k * strides[axis] + i * strides[a] + j * strides[b]];
}

function colourPixels(model, raw, px, ni, nj) {
  // px[(nj-1-j)*ni + i] = colour of element (i, j): i to the right, j up
  const colours = palette(model);
  const u8 = model.get("encoding") === "u8";
  const lo = model.get("vmin"), hi = model.get("vmax"), scale = LEVELS / (hi > lo ? hi - lo : 1);
  if (model.get("shape").length === 2) {
    for (let i = 0; i < ni; i++) {
      const base = i * nj;
      let out = (nj - 1) * ni + i;
      for (let j = 0; j < nj; j++, out -= ni) {
        const v = raw[base + j];
        px[out] = colours[u8 ? v : codeOf(v, lo, scale)];
      }
    }
    return;
  }
  const at = plane(model)[2];
  for (let i = 0; i < ni; i++) {
    for (let j = 0; j < nj; j++) {
      const v = raw[at(i, j)];
      px[(nj - 1 - j) * ni + i] = colours[u8 ? v : codeOf(v, lo, scale)];
    }
  }
}

function planeCodes(model, raw, ni, nj, cache) {
  // the picture's u8 codes at [i * nj + j]: a 2D u8 frame as it came, else made here
  const shape = model.get("shape"), u8 = model.get("encoding") === "u8";
  if (u8 && shape.length === 2) return raw;
  if (!cache.codes || cache.codes.length !== ni * nj) cache.codes = new Uint8Array(ni * nj);
  const out = cache.codes, at = plane(model)[2];
  const lo = model.get("vmin"), hi = model.get("vmax"), scale = LEVELS / (hi > lo ? hi - lo : 1);
  for (let i = 0; i < ni; i++) {
    for (let j = 0; j < nj; j++) {
      const v = raw[shape.length === 2 ? i * nj + j : at(i, j)];
      out[i * nj + j] = u8 ? v : codeOf(v, lo, scale);
    }
  }
  return out;
}

function paintHeat(canvas, model, raw, cache) {
  const [ni, nj] = plane(model);
  const zoom = Math.max(1, Math.floor(MAX_SIDE / Math.max(ni, nj)));
  const fit = Math.min(1, MAX_SIDE / Math.max(ni, nj));
  const width = Math.round(ni * zoom * fit), height = Math.round(nj * zoom * fit);
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const ctx = canvas.getContext("2d");
  // quantised (big) frames through WebGL; exact f32 ones (at most 65536 elements) cost the 2D
  // canvas under a millisecond, and keep their pixels readable on it
  const big = cache.gl && model.get("encoding") === "u8";
  const gl = big && drawGl(cache.gl, planeCodes(model, raw, ni, nj, cache), palette(model), ni, nj, width, height);
  showGl(canvas, cache.gl, gl);
  if (gl) ctx.clearRect(0, 0, width, height);
  else paint2d(ctx, model, raw, cache, ni, nj, canvas);
  const mask = activeMask(model);
  if (mask) paintInactive(ctx, mask, cache, ni, nj, plane(model)[2], canvas);
  if (mask && model.get("show_blocks")) paintBlocks(ctx, planeBlocks(model), ni, nj, canvas);
  if (model.get("vector") && model.get("show_arrows")) paintArrows(ctx, model, ni, nj, canvas);
}

function showGl(canvas, state, on) {
  // the WebGL picture lies under the 2D canvas, which keeps the overlays and the mouse
  if (!state) return;
  state.gl.canvas.style.display = on ? "" : "none";
  canvas.style.background = on ? "transparent" : "";
}

function paint2d(ctx, model, raw, cache, ni, nj, canvas) {
  if (!cache.image || cache.image.width !== ni || cache.image.height !== nj) {
    cache.image = new ImageData(ni, nj);
    cache.off = new OffscreenCanvas(ni, nj);
  }
  colourPixels(model, raw, new Uint32Array(cache.image.data.buffer), ni, nj);
  cache.off.getContext("2d").putImageData(cache.image, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(cache.off, 0, 0, canvas.width, canvas.height);
}

function paintInactive(ctx, mask, cache, ni, nj, at, canvas) {
  // the inactive elements in grey, scaled like the picture, hatched only where they are
  if (!cache.mask || cache.mask.width !== ni || cache.mask.height !== nj) {
    cache.mask = new ImageData(ni, nj);
    cache.maskOff = new OffscreenCanvas(ni, nj);
  }
  const px = new Uint32Array(cache.mask.data.buffer);
  const grey = new Uint32Array(new Uint8ClampedArray([...INACTIVE_RGB, 255]).buffer)[0];
  for (let i = 0; i < ni; i++) {
    for (let j = 0; j < nj; j++) px[(nj - 1 - j) * ni + i] = mask[at(i, j)] ? 0 : grey;
  }
  cache.maskOff.getContext("2d").putImageData(cache.mask, 0, 0);
  const w = canvas.width, hgt = canvas.height;
  if (!cache.layer || cache.layer.width !== w || cache.layer.height !== hgt) cache.layer = new OffscreenCanvas(w, hgt);
  const layer = cache.layer.getContext("2d");
  layer.globalCompositeOperation = "source-over";
  layer.clearRect(0, 0, w, hgt);
  layer.imageSmoothingEnabled = false;
  layer.drawImage(cache.maskOff, 0, 0, w, hgt);
  layer.globalCompositeOperation = "source-atop"; // hatch lines land on the grey only
  layer.strokeStyle = HATCH;
  layer.lineWidth = 1;
  layer.beginPath();
  for (let d = -hgt; d < w; d += 6) {
    layer.moveTo(d, hgt);
    layer.lineTo(d + hgt, 0);
  }
  layer.stroke();
  ctx.drawImage(cache.layer, 0, 0);
}

function planeBlocks(model) {
  // each sparse level's block size along the picture's two axes
  const blocks = model.get("blocks");
  if (model.get("shape").length !== 3) return blocks;
  const [a, b] = [0, 1, 2].filter((x) => x !== model.get("slice_axis"));
  return blocks.map((block) => [block[a], block[b]]);
}

function paintBlocks(ctx, blocks, ni, nj, canvas) {
  // grid lines at block boundaries, thicker for outer levels
  const sx = canvas.width / ni, sy = canvas.height / nj;
  blocks.forEach(([bi, bj], level) => {
    ctx.strokeStyle = "rgba(255,255,255,0.7)";
    ctx.lineWidth = level < blocks.length - 1 ? 2 : 1;
    ctx.beginPath();
    for (let i = bi; i < ni; i += bi) {
      ctx.moveTo(Math.round(i * sx) + 0.5, 0);
      ctx.lineTo(Math.round(i * sx) + 0.5, canvas.height);
    }
    for (let j = bj; j < nj; j += bj) {
      const y = Math.round(canvas.height - j * sy) + 0.5;
      ctx.moveTo(0, y);
      ctx.lineTo(canvas.width, y);
    }
    ctx.stroke();
  });
}

function paintArrows(ctx, model, ni, nj, canvas) {
  const [rows, cols, step] = model.get("arrow_shape");
  const dv = model.get("arrows");
  if (!rows || !dv || dv.byteLength === 0) return;
  const uv = new Float32Array(dv.buffer.slice(dv.byteOffset, dv.byteOffset + dv.byteLength));
  const sx = canvas.width / ni, sy = canvas.height / nj, len = 0.45 * step * Math.min(sx, sy);
  ctx.lineWidth = 1.3;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const u = uv[2 * (r * cols + c)], v = uv[2 * (r * cols + c) + 1];
      const x = (Math.floor(step / 2) + r * step + 0.5) * sx, y = canvas.height - (Math.floor(step / 2) + c * step + 0.5) * sy;
      const dx = u * len, dy = -v * len;
      if (Math.hypot(dx, dy) < 0.5) continue;
      for (const [style, width] of [["rgba(0,0,0,0.55)", 3], ["rgba(255,255,255,0.95)", 1.3]]) {
        ctx.strokeStyle = style;
        ctx.lineWidth = width;
        ctx.beginPath();
        ctx.moveTo(x - dx, y - dy);
        ctx.lineTo(x + dx, y + dy);
        const a = Math.atan2(dy, dx), head = Math.min(5, 0.45 * Math.hypot(dx, dy));
        ctx.lineTo(x + dx - head * Math.cos(a - 0.5), y + dy - head * Math.sin(a - 0.5));
        ctx.moveTo(x + dx, y + dy);
        ctx.lineTo(x + dx - head * Math.cos(a + 0.5), y + dy - head * Math.sin(a + 0.5));
        ctx.stroke();
      }
    }
  }
}

// --- 1D ------------------------------------------------------------------------------------

function paintLine(canvas, model, raw) {
  const n = model.get("shape")[0];
  canvas.width = MAX_SIDE + 80;
  canvas.height = 220;
  const ctx = canvas.getContext("2d");
  const pad = { l: 8, r: 8, t: 12, b: 14 }, w = canvas.width - pad.l - pad.r, hgt = canvas.height - pad.t - pad.b;
  const lo = model.get("vmin"), hi = model.get("vmax") > lo ? model.get("vmax") : lo + 1;
  const X = (i) => pad.l + (n > 1 ? (i * w) / (n - 1) : w / 2);
  const Y = (v) => pad.t + hgt - ((v - lo) * hgt) / (hi - lo);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const mask = activeMask(model);
  if (mask) paintLineActivity(ctx, model, mask, X, pad.t, hgt);
  ctx.strokeStyle = "rgba(128,128,128,0.25)";
  for (let g = 0; g <= 4; g++) {
    ctx.beginPath();
    ctx.moveTo(pad.l, pad.t + (g * hgt) / 4);
    ctx.lineTo(pad.l + w, pad.t + (g * hgt) / 4);
    ctx.stroke();
  }
  ctx.strokeStyle = "#2f74d0";
  ctx.lineWidth = 1.6;
  ctx.beginPath();
  let open = false;
  for (let i = 0; i < n; i++) {
    const v = valueAt(model, raw, i);
    if (!Number.isFinite(v)) {
      ctx.fillStyle = Number.isNaN(v) ? `rgb(${NAN_RGB})` : `rgb(${INF_RGB})`;
      ctx.fillRect(X(i) - 2, v === -Infinity ? pad.t + hgt - 2 : pad.t - 4, 4, 6);
      open = false;
      continue;
    }
    if (open) ctx.lineTo(X(i), Y(v));
    else ctx.moveTo(X(i), Y(v));
    open = true;
  }
  ctx.stroke();
  return { X, n, w, pad };
}

function paintLineActivity(ctx, model, mask, X, top, hgt) {
  // grey bands over inactive elements, and a line at each block boundary
  const n = mask.length, half = n > 1 ? (X(1) - X(0)) / 2 : 4;
  ctx.fillStyle = `rgb(${INACTIVE_RGB})`;
  for (let i = 0; i < n; i++) {
    if (!mask[i]) ctx.fillRect(X(i) - half, top, 2 * half, hgt);
  }
  if (!model.get("show_blocks")) return;
  ctx.strokeStyle = HATCH;
  ctx.lineWidth = 1;
  for (const [b] of model.get("blocks")) {
    ctx.beginPath();
    for (let i = b; i < n; i += b) {
      ctx.moveTo(Math.round(X(i) - half) + 0.5, top);
      ctx.lineTo(Math.round(X(i) - half) + 0.5, top + hgt);
    }
    ctx.stroke();
  }
}

// --- colour bar, statistics, tooltip ------------------------------------------------------

function paintColorbar(bar, labels, model, height) {
  const mid = (model.get("vmin") + model.get("vmax")) / 2;
  const tiny = Math.abs(mid) < 1e-4 * Math.max(1e-30, model.get("vmax") - model.get("vmin"));
  labels.replaceChildren(h("span", "", fmt(model.get("vmax"))), h("span", "", tiny ? "0" : fmt(mid)), h("span", "", fmt(model.get("vmin"))));
  const key = model.get("cmap") + ":" + height;
  if (bar.dataset.key === key) return;
  bar.dataset.key = key;
  bar.width = 14;
  bar.height = height;
  const colours = palette(model), ctx = bar.getContext("2d");
  const px = new Uint8ClampedArray(new Uint32Array(colours).buffer);
  for (let y = 0; y < height; y++) {
    const c = Math.round(((height - 1 - y) * LEVELS) / Math.max(1, height - 1));
    ctx.fillStyle = `rgb(${px[4 * c]},${px[4 * c + 1]},${px[4 * c + 2]})`;
    ctx.fillRect(0, y, 14, 1);
  }
}

function paintStats(box, model, fps) {
  box.replaceChildren();
  const row = (k, v, cls) => {
    box.append(h("span", "k", k));
    const value = box.appendChild(h("span", cls || "", v));
    return value;
  };
  row("shape", model.get("shape").join(" × ") + (model.get("vector") ? " (vector → |v|)" : ""));
  row("min", fmt(model.get("vmin")));
  row("max", fmt(model.get("vmax")));
  row("mean", fmt(model.get("mean")));
  const nan = row("NaN", String(model.get("nan_count")), model.get("nan_count") ? "bad ti-nan" : "ti-nan");
  nan.prepend(swatch(NAN_RGB));
  const inf = row("Inf", String(model.get("inf_count")), model.get("inf_count") ? "bad ti-inf" : "ti-inf");
  inf.prepend(swatch(INF_RGB));
  if (model.get("activity")) row("active", model.get("activity"), "ti-active").prepend(swatch(INACTIVE_RGB, "inactive"));
  if (model.get("lengths")) row("lengths", model.get("lengths"), "ti-lengths");
  row("frame", `${model.get("frame")}` + (fps ? ` · ${fps.toFixed(0)} fps` : ""));
}

function swatch(rgb, title) {
  const s = h("span", "ti-swatch");
  if (title) s.title = title;
  s.style.background = `rgb(${rgb})`;
  return s;
}

// --- wiring --------------------------------------------------------------------------------

function toolbar(el, model, state, redraw) {
  const bar = el.appendChild(h("div", "ti-bar"));
  bar.append(h("span", "ti-title ti-field-title", model.get("title")));
  const cmap = bar.appendChild(h("select", "ti-cmap"));
  for (const name of model.get("cmaps")) cmap.appendChild(h("option", "", name)).value = name;
  cmap.value = model.get("cmap");
  cmap.onchange = () => {
    model.set("cmap", cmap.value);
    model.save_changes();
  };
  const arrows = h("label", "ti-muted");
  const box = arrows.appendChild(h("input"));
  box.type = "checkbox";
  box.checked = model.get("show_arrows");
  arrows.append(" arrows");
  box.onchange = () => {
    model.set("show_arrows", box.checked);
    model.save_changes();
  };
  if (model.get("vector")) bar.append(arrows);
  const blocks = bar.appendChild(h("label", "ti-muted ti-blocks"));
  const grid = blocks.appendChild(h("input"));
  grid.type = "checkbox";
  grid.checked = model.get("show_blocks");
  blocks.append(" blocks");
  grid.onchange = () => {
    model.set("show_blocks", grid.checked);
    model.save_changes();
  };
  const slice = bar.appendChild(h("span", "ti-slice"));
  bar.append(h("span", "ti-spacer"));
  const status = bar.appendChild(h("span", "ti-paused"));
  const pause = bar.appendChild(h("button", "ti-pause", "Pause"));
  pause.onclick = () => {
    state.paused = !state.paused;
    pause.textContent = state.paused ? "Resume" : "Pause";
    status.textContent = state.paused ? "paused" : "";
    el.dataset.paused = state.paused ? "1" : "0";
    model.set("paused", state.paused);
    model.save_changes();
    if (!state.paused) redraw();
  };
  return { bar, cmap, slice, blocks };
}

function paintSlice(span, model, redraw) {
  const shape = model.get("shape");
  span.replaceChildren();
  if (shape.length !== 3) return;
  const axis = span.appendChild(h("select", "ti-axis"));
  ["i", "j", "k"].forEach((name, a) => (axis.appendChild(h("option", "", `${name} =`)).value = String(a)));
  axis.value = String(model.get("slice_axis"));
  const slider = span.appendChild(h("input", "ti-slider"));
  slider.type = "range";
  slider.min = "0";
  slider.max = String(shape[model.get("slice_axis")] - 1);
  slider.value = String(model.get("slice_index"));
  const label = span.appendChild(h("span", "ti-muted", slider.value));
  const set = (name, value) => {
    model.set(name, value);
    model.save_changes();
    redraw();
  };
  axis.onchange = () => set("slice_axis", Number(axis.value));
  slider.oninput = () => {
    label.textContent = slider.value;
    set("slice_index", Number(slider.value));
  };
}

function cellAt(event, canvas, model) {
  // the element under the mouse: {index: its indices, k: its place in the frame's data}
  const rect = canvas.getBoundingClientRect();
  const x = event.clientX - rect.left, y = event.clientY - rect.top;
  if (model.get("shape").length === 1) {
    const n = model.get("shape")[0];
    const i = Math.round(((x - 8) / (canvas.width - 16)) * (n - 1));
    return i < 0 || i >= n ? null : { index: [i], k: i, x, y };
  }
  const [ni, nj, at] = plane(model);
  const i = Math.floor((x / rect.width) * ni), j = nj - 1 - Math.floor((y / rect.height) * nj);
  if (i < 0 || i >= ni || j < 0 || j >= nj) return null;
  const index = model.get("shape").length === 3 ? sliceIndex(model, i, j) : [i, j];
  return { index, k: at(i, j), x, y };
}

function hover(event, canvas, model, state, tip) {
  const raw = state.raw;
  if (!raw) return;
  const cell = cellAt(event, canvas, model);
  if (!cell) return (tip.style.display = "none");
  const name = model.get("title").split(" ")[0] || "x";
  const sign = model.get("encoding") === "u8" ? "≈" : "=";
  const v = valueAt(model, raw, cell.k);
  let text = `${name}[${cell.index.join(", ")}] ${sign} ${fmt(v)}`;
  if (activeMask(model) && !activeMask(model)[cell.k]) text += " (inactive)";
  if (!Number.isFinite(v) && model.get("explainable")) text += " · click: where from?";
  tip.textContent = text;
  tip.style.display = "block";
  tip.style.left = `${cell.x}px`;
  tip.style.top = `${cell.y}px`;
}

function explainClick(event, canvas, model, state) {
  // a click on a NaN or Inf element asks the kernel side which line made it (explain_nan)
  const cell = state.raw && model.get("explainable") && cellAt(event, canvas, model);
  if (!cell || Number.isFinite(valueAt(model, state.raw, cell.k))) return;
  model.send({ explain: cell.index });
}

function paintExplanation(box, model) {
  const e = model.get("explanation");
  box.replaceChildren();
  box.style.display = e && e.cell ? "" : "none";
  if (!e || !e.cell) return;
  box.append(h("div", "ti-explain-head", `${model.get("title").split(" ")[0]}[${e.cell.join(", ")}]`));
  if (e.error) return box.append(h("div", "ti-muted", e.error));
  if (!e.found) return box.append(h("div", "ti-muted", e.verdict));
  box.append(h("div", "ti-explain-where", `${e.file}:${e.line} (kernel ${e.kernel})`));
  box.append(h("code", "ti-explain-expr", e.expression));
  box.append(h("div", "ti-explain-op", e.operation));
}

function sliceIndex(model, i, j) {
  const axis = model.get("slice_axis"), idx = [0, 0, 0];
  const [a, b] = [0, 1, 2].filter((x) => x !== axis);
  idx[axis] = model.get("slice_index");
  idx[a] = i;
  idx[b] = j;
  return idx;
}

export default {
  render({ model, el }) {
    el.classList.add("tistudio", "tistudio-field");
    el.dataset.frame = "0";
    el.dataset.painted = "0";
    const state = { paused: false, raw: null, pending: false, painted: 0, times: [], cache: {} };
    const body = h("div", "ti-body");
    const redraw = () => {
      if (!state.pending) {
        state.pending = true;
        requestAnimationFrame(draw);
      }
    };
    const tools = toolbar(el, model, state, redraw);
    el.append(body);
    const plot = body.appendChild(h("div", "ti-plot"));
    const glCanvas = plot.appendChild(h("canvas", "ti-gl"));
    glCanvas.style.cssText = "position:absolute;left:0;top:0;pointer-events:none;display:none";
    const canvas = plot.appendChild(h("canvas", "ti-canvas"));
    canvas.style.position = "relative"; // above the WebGL picture
    state.cache.gl = makeGl(glCanvas);
    if (!state.cache.gl) glCanvas.remove();
    el.dataset.renderer = state.cache.gl ? "webgl2" : "2d";
    const tip = plot.appendChild(h("div", "ti-tip"));
    const cbar = body.appendChild(h("div", "ti-cbar"));
    const bar = cbar.appendChild(h("canvas", "ti-colorbar"));
    const labels = cbar.appendChild(h("div", "ti-cbar-labels"));
    const stats = body.appendChild(h("div", "ti-stats"));
    const explanation = el.appendChild(h("div", "ti-explain"));
    function draw() {
      state.pending = false;
      state.raw = values(model);
      if (!state.raw) return;
      const oneD = model.get("shape").length === 1;
      if (oneD) paintLine(canvas, model, state.raw);
      else paintHeat(canvas, model, state.raw, state.cache);
      if (oneD) showGl(canvas, state.cache.gl, false);
      cbar.style.display = oneD ? "none" : "";
      tools.cmap.style.display = oneD ? "none" : "";
      tools.blocks.style.display = model.get("blocks").length ? "" : "none";
      if (!oneD) paintColorbar(bar, labels, model, canvas.height);
      const now = performance.now();
      state.times = [...state.times.filter((t) => now - t < 1000), now];
      paintStats(stats, model, state.times.length > 2 ? state.times.length : 0);
      tools.cmap.value = model.get("cmap");
      el.dataset.frame = String(model.get("frame"));
      el.dataset.painted = String(++state.painted);
      el.dataset.nan = String(model.get("nan_count"));
      el.dataset.sparse = activeMask(model) ? "1" : "0";
    }
    const onFrame = () => {
      if (!state.paused) redraw();
    };
    const onShape = () => paintSlice(tools.slice, model, redraw);
    const onExplained = () => paintExplanation(explanation, model);
    const onMessage = (msg) => {
      const finish = () => state.cache.gl && glWait(state.cache.gl);
      if (msg && msg.measure_draw) measureDraw(el, model, draw, finish, msg.measure_draw);
    };
    model.on("change:explanation", onExplained);
    model.on("msg:custom", onMessage);
    canvas.addEventListener("click", (e) => explainClick(e, canvas, model, state));
    model.on("change:frame", onFrame);
    model.on("change:cmap", redraw);
    model.on("change:show_arrows", redraw);
    model.on("change:show_blocks", redraw);
    model.on("change:shape", onShape);
    canvas.addEventListener("mousemove", (e) => hover(e, canvas, model, state, tip));
    canvas.addEventListener("mouseleave", () => (tip.style.display = "none"));
    onShape();
    onExplained();
    draw();
    el.dataset.ready = "1";
    return () => {
      model.off("change:frame", onFrame);
      model.off("change:cmap", redraw);
      model.off("change:show_arrows", redraw);
      model.off("change:show_blocks", redraw);
      model.off("change:shape", onShape);
      model.off("change:explanation", onExplained);
      model.off("msg:custom", onMessage);
    };
  },
};

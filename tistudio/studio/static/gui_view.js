// gui_view.js: a Taichi GUI's window under the cell. Frames arrive as custom messages with one
// binary buffer (raw RGB rows, top row first, or a JPEG) and are acknowledged once drawn, which
// is the kernel's flow control (gui_view.py). The canvas keeps the GUI's resolution and is
// scaled by CSS; input (keys with Taichi's names, mouse buttons, motion, wheel) goes back as
// "event" messages with positions as fractions of the picture, y up. Controls are plain HTML
// beside the canvas. Plain ES module, no dependencies.

const BUTTONS = ["LMB", "MMB", "RMB"];
const KEYS = {
  Enter: "Return", Backspace: "BackSpace", ArrowUp: "Up", ArrowDown: "Down",
  ArrowLeft: "Left", ArrowRight: "Right", CapsLock: "Caps_Lock", Meta: "Super",
  Escape: "Escape", Tab: "Tab", Shift: "Shift", Control: "Control", Alt: "Alt", " ": " ",
};

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

// Taichi's key name: letters lower-case whatever Shift says, digits as digits, named keys
// as in ti.GUI (ESCAPE == "Escape", SPACE == " ", LEFT == "Left", ...).
function keyName(e) {
  if (e.code && e.code.startsWith("Key")) return e.code.slice(3).toLowerCase();
  if (e.code && e.code.startsWith("Digit")) return e.code.slice(5);
  if (e.key in KEYS) return KEYS[e.key];
  return e.key.length === 1 ? e.key.toLowerCase() : e.key;
}

function modifiers(e) {
  const held = [];
  if (e.shiftKey) held.push("Shift");
  if (e.ctrlKey) held.push("Control");
  if (e.altKey) held.push("Alt");
  if (e.metaKey) held.push("Super");
  return held;
}

function position(canvas, e) {
  // pixel-exact: through the canvas's box on screen, whatever CSS scaling it has
  const r = canvas.getBoundingClientRect();
  const clamp = (v) => Math.min(1, Math.max(0, v));
  return [clamp((e.clientX - r.left) / r.width), clamp(1 - (e.clientY - r.top) / r.height)];
}

// --- drawing -----------------------------------------------------------------------------

function paintRGB(canvas, state, bytes, width, height) {
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
    state.image = null;
  }
  if (!state.image) {
    state.image = state.ctx.createImageData(width, height);
    state.words = new Uint32Array(state.image.data.buffer);
  }
  const out = state.words, n = width * height;
  // little-endian RGBA in one 32-bit word per pixel
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    out[i] = 0xff000000 | (bytes[j + 2] << 16) | (bytes[j + 1] << 8) | bytes[j];
  }
  state.ctx.putImageData(state.image, 0, 0);
}

function decode(view, type) {
  return createImageBitmap(new Blob([view], { type }));
}

function paintBitmap(canvas, state, bitmap, width, height) {
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
    state.image = null;
  }
  state.ctx.drawImage(bitmap, 0, 0, width, height);
}

function countFrame(el, state, fps) {
  const now = performance.now();
  state.drawn += 1;
  state.times.push(now);
  while (state.times.length && now - state.times[0] > 1000) state.times.shift();
  el.dataset.frames = String(state.drawn);
  el.dataset.lastMs = String(now);
  if (!state.firstMs) el.dataset.firstMs = String((state.firstMs = now));
  if (now - state.fpsShown > 250) {
    state.fpsShown = now;
    fps.textContent = `${state.times.length} frames/s`;
  }
}

// Acknowledgements are cumulative ("every frame up to seq is done") and go out for every
// second frame, or ACK_DELAY_MS after a lone one: half the messages back through the server
// and the kernel, which on a busy machine is time the frames themselves need.
const ACK_EVERY = 2;
const ACK_DELAY_MS = 15;

function acknowledge(model, state, seq) {
  state.ackUpto = Math.max(state.ackUpto, seq);
  state.ackPending += 1;
  const flush = () => {
    clearTimeout(state.ackTimer);
    state.ackTimer = 0;
    state.ackPending = 0;
    model.send({ type: "ack", upto: state.ackUpto });
  };
  if (state.ackPending >= ACK_EVERY) flush();
  else if (!state.ackTimer) state.ackTimer = setTimeout(flush, ACK_DELAY_MS);
}

function drawSnapshot(canvas, state, model) {
  // the last frame saved with the notebook, until live frames arrive
  const png = model.get("snapshot");
  if (state.drawn || !png || png.byteLength === 0) return;
  const bytes = new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
  createImageBitmap(new Blob([bytes], { type: "image/png" })).then((bitmap) => {
    if (state.drawn) return;
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    state.image = null;
    state.ctx.drawImage(bitmap, 0, 0);
  });
}

// --- controls ----------------------------------------------------------------------------

function hexOf(value) {
  if (typeof value === "string") return value;
  const rgb = (value || [0, 0, 0]).slice(0, 3);
  const byte = (v) => Math.round(Math.min(1, Math.max(0, v)) * 255).toString(16).padStart(2, "0");
  return "#" + rgb.map(byte).join("");
}

function rgbOf(hex) {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
}

function controlInput(c, send) {
  const row = h("label", "ti-gui-control");
  row.dataset.label = c.label;
  const name = h("span", "ti-gui-name", c.label);
  let input = null;
  if (c.kind === "label") {
    row.append(name, h("span", "ti-gui-value", String(c.value ?? "")));
    return row;
  }
  if (c.kind === "button") {
    input = h("button", "ti-gui-button", c.label);
    input.addEventListener("click", () => send(c, true));
    row.append(input);
    return row;
  }
  input = document.createElement("input");
  if (c.kind === "slider" || c.kind === "slider_int") {
    input.type = "range";
    input.min = String(c.minimum ?? 0);
    input.max = String(c.maximum ?? 1);
    input.step = String(c.step ?? (c.kind === "slider_int" ? 1 : "any"));
    input.value = String(c.value ?? 0);
    const shown = h("span", "ti-gui-value", String(c.value ?? ""));
    input.addEventListener("input", () => {
      shown.textContent = input.value;
      send(c, c.kind === "slider_int" ? parseInt(input.value, 10) : parseFloat(input.value));
    });
    row.append(name, input, shown);
  } else if (c.kind === "checkbox") {
    input.type = "checkbox";
    input.checked = Boolean(c.value);
    input.addEventListener("change", () => send(c, input.checked));
    row.append(input, name);
  } else if (c.kind === "color") {
    input.type = "color";
    input.value = hexOf(c.value);
    input.addEventListener("input", () =>
      send(c, typeof c.value === "string" ? input.value : rgbOf(input.value)));
    row.append(name, input);
  } else {
    input.type = "text";
    input.value = String(c.value ?? "");
    input.addEventListener("change", () => send(c, input.value));
    row.append(name, input);
  }
  return row;
}

function paintControls(panel, model, state, send) {
  const controls = model.get("controls");
  const shape = JSON.stringify(controls.map((c) => [c.kind, c.label, c.window, c.minimum, c.maximum]));
  if (shape === state.controlShape) {
    // same controls: show new values, except in an input the user is working with
    for (const c of controls) {
      const row = panel.querySelector(`[data-label="${CSS.escape(c.label)}"]`);
      const input = row && row.querySelector("input");
      if (input && document.activeElement !== input) {
        if (input.type === "checkbox") input.checked = Boolean(c.value);
        else if (input.type === "color") input.value = hexOf(c.value);
        else input.value = String(c.value ?? "");
      } else if (row && c.kind === "label") {
        row.querySelector(".ti-gui-value").textContent = String(c.value ?? "");
      }
    }
    return;
  }
  state.controlShape = shape;
  panel.replaceChildren();
  const groups = new Map();
  for (const c of controls) {
    if (!groups.has(c.window)) {
      const group = panel.appendChild(h("fieldset", "ti-gui-group"));
      if (c.window) group.append(h("legend", "", c.window));
      groups.set(c.window, group);
    }
    groups.get(c.window).append(controlInput(c, send));
  }
  panel.style.display = controls.length ? "" : "none";
}

// --- wiring ------------------------------------------------------------------------------

function listenInput(canvas, emit) {
  let moved = null;
  const down = new Set();
  const onKey = (kind) => (e) => {
    e.preventDefault();
    e.stopPropagation(); // JupyterLab's shortcuts must not see keys meant for the GUI
    if (kind === "press" && e.repeat) return;
    emit({ kind, key: keyName(e), modifiers: modifiers(e) });
  };
  canvas.addEventListener("keydown", onKey("press"));
  canvas.addEventListener("keyup", onKey("release"));
  canvas.addEventListener("pointerdown", (e) => {
    canvas.focus();
    canvas.setPointerCapture(e.pointerId);
    down.add(e.button);
    const [x, y] = position(canvas, e);
    emit({ kind: "press", key: BUTTONS[e.button] || "LMB", x, y, modifiers: modifiers(e) });
    e.preventDefault();
  });
  canvas.addEventListener("pointerup", (e) => {
    if (!down.delete(e.button)) return;
    const [x, y] = position(canvas, e);
    emit({ kind: "release", key: BUTTONS[e.button] || "LMB", x, y, modifiers: modifiers(e) });
  });
  canvas.addEventListener("pointermove", (e) => {
    // throttled to animation frames: one motion event per frame at most, the latest position
    if (moved === null) {
      requestAnimationFrame(() => {
        const [x, y] = position(canvas, moved);
        emit({ kind: "motion", x, y, modifiers: modifiers(moved) });
        moved = null;
      });
    }
    moved = e;
  });
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const scale = e.deltaMode === 0 ? 1 / 100 : e.deltaMode === 1 ? 1 / 3 : 1;
    const [x, y] = position(canvas, e);
    emit({ kind: "wheel", x, y, delta: [-e.deltaX * scale, -e.deltaY * scale], modifiers: modifiers(e) });
  }, { passive: false });
  canvas.addEventListener("contextmenu", (e) => e.preventDefault());
}

export default {
  render({ model, el }) {
    el.classList.add("tistudio-gui");
    el.dataset.frames = "0";
    el.setAttribute("data-lm-suppress-shortcuts", "true");
    const bar = el.appendChild(h("div", "ti-gui-bar"));
    const title = bar.appendChild(h("span", "ti-gui-title", model.get("title") || "Taichi GUI"));
    const fps = bar.appendChild(h("span", "ti-gui-fps", ""));
    const close = bar.appendChild(h("button", "ti-gui-close", "×"));
    close.title = "Close the GUI (ends the loop)";
    const body = el.appendChild(h("div", "ti-gui-body"));
    const canvas = body.appendChild(h("canvas", "ti-gui-canvas"));
    canvas.tabIndex = 0;
    canvas.width = model.get("width") || 1;
    canvas.height = model.get("height") || 1;
    canvas.style.aspectRatio = `${canvas.width} / ${canvas.height}`;
    canvas.style.maxWidth = `${Math.max(canvas.width, 320)}px`;
    const panel = body.appendChild(h("div", "ti-gui-panel"));
    const state = { ctx: canvas.getContext("2d"), image: null, words: null, drawn: 0, times: [],
      fpsShown: 0, firstMs: 0, controlShape: null, drawMs: 0, seq: 0,
      ackUpto: 0, ackPending: 0, ackTimer: 0 };

    const emit = (event) => {
      if (!model.get("is_closed")) model.send({ type: "event", ...event });
    };
    const sendControl = (c, value) =>
      emit({ kind: "control", key: c.label, value, window: c.window || "" });
    listenInput(canvas, emit);
    close.addEventListener("click", () => {
      emit({ kind: "close" });
      el.classList.add("ti-gui-closed");
    });

    const onMessage = (msg, buffers) => {
      if (!msg || msg.type !== "frame" || !buffers || !buffers.length) return;
      const view = buffers[0];
      const ack = () => {
        countFrame(el, state, fps);
        acknowledge(model, state, msg.seq);
      };
      const start = performance.now();
      const timed = () => {
        state.drawMs += 0.1 * (performance.now() - start - state.drawMs);
        el.dataset.drawMs = state.drawMs.toFixed(2);
      };
      if (msg.encoding === "rgb") {
        const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
        state.seq = msg.seq;
        paintRGB(canvas, state, bytes, msg.width, msg.height);
        timed();
        ack();
      } else {
        // decoded off the main thread; a frame that finishes after a newer one is not drawn
        const type = `image/${msg.encoding}`;
        decode(view, type).then((bitmap) => {
          if (msg.seq > state.seq) {
            state.seq = msg.seq;
            paintBitmap(canvas, state, bitmap, msg.width, msg.height);
            timed();
          }
          bitmap.close();
          ack();
        }, ack);
      }
    };
    const onControls = () => paintControls(panel, model, state, sendControl);
    const onTitle = () => (title.textContent = model.get("title"));
    const onClosed = () => el.classList.toggle("ti-gui-closed", model.get("is_closed"));
    const onSnapshot = () => drawSnapshot(canvas, state, model);
    model.on("msg:custom", onMessage);
    model.on("change:controls", onControls);
    model.on("change:title", onTitle);
    model.on("change:is_closed", onClosed);
    model.on("change:snapshot", onSnapshot);
    onControls();
    onClosed();
    onSnapshot();
    el.dataset.ready = "1";
    return () => {
      model.off("msg:custom", onMessage);
      model.off("change:controls", onControls);
      model.off("change:title", onTitle);
      model.off("change:is_closed", onClosed);
      model.off("change:snapshot", onSnapshot);
    };
  },
};

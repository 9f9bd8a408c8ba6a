// field_gl.js: the field viewer's heat map of a quantised (big) frame drawn by WebGL2. The
// frame's u8 codes (frames.py) go to the GPU as they arrived, one byte per element, in a
// texture; a 256-entry colour table (the colour map, then the NaN and Inf colours) is a second
// texture, and a fragment shader looks each screen pixel's element up in both. The CPU never
// touches the elements of a 2D frame: on a 2048x2048 field the 2D canvas spent ~70 ms a frame
// colouring 4 M pixels in JavaScript and copying 16 MB through putImageData. Slices of volumes
// become codes in JavaScript first. The WebGL canvas lies under field_view.js's 2D canvas,
// which draws the overlays and takes the mouse; field_view.js calls makeGl/drawGl and keeps the
// 2D colouring for exact f32 frames and where the browser has no WebGL2.

const GL_VERTEX = `#version 300 es
in vec2 corner;
out vec2 uv;
void main() { uv = corner * 0.5 + 0.5; gl_Position = vec4(corner, 0.0, 1.0); }`;

// element (i, j) at i to the right, j up; the codes texture holds row i, column j
const GL_FRAGMENT = `#version 300 es
precision highp float;
precision highp usampler2D;
uniform usampler2D codes;
uniform sampler2D lut;
uniform ivec2 size;
in vec2 uv;
out vec4 colour;
void main() {
  int i = min(int(uv.x * float(size.x)), size.x - 1);
  int j = min(int(uv.y * float(size.y)), size.y - 1);
  uint c = texelFetch(codes, ivec2(j, i), 0).r;
  colour = texelFetch(lut, ivec2(int(c), 0), 0);
}`;

function glShader(gl, kind, source) {
  const shader = gl.createShader(kind);
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(shader));
  return shader;
}

function glTexture(gl, unit) {
  const texture = gl.createTexture();
  gl.activeTexture(gl.TEXTURE0 + unit);
  gl.bindTexture(gl.TEXTURE_2D, texture);
  for (const p of [gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER]) gl.texParameteri(gl.TEXTURE_2D, p, gl.NEAREST);
  for (const p of [gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T]) gl.texParameteri(gl.TEXTURE_2D, p, gl.CLAMP_TO_EDGE);
  return texture;
}

function makeGl(canvas) {
  // the WebGL2 state of one viewer, or null where the browser has no WebGL2
  const gl = canvas.getContext("webgl2", { preserveDrawingBuffer: true, antialias: false });
  if (!gl) return null;
  try {
    const program = gl.createProgram();
    gl.attachShader(program, glShader(gl, gl.VERTEX_SHADER, GL_VERTEX));
    gl.attachShader(program, glShader(gl, gl.FRAGMENT_SHADER, GL_FRAGMENT));
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program));
    gl.useProgram(program);
    gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
    const corner = gl.getAttribLocation(program, "corner");
    gl.enableVertexAttribArray(corner);
    gl.vertexAttribPointer(corner, 2, gl.FLOAT, false, 0, 0);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    const state = { gl, program, codes: glTexture(gl, 0), lut: glTexture(gl, 1), size: [0, 0], lutOf: null };
    state.pixel = new Uint8Array(4);
    gl.uniform1i(gl.getUniformLocation(program, "codes"), 0);
    gl.uniform1i(gl.getUniformLocation(program, "lut"), 1);
    state.sizeAt = gl.getUniformLocation(program, "size");
    state.maxSide = gl.getParameter(gl.MAX_TEXTURE_SIZE);
    return state;
  } catch (e) {
    console.warn("tistudio field viewer: WebGL2 unusable, drawing on a 2D canvas", e);
    return null;
  }
}

function drawGl(state, codes, colours, ni, nj, width, height) {
  // draw codes[i * nj + j] through the colour table `colours` (256 RGBA as Uint32Array);
  // false when the picture is larger than a texture may be
  const gl = state.gl;
  if (ni > state.maxSide || nj > state.maxSide) return false;
  if (gl.canvas.width !== width || gl.canvas.height !== height) {
    gl.canvas.width = width;
    gl.canvas.height = height;
  }
  gl.viewport(0, 0, width, height);
  gl.activeTexture(gl.TEXTURE1);
  gl.bindTexture(gl.TEXTURE_2D, state.lut);
  if (state.lutOf !== colours) {
    const rgba = new Uint8Array(colours.buffer, colours.byteOffset, 1024);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, 256, 1, 0, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
    state.lutOf = colours;
  }
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, state.codes);
  if (state.size[0] !== ni || state.size[1] !== nj) {
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.R8UI, nj, ni, 0, gl.RED_INTEGER, gl.UNSIGNED_BYTE, codes);
    state.size = [ni, nj];
    gl.uniform2i(state.sizeAt, ni, nj);
  } else {
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, nj, ni, gl.RED_INTEGER, gl.UNSIGNED_BYTE, codes);
  }
  gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
  return true;
}

function glWait(state) {
  // wait for the GPU to finish the picture: reading a pixel back cannot be answered earlier
  // (gl.finish() may return at once)
  state.gl.readPixels(0, 0, 1, 1, state.gl.RGBA, state.gl.UNSIGNED_BYTE, state.pixel);
}

function measureDraw(el, model, draw, finish, seconds) {
  // the viewer's drawing rate, redrawing the frame on screen as if each were new: first once
  // per animation frame for half the time (what the screen shows, at most its refresh rate),
  // then back to back, each draw waited for to its last pixel (glWait: what one frame costs;
  // at most 240 draws, which the compositor still has to take in afterwards)
  let start = performance.now(), frames = 0;
  const step = () => {
    draw();
    frames++;
    const elapsed = performance.now() - start;
    if (elapsed < (seconds * 1000) / 2) return requestAnimationFrame(step);
    const paced = (frames * 1000) / elapsed;
    start = performance.now();
    frames = 0;
    while (performance.now() - start < (seconds * 1000) / 2 && frames < 240) {
      draw();
      finish();
      frames++;
    }
    const capacity = (frames * 1000) / (performance.now() - start);
    el.dataset.drawFps = capacity.toFixed(1);
    el.dataset.pacedFps = paced.toFixed(1);
    model.send({ draw_fps: capacity, paced_fps: paced });
  };
  requestAnimationFrame(step);
}

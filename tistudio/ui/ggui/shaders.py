"""The WGSL shaders of GGUI's renderer, one module per kind of drawing.

Every scene and canvas drawing becomes one of four draws: a triangle mesh (`ti.ui` meshes and
`canvas.triangles`), instanced round quads (3-D particles shaded as spheres with their true
depth, or flat 2-D circles), instanced line quads (scene and canvas lines) and a full-window
image (`canvas.set_image`). 2-D drawings use the same shaders as 3-D ones with a matrix that maps
Taichi's [0, 1]² canvas onto clip space, so a 2-D triangle is a mesh seen by a flat camera.

The lighting follows Taichi 1.7.4's GGUI: ambient times the base colour plus, per point light,
Lambert's cosine times base colour times light colour (meshes in world space, particles in camera
space, `two_sided` meshes take the absolute cosine). Depth is reversed (near 1, far 0), as in
Taichi's projection matrices, so the depth test is "greater".
"""

from __future__ import annotations

COMMON = """
struct Frame {
    view: mat4x4f,
    proj: mat4x4f,
    camera_pos: vec4f,
    ambient: vec4f,
    // x: lit (0/1), y: two-sided (0/1), z: line half-width in clip units, w: aspect (w / h)
    params: vec4f,
    // x: tan(fov / 2), y: point-light count, z: 0 sphere / 1 flat disc, w: wireframe (0/1)
    extra: vec4f,
}

struct Light {
    pos: vec4f,
    color: vec4f,
}

@group(0) @binding(0) var<uniform> u: Frame;
@group(0) @binding(1) var<storage, read> lights: array<Light>;

fn lambert(pos: vec3f, normal: vec3f, base: vec3f, two_sided: bool, camera_space: bool) -> vec3f {
    var result = u.ambient.xyz * base;
    let count = u32(u.extra.y);
    let n = normalize(normal);
    for (var i = 0u; i < count; i++) {
        var light_pos = lights[i].pos.xyz;
        if (camera_space) {
            light_pos = (u.view * vec4f(light_pos, 1.0)).xyz;
        }
        let cosine = dot(normalize(light_pos - pos), n);
        var factor = max(cosine, 0.0);
        if (two_sided) {
            factor = abs(cosine);
        }
        result += factor * base * lights[i].color.xyz;
    }
    return result;
}

struct FlatOut {
    @builtin(position) clip: vec4f,
    @location(0) color: vec4f,
}

@fragment
fn fs_flat(v: FlatOut) -> @location(0) vec4f {
    return v.color;
}
"""

MESH = """
struct MeshIn {
    @location(0) pos: vec3f,
    @location(1) normal: vec3f,
    @location(2) color: vec4f,
    @location(3) m0: vec4f,
    @location(4) m1: vec4f,
    @location(5) m2: vec4f,
    @location(6) m3: vec4f,
}

struct MeshOut {
    @builtin(position) clip: vec4f,
    @location(0) world: vec3f,
    @location(1) normal: vec3f,
    @location(2) color: vec4f,
    @location(3) corner: vec3f,
}

@vertex
fn vs_mesh(v: MeshIn, @builtin(vertex_index) index: u32) -> MeshOut {
    let model = mat4x4f(v.m0, v.m1, v.m2, v.m3);
    let world = model * vec4f(v.pos, 1.0);
    var out: MeshOut;
    out.clip = u.proj * u.view * world;
    // lit where the untransformed vertex is, as Taichi 1.7.4 does for mesh instances
    out.world = v.pos;
    out.normal = v.normal;
    out.color = v.color;
    // a wireframe is drawn from unindexed triangles: the corner is the vertex's number mod 3
    var corners = array<vec3f, 3>(vec3f(1.0, 0.0, 0.0), vec3f(0.0, 1.0, 0.0), vec3f(0.0, 0.0, 1.0));
    out.corner = corners[index % 3u];
    return out;
}

@fragment
fn fs_mesh(v: MeshOut) -> @location(0) vec4f {
    // a wireframe keeps the fragments within half a pixel of an edge (Taichi draws lines)
    let edge = v.corner / fwidth(v.corner);
    if (u.extra.w > 0.5 && min(edge.x, min(edge.y, edge.z)) > 0.5) {
        discard;
    }
    if (u.params.x < 0.5) {
        return v.color;
    }
    let rgb = lambert(v.world, v.normal, v.color.xyz, u.params.y > 0.5, false);
    return vec4f(rgb, v.color.a);
}
"""

SPHERES = """
struct SphereOut {
    @builtin(position) clip: vec4f,
    @location(0) cam: vec3f,
    @location(1) corner: vec2f,
    @location(2) radius: f32,
    @location(3) color: vec4f,
}

@vertex
fn vs_sphere(
    @builtin(vertex_index) index: u32,
    @location(0) center: vec3f,
    @location(1) radius: f32,
    @location(2) color: vec4f,
) -> SphereOut {
    var corners = array<vec2f, 6>(
        vec2f(-1.0, 1.0), vec2f(1.0, -1.0), vec2f(-1.0, -1.0),
        vec2f(-1.0, 1.0), vec2f(1.0, 1.0), vec2f(1.0, -1.0),
    );
    let corner = corners[index % 6u];
    let cam = u.view * vec4f(center, 1.0);
    var clip = u.proj * cam;
    var half = vec2f(radius * 2.0 / u.params.w, radius * 2.0);  // a disc: radius in heights
    if (u.extra.z < 0.5) {
        // Taichi's particle size: radius / (tan(fov / 2) * distance), square in pixels
        let h = radius / (u.extra.x * length(center - u.camera_pos.xyz));
        half = vec2f(h, h * u.params.w);
    }
    clip = vec4f(clip.xy + corner * half * clip.w, clip.zw);
    var out: SphereOut;
    out.clip = clip;
    out.cam = cam.xyz / cam.w;
    out.corner = corner;
    out.radius = radius;
    out.color = color;
    return out;
}

struct SphereFragment {
    @location(0) color: vec4f,
    @builtin(frag_depth) depth: f32,
}

@fragment
fn fs_sphere(v: SphereOut) -> SphereFragment {
    let r2 = dot(v.corner, v.corner);
    if (r2 >= 1.0) {
        discard;
    }
    let z = sqrt(1.0 - r2);
    let normal = vec3f(v.corner, z);
    var rgb = v.color.xyz;
    if (u.params.x > 0.5) {
        rgb = lambert(v.cam + normal * v.radius, normal, rgb, false, true);
    }
    let projected = u.proj * vec4f(0.0, 0.0, v.cam.z + z * v.radius, 1.0);
    var out: SphereFragment;
    out.color = vec4f(rgb, v.color.a);
    out.depth = clamp(projected.z / projected.w, 0.0, 1.0);
    return out;
}

@fragment
fn fs_disc(v: SphereOut) -> @location(0) vec4f {
    if (dot(v.corner, v.corner) >= 1.0) {
        discard;
    }
    return v.color;
}
"""

LINES = """
@vertex
fn vs_line(
    @builtin(vertex_index) index: u32,
    @location(0) p0: vec4f,
    @location(1) p1: vec4f,
    @location(2) c0: vec4f,
    @location(3) c1: vec4f,
) -> FlatOut {
    var ends = array<u32, 6>(0u, 1u, 2u, 2u, 1u, 3u);
    let k = ends[index % 6u];
    let a = u.proj * u.view * vec4f(p0.xyz, 1.0);
    let b = u.proj * u.view * vec4f(p1.xyz, 1.0);
    let aspect = vec2f(u.params.w, 1.0);
    let dir = normalize((b.xy / b.w - a.xy / a.w) * aspect);
    let tangent = vec2f(-dir.y, dir.x) * u.params.z / aspect;
    var p = a;
    var out: FlatOut;
    out.color = c0;
    if (k >= 2u) {
        p = b;
        out.color = c1;
    }
    var side = 1.0;
    if (k % 2u == 1u) {
        side = -1.0;
    }
    out.clip = vec4f(p.xy + side * tangent * p.w, p.zw);
    return out;
}
"""

IMAGE = """
@group(0) @binding(0) var image: texture_2d<f32>;
@group(0) @binding(1) var image_sampler: sampler;

struct ImageOut {
    @builtin(position) clip: vec4f,
    @location(0) uv: vec2f,
}

@vertex
fn vs_image(@builtin(vertex_index) index: u32) -> ImageOut {
    // one triangle covering the window; uv is Taichi's (x right, y up) in [0, 1]
    let xy = vec2f(f32((index << 1u) & 2u), f32(index & 2u));
    var out: ImageOut;
    out.clip = vec4f(xy * 2.0 - 1.0, 0.0, 1.0);
    out.uv = xy;
    return out;
}

@fragment
fn fs_image(v: ImageOut) -> @location(0) vec4f {
    return textureSampleLevel(image, image_sampler, v.uv, 0.0);
}
"""

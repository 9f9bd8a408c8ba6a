"""`ti.math` on vectors: the GLSL-like types (`vec2/3/4`, `ivec2/3/4`, `uvec2/3/4`,
`mat2/3/4`), `length`, `normalize`, `distance`, `dot`, `cross`, `mix`, `reflect`, `refract`,
`clamp`, `smoothstep`, `step`, `fract`, `sign`, element-wise `sqrt`/`exp`/`sin`/..., the
constants `pi`, `e`, `inf`, and the rotation and transform helpers.

These are `ti.func`s in Taichi, so they are called from kernels only. Cases with
transcendental functions in f32 allow rtol=1e-5 (a few ulps, as in cases_math.py).
"""


def case_math_vector_types(ti):
    """Constructors of `ti.math` types: from scalars, from one broadcast scalar, from a mix of
    vectors and scalars, from other vectors; int and unsigned vectors; mat2/3/4 literals."""
    ti.init(arch=ti.cpu)
    v2 = ti.math.vec2.field(shape=2)
    v3 = ti.math.vec3.field(shape=3)
    v4 = ti.math.vec4.field(shape=3)
    iv = ti.math.ivec3.field(shape=2)
    uv = ti.math.uvec2.field(shape=2)
    i4 = ti.math.ivec4.field(shape=())
    u4 = ti.math.uvec4.field(shape=())
    m2 = ti.math.mat2.field(shape=())
    m3 = ti.math.mat3.field(shape=())
    m4 = ti.math.mat4.field(shape=())

    @ti.kernel
    def run(k: ti.i32):
        v2[0] = ti.math.vec2(1.5, -2)
        v2[1] = ti.math.vec2(k)
        v3[0] = ti.math.vec3(1, 2, 3)
        v3[1] = ti.math.vec3(v2[0], 7.0)
        v3[2] = ti.math.vec3(0.5)
        v4[0] = ti.math.vec4(v2[0], v2[1])
        v4[1] = ti.math.vec4(v3[0], 1.0)
        v4[2] = ti.math.vec4(1.0, v2[0].yx, k)
        iv[0] = ti.math.ivec3(k, -k, 2 * k)
        iv[1] = ti.math.ivec3(ti.math.vec3(1.9, -1.9, 2.5))  # truncated to int
        uv[0] = ti.math.uvec2(3, 4)
        uv[1] = ti.math.uvec2(k) * 2
        i4[None] = ti.math.ivec4(ti.math.ivec2(1, 2), 3, 4)
        u4[None] = ti.math.uvec4(7)
        m2[None] = ti.math.mat2([[1, 2], [3, 4]])
        m3[None] = ti.math.mat3(1, 2, 3, 4, 5, 6, 7, 8, 9)
        m4[None] = ti.math.mat4(k)

    run(5)
    out = {}
    for name, f in (("v2", v2), ("v3", v3), ("v4", v4), ("iv", iv), ("uv", uv)):
        out[name] = f.to_numpy()
    for name, f in (("i4", i4), ("u4", u4), ("m2", m2), ("m3", m3), ("m4", m4)):
        out[name] = f.to_numpy()
    return out


def case_math_geometry(ti):
    """`length`, `normalize`, `distance`, `dot`, `cross` (3-D and 2-D) on vec2/vec3 and the
    same names on f64 vectors."""
    ti.init(arch=ti.cpu)
    vout = ti.math.vec3.field(shape=3)
    sout = ti.field(ti.f32, shape=6)
    dout = ti.field(ti.f64, shape=3)

    @ti.kernel
    def run():
        a = ti.math.vec3(3.0, 4.0, 12.0)
        b = ti.math.vec3(1.0, -2.0, 2.0)
        vout[0] = ti.math.normalize(a)
        vout[1] = ti.math.cross(a, b)
        vout[2] = ti.math.normalize(ti.math.cross(b, a))
        sout[0] = ti.math.length(a)
        sout[1] = ti.math.distance(a, b)
        sout[2] = ti.math.dot(a, b)
        sout[3] = ti.math.cross(ti.math.vec2(1.0, 2.0), ti.math.vec2(3.0, -1.0))
        sout[4] = ti.math.length(ti.math.vec2(5.0, 12.0))
        sout[5] = ti.math.distance(ti.math.vec2(0.0), ti.math.vec2(6.0, 8.0))
        d = ti.Vector([1.0, 2.0, 2.0], dt=ti.f64)
        dout[0] = ti.math.length(d)
        dout[1] = ti.math.normalize(d)[2]
        dout[2] = ti.math.dot(d, d)

    run()
    return {"vout": vout.to_numpy(), "sout": sout.to_numpy(), "dout": dout.to_numpy()}


case_math_geometry.rtol = 1e-6  # sqrt is exact; normalize may multiply by 1/len: 1 ulp


def case_math_interpolation_and_steps(ti):
    """`mix`, `clamp`, `smoothstep`, `step`, `fract`, `sign`, `mod` element-wise on vectors,
    with scalar and vector edges and blend factors."""
    ti.init(arch=ti.cpu)
    out = ti.math.vec4.field(shape=12)
    x = ti.math.vec4(-1.5, 0.0, 0.25, 2.75)

    @ti.kernel
    def run():
        a = ti.math.vec4(0.0, 1.0, 2.0, 3.0)
        b = ti.math.vec4(4.0, -1.0, 2.0, 7.0)
        out[0] = ti.math.mix(a, b, 0.25)
        out[1] = ti.math.mix(a, b, ti.math.vec4(0.0, 0.5, 1.0, 0.75))
        out[2] = ti.math.clamp(x, -1.0, 1.0)
        out[3] = ti.math.clamp(x, ti.math.vec4(0.0), ti.math.vec4(0.5, 1.0, 1.5, 2.0))
        out[4] = ti.math.smoothstep(0.0, 1.0, x)
        out[5] = ti.math.smoothstep(-2.0, 3.0, x)
        out[6] = ti.math.step(0.25, x)
        out[7] = ti.math.step(ti.math.vec4(0.0, 0.0, 1.0, 1.0), x)
        out[8] = ti.math.fract(x)
        out[9] = ti.math.sign(x)
        out[10] = ti.math.mod(x, 1.0)
        out[11] = ti.math.mix(ti.math.clamp(x, 0.0, 1.0), a, ti.math.fract(b * 0.3))

    run()
    return {"out": out.to_numpy()}


def case_math_reflect_refract(ti):
    """`reflect` and `refract` (including total internal reflection giving zero) in 2-D and
    3-D, as a ray tracer uses them."""
    ti.init(arch=ti.cpu)
    r3 = ti.math.vec3.field(shape=4)
    r2 = ti.math.vec2.field(shape=3)

    @ti.kernel
    def run():
        n = ti.math.vec3(0.0, 1.0, 0.0)
        d = ti.math.normalize(ti.math.vec3(1.0, -1.0, 0.0))
        r3[0] = ti.math.reflect(d, n)
        r3[1] = ti.math.refract(d, n, 1.0 / 1.5)
        r3[2] = ti.math.refract(d, n, 1.5)  # total internal reflection: zero
        r3[3] = ti.math.reflect(ti.math.vec3(1.0, 2.0, 3.0), ti.math.normalize(ti.math.vec3(1.0)))
        n2 = ti.math.vec2(0.0, 1.0)
        r2[0] = ti.math.reflect(ti.math.vec2(3.0, -4.0), n2)
        r2[1] = ti.math.refract(ti.math.vec2(0.6, -0.8), n2, 0.75)
        r2[2] = ti.math.refract(ti.math.vec2(0.0, -1.0), n2, 1.33)

    run()
    return {"r3": r3.to_numpy(), "r2": r2.to_numpy()}


case_math_reflect_refract.rtol = 1e-5  # refract uses sqrt and several rounded products
case_math_reflect_refract.atol = 1e-7  # components that cancel to about zero


def case_math_elementwise_functions(ti):
    """`ti.sqrt`, `ti.exp`, `ti.log`, `ti.sin`, `ti.cos`, `ti.floor`, `ti.ceil`, `ti.round`,
    `ti.abs`, `ti.pow`, `ti.atan2`, and the `ti.math.` spellings, applied to whole vectors."""
    ti.init(arch=ti.cpu)
    out = ti.math.vec3.field(shape=14)

    @ti.kernel
    def run():
        v = ti.math.vec3(0.25, 1.5, 4.0)
        w = ti.math.vec3(-1.25, 2.5, -0.5)
        out[0] = ti.sqrt(v)
        out[1] = ti.exp(v)
        out[2] = ti.log(v)
        out[3] = ti.sin(w)
        out[4] = ti.cos(w)
        out[5] = ti.floor(w)
        out[6] = ti.ceil(w)
        out[7] = ti.round(w)
        out[8] = ti.abs(w)
        out[9] = ti.pow(v, 2.0)
        out[10] = ti.atan2(w, v)
        out[11] = ti.math.sqrt(v) + ti.math.exp(-v)
        out[12] = ti.math.floor(w * 2.0) + ti.math.ceil(v)
        out[13] = ti.tanh(w)

    run()
    return {"out": out.to_numpy()}


case_math_elementwise_functions.rtol = 1e-5  # f32 exp/log/sin/cos/atan2/pow: a few ulps


def case_math_constants(ti):
    """`ti.math.pi`, `ti.math.e`, `ti.math.inf` (and `-inf`), `ti.math.nan` with `isnan`/
    `isinf`, `degrees`/`radians`, in kernels and as Python values."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.f32, shape=6)
    dout = ti.field(ti.f64, shape=2)
    flags = ti.field(ti.i32, shape=4)

    @ti.kernel
    def run():
        out[0] = ti.math.pi
        out[1] = ti.math.e
        out[2] = ti.math.inf
        out[3] = -ti.math.inf
        out[4] = ti.math.degrees(ti.math.pi / 4)
        out[5] = ti.math.radians(180.0)
        dout[0] = ti.cast(ti.math.pi, ti.f64) * 2
        dout[1] = ti.min(ti.math.inf, 3.0)
        flags[0] = ti.math.isinf(ti.math.inf)
        flags[1] = ti.math.isnan(ti.math.nan)
        flags[2] = ti.math.isinf(1.0e30)
        flags[3] = ti.math.isnan(ti.math.vec2(ti.math.nan, 1.0)).sum()

    run()
    return {
        "out": out.to_numpy(),
        "dout": dout.to_numpy(),
        "flags": flags.to_numpy(),
        "python": (ti.math.pi, ti.math.e, ti.math.inf),
    }


case_math_constants.rtol = 1e-6  # degrees/radians: a product rounded in f32


def case_math_rotations_and_transforms(ti):
    """`rotation2d`, `rotation3d`, `rot_by_axis`, `rot_yaw_pitch_roll`, `translate`, `scale`,
    `eye`, `vdir`, applied to points the way a renderer chains them."""
    ti.init(arch=ti.cpu)
    r2 = ti.math.mat2.field(shape=())
    p2 = ti.math.vec2.field(shape=2)
    m4 = ti.math.mat4.field(shape=5)
    p4 = ti.math.vec4.field(shape=2)
    e3 = ti.math.mat3.field(shape=())

    @ti.kernel
    def run():
        r2[None] = ti.math.rotation2d(ti.math.pi / 6)
        p2[0] = ti.math.rotation2d(ti.math.pi / 2) @ ti.math.vec2(1.0, 0.0)
        p2[1] = ti.math.vdir(0.5)
        m4[0] = ti.math.rotation3d(0.1, 0.2, 0.3)
        m4[1] = ti.math.rot_by_axis(ti.math.vec3(0.0, 0.0, 1.0), 0.4)
        m4[2] = ti.math.rot_yaw_pitch_roll(0.3, -0.2, 0.1)
        m4[3] = ti.math.translate(1.0, -2.0, 3.0)
        m4[4] = ti.math.scale(2.0, 3.0, 0.5)
        p = ti.math.vec4(1.0, 1.0, 1.0, 1.0)
        p4[0] = ti.math.translate(1.0, 2.0, 3.0) @ ti.math.scale(2.0, 2.0, 2.0) @ p
        p4[1] = ti.math.rot_by_axis(ti.math.vec3(1.0, 0.0, 0.0), ti.math.pi / 2) @ p
        e3[None] = ti.math.eye(3) * 4.0

    run()
    return {
        "r2": r2.to_numpy(),
        "p2": p2.to_numpy(),
        "m4": m4.to_numpy(),
        "p4": p4.to_numpy(),
        "e3": e3.to_numpy(),
    }


case_math_rotations_and_transforms.rtol = 1e-5  # sin/cos in f32
case_math_rotations_and_transforms.atol = 1e-6  # cos(pi/2) and friends are rounding noise


def case_math_shading(ti):
    """A tiny shader: per-pixel normals from a sphere, Lambert and Blinn-Phong terms with
    `normalize`, `dot`, `max`, `pow`, `mix`, `clamp`, `reflect`; written to a vec3 image."""
    ti.init(arch=ti.cpu)
    n = 16
    img = ti.math.vec3.field(shape=(n, n))

    @ti.kernel
    def shade():
        light = ti.math.normalize(ti.math.vec3(1.0, 1.0, 1.0))
        for i, j in img:
            uv = ti.math.vec2(i + 0.5, j + 0.5) / n * 2.0 - 1.0
            r2 = ti.math.dot(uv, uv)
            color = ti.math.vec3(0.1, 0.1, 0.2)
            if r2 < 1.0:
                nrm = ti.math.vec3(uv, ti.sqrt(1.0 - r2))
                diffuse = ti.max(ti.math.dot(nrm, light), 0.0)
                refl = ti.math.reflect(-light, nrm)
                spec = ti.pow(ti.max(refl.z, 0.0), 8.0)
                base = ti.math.mix(ti.math.vec3(0.8, 0.2, 0.2), ti.math.vec3(0.2, 0.2, 0.8), uv.x)
                color = ti.math.clamp(base * diffuse + spec, 0.0, 1.0)
            img[i, j] = color

    shade()
    return {"img": img.to_numpy()}


case_math_shading.rtol = 1e-5  # pow and sqrt chains in f32
case_math_shading.atol = 1e-6  # specular terms far below one

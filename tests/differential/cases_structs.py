"""Structs: `ti.types.struct(...)`, `ti.Struct.field`, `@ti.dataclass` with `ti.func` methods;
member sub-fields (`f.a`, `f.q.p`); struct locals copied from fields and written back;
member-of-member updates; structs passed to and returned from funcs; struct literals;
`to_numpy()` / `from_numpy()` with (nested) dicts; Python-scope member access.

Taichi gives `to_numpy()` of a struct field as a dict keyed by member name, nested for struct
members, each leaf the member's own `to_numpy()`. The harness compares flat results, so
`flatten` turns `{"q": {"p": arr}}` into `{"q.p": arr}`: the keys still pin down the layout.
"""

import numpy as np


def flatten(prefix, tree):
    """`{"a": x, "q": {"p": y}}` as `{"prefix.a": x, "prefix.q.p": y}`; leaves must be arrays
    (so a wrong nesting or leaf type fails the comparison instead of being flattened away)."""
    out = {}
    assert isinstance(tree, dict), f"{prefix}: expected a dict, got {type(tree).__name__}"
    for key, value in tree.items():
        name = f"{prefix}.{key}"
        if isinstance(value, dict):
            out.update(flatten(name, value))
        else:
            out[name] = value
    return out


def case_struct_type_field_and_members(ti):
    """`ti.types.struct` with scalar, vector and matrix members; `.field(shape=)`; kernels
    write members through `s[i].a` and through the member sub-fields `s.a[i]`."""
    ti.init(arch=ti.cpu)
    particle = ti.types.struct(pos=ti.math.vec2, mass=ti.f32, id=ti.i32, rot=ti.math.mat2)
    s = particle.field(shape=6)

    @ti.kernel
    def init():
        for i in s:
            s[i].pos = ti.math.vec2(i, -i)
            s[i].mass = 1.0 + i * 0.5
            s.id[i] = 100 + i
            s.rot[i] = ti.Matrix([[1.0, i], [0.0, 1.0]])
            s[i].pos.y += s.mass[i]

    init()
    out = flatten("s", s.to_numpy())
    out["member_shapes"] = (s.pos.shape, s.mass.shape, s.shape)
    out["id_field"] = s.id.to_numpy()
    return out


def case_struct_field_classic_api(ti):
    """`ti.Struct.field({...}, shape=)` on a 2-D shape; struct-for over it; the members are
    ordinary fields for `to_numpy` and Python-scope indexing."""
    ti.init(arch=ti.cpu)
    cell = ti.Struct.field({"rho": ti.f32, "vel": ti.math.vec2, "flag": ti.i8}, shape=(3, 4))

    @ti.kernel
    def init():
        for i, j in cell:
            cell[i, j].rho = i + j * 0.25
            cell[i, j].vel = ti.math.vec2(j, i) * cell[i, j].rho
            cell[i, j].flag = 1 if i == j else 0

    init()
    out = flatten("cell", cell.to_numpy())
    out["rho_21"] = cell.rho[2, 1]
    out["vel_12"] = cell.vel[1, 2].to_numpy()
    out["flag_11"] = cell[1, 1].flag
    return out


def case_dataclass_with_methods(ti):
    """`@ti.dataclass` with `ti.func` methods: a method reading members, a method that
    mutates `self` (on a local copy and on a field element) and a method calling another."""
    ti.init(arch=ti.cpu)
    vec2 = ti.math.vec2

    @ti.dataclass
    class Body:
        x: vec2
        v: vec2
        m: ti.f32

        @ti.func
        def kinetic(self):
            return 0.5 * self.m * self.v.norm_sqr()

        @ti.func
        def momentum(self):
            return self.m * self.v

        @ti.func
        def move(self, dt):
            self.x += self.v * dt

        @ti.func
        def energy_and_step(self, dt):
            e = self.kinetic()
            self.move(dt)
            return e

    bodies = Body.field(shape=4)
    energy = ti.field(ti.f32, shape=4)
    mom = ti.math.vec2.field(shape=4)

    @ti.kernel
    def run():
        for i in bodies:
            bodies[i] = Body(x=vec2(i, 0.0), v=vec2(1.0, i), m=i + 1.0)
        for i in bodies:
            b = bodies[i]
            energy[i] = b.energy_and_step(0.5)
            mom[i] = b.momentum()
            bodies[i] = b
        for i in bodies:
            bodies[i].move(2.0)  # a method on a field element updates the field

    run()
    out = flatten("bodies", bodies.to_numpy())
    out.update(energy=energy.to_numpy(), momentum=mom.to_numpy())
    return out


def case_struct_locals_copy_and_write_back(ti):
    """`p = f[i]` copies: changing `p` leaves the field alone until `f[i] = p`; whole-struct
    assignment between elements; a struct local reassigned in a loop."""
    ti.init(arch=ti.cpu)
    item = ti.types.struct(a=ti.i32, v=ti.math.vec3)
    f = item.field(shape=5)
    seen = ti.field(ti.i32, shape=5)

    @ti.kernel
    def run():
        for i in f:
            f[i].a = i
            f[i].v = ti.math.vec3(i, i * 2, i * 3)
        for i in f:
            p = f[i]
            p.a += 10
            p.v.x = -1.0
            seen[i] = f[i].a  # still the old value
            if i % 2 == 0:
                f[i] = p
        f[4] = f[0]  # whole struct copy between elements
        q = item(a=0, v=ti.math.vec3(0.0))
        ti.loop_config(serialize=True)  # `q` is shared by the iterations: keep them in order
        for k in range(3):
            q = item(a=q.a + k, v=q.v + k)
        f[3] = q

    run()
    return {**flatten("f", f.to_numpy()), "seen": seen.to_numpy()}


def case_nested_struct_member_updates(ti):
    """A struct of structs: member-of-member reads and updates (`f[i].q.p.x += `),
    `from_numpy` with a nested dict, and nested `to_numpy`."""
    ti.init(arch=ti.cpu)
    inner = ti.types.struct(p=ti.math.vec2, w=ti.f32)
    outer = ti.types.struct(a=ti.i32, q=inner, m=ti.math.mat2)
    f = outer.field(shape=3)
    f.from_numpy(
        {
            "a": np.array([1, 2, 3], dtype=np.int32),
            "q": {
                "p": np.arange(6, dtype=np.float32).reshape(3, 2),
                "w": np.array([0.5, 1.5, 2.5], dtype=np.float32),
            },
            "m": np.tile(np.eye(2, dtype=np.float32), (3, 1, 1)),
        }
    )

    @ti.kernel
    def update():
        for i in f:
            f[i].q.p.x += 10.0
            f[i].q.p[1] *= f[i].q.w
            f[i].q.w = f[i].q.p.sum() + f[i].a
            f[i].m[0, 1] = f[i].q.w
            f[i].a = f[i].a * f[i].a

    update()
    out = flatten("f", f.to_numpy())
    out["inner_p_shape"] = f.q.p.shape
    out["w_1"] = f[1].q.w
    return out


def case_structs_through_funcs(ti):
    """Structs as `ti.func` arguments (by value: the caller's copy is unchanged) and returns,
    annotated and not; `ti.template()` arguments alias the caller's struct."""
    ti.init(arch=ti.cpu)
    state = ti.types.struct(x=ti.math.vec2, n=ti.i32)
    out = ti.field(ti.f32, shape=8)

    @ti.func
    def advanced(s: state, dt: ti.f32) -> state:
        s.x += ti.math.vec2(1.0, 2.0) * dt
        s.n += 1
        return s

    @ti.func
    def reset_copy(s):
        s.n = 0

    @ti.func
    def reset_ref(s: ti.template()):
        s.n = -7

    @ti.func
    def make(a, b):
        return state(x=ti.math.vec2(a, b), n=int(a + b))

    @ti.kernel
    def run():
        s = make(1.0, 2.0)
        t = advanced(s, 0.5)
        t = advanced(t, 0.5)
        reset_copy(t)
        out[0] = s.x.x
        out[1] = s.n
        out[2] = t.x.y
        out[3] = t.n
        reset_ref(t)
        out[4] = t.n
        u = advanced(make(3.0, 4.0), 1.0)
        out[5] = u.x.x + u.x.y
        out[6] = u.n
        out[7] = advanced(u, 2.0).x.dot(ti.math.vec2(1.0))

    run()
    return {"out": out.to_numpy()}


def case_struct_literals(ti):
    """Struct literals by keyword and by position, with defaults for omitted members (zero),
    nested literals, and a literal stored to a field and to a member sub-field."""
    ti.init(arch=ti.cpu)
    color = ti.types.struct(rgb=ti.math.vec3, alpha=ti.f32)
    light = ti.types.struct(c=color, power=ti.f32, on=ti.i32)
    f = light.field(shape=4)

    @ti.dataclass
    class Pair:
        lo: ti.i32
        hi: ti.i32

    pairs = Pair.field(shape=3)

    @ti.kernel
    def run():
        f[0] = light(c=color(rgb=ti.math.vec3(1.0, 0.5, 0.25), alpha=1.0), power=2.0, on=1)
        f[1] = light(color(ti.math.vec3(0.1), 0.5), 3.0, 0)
        f[2] = light(power=9.0)  # omitted members are zero
        f[3].c = color(rgb=ti.math.vec3(0.0, 1.0, 0.0), alpha=0.75)
        for i in pairs:
            pairs[i] = Pair(lo=i, hi=i * i)
        pairs[2] = Pair(-1, -2)

    f.fill(7)  # filled first, then overwritten by the kernel except f[3].power and f[3].on
    run()
    return {**flatten("f", f.to_numpy()), **flatten("pairs", pairs.to_numpy())}


def case_struct_python_scope_access(ti):
    """Python-scope reads and writes of members: `f[i].a = `, `f[i].v = vec`, `f[i].q.w`,
    `f.a[i]`; `fill` of a whole struct field; `keys`."""
    ti.init(arch=ti.cpu)
    rec = ti.types.struct(a=ti.i32, v=ti.math.vec2, w=ti.f64)
    f = rec.field(shape=4)
    f.fill(1)
    f[1].a = 5
    f[2].v = ti.math.vec2(7.0, 8.0)
    f.w[3] = 0.125
    f[0].v[1] = -3.0

    @ti.kernel
    def bump():
        for i in f:
            f[i].a += i
            f[i].w *= 2

    bump()
    return {
        **flatten("f", f.to_numpy()),
        "a1": f[1].a,
        "w3": f[3].w,
        "v2": f[2].v.to_numpy(),
        "v0y": float(f[0].v[1]),
        "keys": list(f.keys),
    }


def case_struct_of_arrays_simulation(ti):
    """A dataclass particle system with a method per phase, stepped a few times from
    kernels: the shape of many real Taichi programs."""
    ti.init(arch=ti.cpu)
    vec3 = ti.math.vec3

    @ti.dataclass
    class Particle:
        x: vec3
        v: vec3
        life: ti.i32

        @ti.func
        def step(self, g, dt):
            self.v += g * dt
            self.x += self.v * dt
            if self.x.y < 0.0:
                self.x.y = -self.x.y
                self.v.y = -self.v.y * 0.5
            self.life -= 1

    n = 32
    ps = Particle.field(shape=n)

    @ti.kernel
    def init():
        for i in ps:
            ps[i] = Particle(x=vec3(i * 0.25, 1.0 + i % 4, 0.0), v=vec3(0.0, i % 3, 1.0), life=10)

    @ti.kernel
    def step():
        for i in ps:
            ps[i].step(vec3(0.0, -8.0, 0.0), 0.125)

    init()
    for _ in range(8):
        step()
    return flatten("ps", ps.to_numpy())

"""Autodiff (#6): `needs_grad` fields, `kernel.grad()`, `ti.ad.Tape`, custom gradients, forward
mode, compared with Taichi 1.7.4 value for value, including Taichi's bookkeeping (repeated
`grad()` calls accumulate, an overwriting store's adjoint zeroes the output's gradient, a Tape
clears gradients first and leaves `loss.grad` at 1).

Reductions into one element from a parallel loop add floats in thread order, so those cases keep
the loops short (one thread's chunk on Taichi's CPU back end) and use f64 where they can.
Gradients of transcendental functions carry libm differences of a few ulps: rtol=1e-5 on f32.
"""

import numpy as np

X8 = np.array([0.3, 0.5, 0.9, -0.7, 1.3, -0.2, 0.05, 0.75])


def _grads(*fields):
    return {f"g{k}": f.grad.to_numpy() for k, f in enumerate(fields)}


def case_ad_tape_sin_times_x(ti):
    """The example of Taichi's docs: loss = sum sin(x) * x; d loss/dx = x cos x + sin x."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32, shape=8, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def compute():
        for i in x:
            loss[None] += ti.sin(x[i]) * x[i]

    x.from_numpy(X8.astype(np.float32))
    with ti.ad.Tape(loss=loss):
        compute()
    return {"loss": loss[None], "loss_grad": loss.grad[None], **_grads(x)}


case_ad_tape_sin_times_x.rtol = 1e-5  # sin/cos on f32 (module docstring)


def case_ad_math_functions(ti):
    """One output per math function; gradients of each with respect to its inputs."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    n = 6
    x = ti.field(ti.f64, shape=n, needs_grad=True)
    y = ti.field(ti.f64, shape=n, needs_grad=True)
    out = ti.field(ti.f64, shape=(14, n), needs_grad=True)

    @ti.kernel
    def compute():
        for i in x:
            a, b = x[i], y[i]
            out[0, i] = ti.exp(a) + ti.log(b)
            out[1, i] = ti.sqrt(b) * ti.tanh(a)
            out[2, i] = ti.cos(a) / b
            out[3, i] = b**a + a**2
            out[4, i] = ti.atan2(a, b)
            out[5, i] = ti.abs(a - 0.5) + ti.max(a, b) * 2.0 - ti.min(a * 3.0, b)
            out[6, i] = ti.asin(a * 0.5) + ti.acos(b * 0.2)
            out[7, i] = ti.tanh(a * 0.5) - a  # (Taichi has no adjoint of tan)
            out[8, i] = ti.rsqrt(b) + 1.0 / (a + 2.0)
            out[9, i] = -a * b + ti.cast(a, ti.f32) * 2.0
            out[10, i] = ti.floor(a * 3.0) * b + a % 0.4
            out[11, i] = ti.select(a > 0.4, a * a, b * 3.0)
            out[12, i] = ti.sin(a) ** 3
            out[13, i] = ti.exp(-a * a) * ti.log(1.0 + b * b)

    x.from_numpy(np.array([0.1, 0.35, 0.6, 0.85, -0.3, 0.45]))
    y.from_numpy(np.array([0.7, 1.2, 2.5, 0.3, 1.9, 4.0]))
    compute()
    out.grad.fill(1.0)
    compute.grad()
    return {"out": out.to_numpy(), "out_grad": out.grad.to_numpy(), **_grads(x, y)}


case_ad_math_functions.rtol = 1e-12  # f64 libm: an ulp or two


def case_ad_grad_calls_accumulate_and_overwrites_zero(ti):
    """Two grad() calls add up in x.grad; y (overwritten) has its gradient zeroed by the adjoint,
    z (accumulated with +=) keeps its gradient."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    y = ti.field(ti.f32, shape=4, needs_grad=True)
    z = ti.field(ti.f32, shape=4, needs_grad=True)

    @ti.kernel
    def compute():
        for i in x:
            y[i] = x[i] * x[i]
            z[i] += x[i] * 3.0

    x.from_numpy(np.array([1.0, 2.0, -1.5, 0.5], np.float32))
    compute()
    y.grad.from_numpy(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    z.grad.fill(0.5)
    compute.grad()
    first = x.grad.to_numpy()
    y.grad.fill(1.0)
    compute.grad()
    return {"first": first, "y_grad": y.grad.to_numpy(), **_grads(x, y, z), "y": y.to_numpy()}


def case_ad_loop_carried_local(ti):
    """A serial inner loop carrying a local: v = sin(v) * v three times (an autodiff stack)."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=8, needs_grad=True)
    y = ti.field(ti.f64, shape=8, needs_grad=True)

    @ti.kernel
    def compute():
        for i in x:
            v = x[i]
            for _ in range(3):
                v = ti.sin(v) * v + 0.1
            y[i] = v

    x.from_numpy(X8)
    compute()
    y.grad.fill(1.0)
    compute.grad()
    return {"y": y.to_numpy(), **_grads(x, y)}


case_ad_loop_carried_local.rtol = 1e-12  # f64 libm


def case_ad_nested_loops_and_branches(ti):
    """Two nested serial loops, an if/else inside, a loop bound from a field's shape."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=6, needs_grad=True)
    w = ti.field(ti.f64, shape=4, needs_grad=True)
    y = ti.field(ti.f64, shape=6, needs_grad=True)

    @ti.kernel
    def compute():
        for i in x:
            acc = 0.0
            v = x[i]
            for j in range(4):
                for k in range(2):
                    if v > 0.2:
                        v = v * w[j] - 0.1 * k
                    else:
                        v = v + w[j] * w[j]
                acc += v * (j + 1)
            y[i] = acc

    x.from_numpy(np.array([0.3, 0.5, 0.9, -0.7, 1.3, -0.2]))
    w.from_numpy(np.array([0.9, 1.1, -0.4, 0.7]))
    compute()
    y.grad.fill(1.0)
    compute.grad()
    return {"y": y.to_numpy(), **_grads(x, w)}


def case_ad_funcs_static_and_vectors(ti):
    """ti.func, ti.static loops and a vector field: energy = sum |A v|^2 with v a vec3."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    v = ti.Vector.field(3, ti.f64, shape=4, needs_grad=True)
    a = ti.Matrix.field(3, 3, ti.f64, shape=(), needs_grad=True)
    energy = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.func
    def squared(u):
        return u.dot(u)

    @ti.kernel
    def compute():
        for i in v:
            u = a[None] @ v[i]
            s = 0.0
            for k in ti.static(range(3)):
                s += ti.sin(u[k]) * (k + 1)
            energy[None] += squared(u) + s

    v.from_numpy(np.arange(12, dtype=np.float64).reshape(4, 3) * 0.1 - 0.3)
    a.from_numpy(np.array([[1.0, 0.5, 0.0], [0.2, -1.0, 0.3], [0.0, 0.4, 2.0]]))
    with ti.ad.Tape(loss=energy):
        compute()
    return {"energy": energy[None], "v_grad": v.grad.to_numpy(), "a_grad": a.grad.to_numpy()}


case_ad_funcs_static_and_vectors.rtol = 1e-12  # f64 libm


def case_ad_tape_replays_kernels_in_reverse(ti):
    """Three kernels under a Tape (the middle one twice) with a 2-D field and a struct-for."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=(3, 4), needs_grad=True)
    y = ti.field(ti.f64, shape=(3, 4), needs_grad=True)
    z = ti.field(ti.f64, shape=(3, 4), needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def square(src: ti.template(), dst: ti.template()):
        for i, j in src:
            dst[i, j] = src[i, j] * src[i, j] + 0.5 * j

    @ti.kernel
    def reduce():
        for i, j in z:
            loss[None] += ti.exp(-z[i, j]) * (i + 1)

    x.from_numpy(np.linspace(-1.0, 1.0, 12).reshape(3, 4))
    x.grad.fill(7.0)  # cleared by the Tape
    with ti.ad.Tape(loss=loss):
        square(x, y)
        square(y, z)
        reduce()
    return {"loss": loss[None], "loss_grad": loss.grad[None], **_grads(x, y, z)}


case_ad_tape_replays_kernels_in_reverse.rtol = 1e-12  # f64 libm


def case_ad_serial_kernel_and_two_loops(ti):
    """A kernel without loops (one serial block) and one with two top-level loops."""
    ti.init(arch=ti.cpu)
    a = ti.field(ti.f32, shape=(), needs_grad=True)
    b = ti.field(ti.f32, shape=(), needs_grad=True)
    x = ti.field(ti.f32, shape=5, needs_grad=True)
    y = ti.field(ti.f32, shape=5, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def serial():
        t = a[None] * 3.0
        if t > 1.0:
            t = t * t
        b[None] = t - a[None]

    @ti.kernel
    def two_loops():
        for i in x:
            y[i] = x[i] * b[None]
        for i in y:
            loss[None] += y[i] * y[i]

    a[None] = 0.75
    x.from_numpy(np.array([1.0, -2.0, 0.5, 3.0, 1.5], np.float32))
    with ti.ad.Tape(loss=loss):
        serial()
        two_loops()
    return {"loss": loss[None], "a_grad": a.grad[None], "b_grad": b.grad[None], **_grads(x, y)}


def case_ad_clear_and_lazy_grad(ti):
    """ti.root.lazy_grad() places gradients of hand-placed fields; clear_all_gradients zeroes
    every gradient."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32)
    y = ti.field(ti.f32)
    ti.root.dense(ti.i, 6).place(x, y)
    ti.root.lazy_grad()

    @ti.kernel
    def compute():
        for i in x:
            y[i] = 2.0 * x[i] * x[i]

    x.from_numpy(np.arange(6, dtype=np.float32))
    compute()
    y.grad.fill(1.0)
    compute.grad()
    before = x.grad.to_numpy()
    y.grad.fill(3.0)
    ti.ad.clear_all_gradients()
    return {"before": before, **_grads(x, y)}


def _doubling_kernels(ti, x, y, loss, counter):
    @ti.kernel
    def double():
        for i in x:
            y[i] = x[i] * 2.0

    @ti.kernel
    def double_grad():
        for i in x:
            x.grad[i] = y.grad[i] * 10.0  # deliberately not the true gradient

    @ti.kernel
    def total():
        for i in y:
            loss[None] += y[i]

    @ti.kernel
    def count():
        counter[None] += 1.0

    return double, double_grad, total, count


def case_ad_grad_replaced_and_no_grad(ti):
    """A custom gradient (grad_replaced + grad_for) and a no_grad function inside a Tape."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    y = ti.field(ti.f32, shape=4, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)
    counter = ti.field(ti.f32, shape=(), needs_grad=True)
    double, double_grad, total, count = _doubling_kernels(ti, x, y, loss, counter)

    @ti.ad.grad_replaced
    def forward():
        double()

    @ti.ad.grad_for(forward)
    def backward():
        double_grad()

    @ti.ad.no_grad
    def bookkeeping():
        count()

    x.from_numpy(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    with ti.ad.Tape(loss=loss):
        forward()
        bookkeeping()
        total()
    return {"loss": loss[None], "counter": counter[None], **_grads(x, y, counter)}


def case_ad_forward_mode(ti):
    """ti.ad.FwdMode: the derivative of every output along a seed over the parameters."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32, shape=3, needs_dual=True)
    y = ti.field(ti.f32, shape=3, needs_dual=True)
    loss = ti.field(ti.f32, shape=(), needs_dual=True)

    @ti.kernel
    def compute():
        for i in x:
            v = x[i]
            for _ in range(2):
                v = v * v + ti.sin(v)
            y[i] = v
            loss[None] += v * 2.0

    x.from_numpy(np.array([0.2, 0.5, -0.4], np.float32))
    with ti.ad.FwdMode(loss=loss, param=x, seed=[1.0, 0.0, 0.0]):
        compute()
    first = (loss.dual[None], y.dual.to_numpy())
    with ti.ad.FwdMode(loss=y, param=x, seed=[0.0, 1.0, 1.0]):
        compute()
    return {
        "first_loss": first[0],
        "first_y": first[1],
        "y_dual": y.dual.to_numpy(),
        "x_dual": x.dual.to_numpy(),
        "y": y.to_numpy(),
    }


case_ad_forward_mode.rtol = 1e-5  # sin on f32 (module docstring)


def case_ad_integer_fields_and_casts(ti):
    """Integer fields have no gradient; an int index computed from data, casts both ways."""
    ti.init(arch=ti.cpu)
    idx = ti.field(ti.i32, shape=4)
    table = ti.field(ti.f32, shape=5, needs_grad=True)
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    out = ti.field(ti.f32, shape=4, needs_grad=True)
    hits = ti.field(ti.i32, shape=())

    @ti.kernel
    def compute():
        for i in x:
            k = idx[i]
            out[i] = table[k] * x[i] + ti.cast(ti.cast(x[i] * 10.0, ti.i32), ti.f32)
            hits[None] += 1

    idx.from_numpy(np.array([4, 0, 4, 2], np.int32))
    table.from_numpy(np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32))
    x.from_numpy(np.array([0.25, 0.5, 0.75, 1.0], np.float32))
    compute()
    out.grad.fill(1.0)
    compute.grad()
    return {"hits": hits[None], **_grads(table, x, out)}


def case_ad_struct_field(ti):
    """A struct field with needs_grad: every member gets a gradient."""
    ti.init(arch=ti.cpu)
    particle = ti.types.struct(pos=ti.math.vec2, mass=ti.f32)
    ps = particle.field(shape=4, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def energy():
        for i in ps:
            p = ps[i]
            loss[None] += p.mass * p.pos.dot(p.pos)

    ps.pos.from_numpy(np.arange(8, dtype=np.float32).reshape(4, 2) * 0.25)
    ps.mass.from_numpy(np.array([1.0, 2.0, 0.5, 3.0], np.float32))
    with ti.ad.Tape(loss=loss):
        energy()
    return {"pos_grad": ps.pos.grad.to_numpy(), "mass_grad": ps.mass.grad.to_numpy()}


def case_ad_integer_needs_grad_is_refused(ti):
    """needs_grad on an integer field, or on a struct with an integer member, is an error."""
    ti.init(arch=ti.cpu)
    errors = {}
    for label, make in (
        ("field", lambda: ti.field(ti.i32, shape=4, needs_grad=True)),
        ("dual", lambda: ti.field(ti.i32, shape=4, needs_dual=True)),
        ("struct", lambda: ti.types.struct(a=ti.f32, b=ti.i32).field(shape=2, needs_grad=True)),
    ):
        try:
            make()
            errors[label] = "none"
        except Exception as e:  # noqa: BLE001 - the kind of error is the result
            errors[label] = f"{type(e).__name__}: {e}"
    return errors


def case_ad_tape_grad_check(ti):
    """Tape(grad_check=[...]) passes for true gradients and fails for a wrong custom gradient."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=5, needs_grad=True)
    y = ti.field(ti.f64, shape=5, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)
    x.from_numpy(np.linspace(0.2, 1.0, 5))

    @ti.kernel
    def forward():
        for i in x:
            y[i] = ti.exp(x[i] * 0.5)

    @ti.kernel
    def total():
        for i in y:
            loss[None] += y[i] * y[i]

    @ti.kernel
    def wrong_grad():
        for i in x:
            x.grad[i] = 3.0 * y.grad[i]

    with ti.ad.Tape(loss=loss, grad_check=[x]):
        forward()
        total()
    good = {"loss": loss[None], "x_grad": x.grad.to_numpy()}

    @ti.ad.grad_replaced
    def step():
        forward()

    @ti.ad.grad_for(step)
    def step_grad():
        wrong_grad()

    try:
        with ti.ad.Tape(loss=loss, grad_check=[x]):
            step()
            total()
        outcome = "passed"
    except AssertionError as e:
        outcome = str(e)
    return {**good, "wrong": outcome}


case_ad_tape_grad_check.rtol = 1e-12  # exp in f64: libm vs LLVM, an ulp


def case_ad_ndarray_gradients(ti):
    """ti.ndarray(needs_grad=True) arguments: the adjoint kernel adds into arr.grad (which the
    Tape does not clear, so a second Tape adds up), next to a field's gradient."""
    ti.init(arch=ti.cpu)
    n = 5
    a = ti.ndarray(ti.f32, shape=n, needs_grad=True)
    b = ti.ndarray(ti.f32, shape=n, needs_grad=True)
    w = ti.field(ti.f32, shape=n, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def f(x: ti.types.ndarray(), y: ti.types.ndarray()):
        for i in range(x.shape[0]):
            y[i] = ti.sin(x[i]) * w[i]

    @ti.kernel
    def g(y: ti.types.ndarray()):
        for i in range(y.shape[0]):
            loss[None] += y[i] * y[i]

    a.from_numpy(np.linspace(0.1, 0.9, n).astype(np.float32))
    w.fill(2.0)
    with ti.ad.Tape(loss=loss):
        f(a, b)
        g(b)
    first = a.grad.to_numpy()
    with ti.ad.Tape(loss=loss):
        f(a, b)
        g(b)
    return {
        "loss": loss[None],
        "first": first,
        "a_grad": a.grad.to_numpy(),
        "b_grad": b.grad.to_numpy(),
        "w_grad": w.grad.to_numpy(),
    }


case_ad_ndarray_gradients.rtol = 1e-5  # sin/cos on f32 (module docstring)


def case_ad_ndarray_loss(ti):
    """A Tape whose loss is a one-element ndarray."""
    ti.init(arch=ti.cpu)
    x = ti.ndarray(ti.f32, shape=4, needs_grad=True)
    loss = ti.ndarray(ti.f32, shape=1, needs_grad=True)

    @ti.kernel
    def total(v: ti.types.ndarray(), out: ti.types.ndarray()):
        for i in range(v.shape[0]):
            out[0] += v[i] * v[i] * (i + 1)

    x.from_numpy(np.array([1.0, -2.0, 0.5, 3.0], np.float32))
    with ti.ad.Tape(loss=loss):
        total(x, loss)
    return {"loss": loss.to_numpy(), "loss_grad": loss.grad.to_numpy(), "x_grad": x.grad.to_numpy()}

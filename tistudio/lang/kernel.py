"""`@ti.kernel` and `@ti.func`: registration, template instantiation, the cache, launching.

A kernel compiles once per *template signature* (Taichi's rule): `ti.template()` arguments
count by identity (fields) or value (Python numbers), ndarray arguments by dtype and number of
dimensions, and scalars not at all. Each signature keeps compile time, hits, misses, last use
and why it compiled (`recompile_why.py`, worked out on the miss, never on a hit);
`kernel.cache_info()` returns them and the "compiled"/"launched" events publish them.
"""

from __future__ import annotations

import contextlib
import gc
import inspect
import time
import typing
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tistudio.events import bus
from tistudio.frontend.arguments import bind_arguments
from tistudio.frontend.errors import TaichiRuntimeError, TaichiSyntaxError
from tistudio.frontend.kernel_builder import ParamSpec, build_frontend_ir
from tistudio.frontend.source import ParsedFunction, parse_function, resolve_annotation
from tistudio.ir.types import PrimitiveType
from tistudio.lang import autodiff_mode as ad_mode
from tistudio.lang import data_oriented as oop
from tistudio.lang import impl
from tistudio.lang import kernel_args as args_
from tistudio.lang import recompile_why as why_
from tistudio.lang.arg_names import Namer
from tistudio.lang.compile_report import CompileReport
from tistudio.lang.fast_calls import FastHit, fast_hit, fast_key_function, picker
from tistudio.lang.interop import convert_array_args, strided_array_at
from tistudio.lang.types import NdarrayType, Template, to_dtype
from tistudio.runtime import warm_up


class Func:
    """`@ti.func`: inlined into each kernel (or func) that calls it."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.__ti_func__ = fn
        self.__wrapped__ = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self._parsed: ParsedFunction | None = None
        self.takes_self = _takes_self(fn)  # a method of a class: `self` is a template

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        return oop.bind_func(self, obj)

    def _ti_parsed(self) -> ParsedFunction:
        if self._parsed is None:
            self._parsed = parse_function(self.__ti_func__)
        return self._parsed

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TaichiSyntaxError(
            f"ti.func '{self.__name__}' can only be called from a kernel or another ti.func"
        )


def self_name(sig: inspect.Signature) -> str | None:
    """The name of the first parameter, if any."""
    return next(iter(sig.parameters), None)


def _takes_self(fn: Callable[..., Any]) -> bool:
    """A kernel or func defined in a class body whose first parameter has no annotation: the
    instance, `self`, passed as a template (Taichi's class kernels and funcs)."""
    if not oop.defined_in_class(fn):
        return False
    params = list(inspect.signature(fn).parameters.values())
    return bool(params) and params[0].annotation is inspect.Parameter.empty


def func(fn: Callable[..., Any]) -> Func:
    return Func(fn)


@dataclass
class CacheEntry:
    """One template signature of one kernel: its compiled instance and its statistics."""

    signature: tuple
    signature_text: str
    name: str
    instance: Any
    compile_ms: float
    result: Any  # runtime.program.CompileResult
    hits: int = 0
    misses: int = 1
    last_use: float = field(default_factory=time.time)
    runtime_positions: tuple[int, ...] = ()
    arch: str = "cpu"
    flat_args: bool = True  # no vector/matrix parameters to flatten
    pick: Callable[[tuple], Any] | None = None  # runtime args from the call's args, if trivial
    ret_layout: list[tuple[str, Any]] | None = None  # set when a vector or struct is returned
    grad_positions: tuple[int, ...] = ()  # ndarray args whose `.grad` is passed (reverse mode)
    facts: tuple[why_.ArgFacts, ...] = ()  # what each argument was (recompile_why.describe)
    why: str = ""  # why this instantiation compiled (recompile_why.explain)
    startup_ms: float = 0.0  # waited for the back end's start (runtime/warm_up.py), not compiling

    def info(self) -> dict[str, Any]:
        return {
            "kernel": self.name,
            "signature": self.signature_text,
            "arch": self.arch,
            "compile_ms": self.compile_ms,
            "startup_ms": self.startup_ms,
            "hits": self.hits,
            "misses": self.misses,
            "last_use": self.last_use,
            "why": self.why,
        }


def _spec_of(name: str, annotation: Any, kernel_name: str) -> ParamSpec:
    if annotation is inspect.Parameter.empty:
        raise TaichiSyntaxError(
            f"kernel '{kernel_name}': parameter '{name}' needs a type annotation "
            "(e.g. ti.f32, ti.template(), ti.types.ndarray())"
        )
    if isinstance(annotation, Template) or annotation is Template:
        return ParamSpec(name, "template")
    if isinstance(annotation, NdarrayType):
        return args_.ndarray_spec(name, annotation)
    if hasattr(annotation, "_ti_struct_type"):  # a struct argument, passed as its scalars
        return ParamSpec(name, "struct", struct_type=annotation._ti_struct_type)
    if hasattr(annotation, "_ti_matrix_type"):  # ti.math.vec3, ti.types.matrix(2, 2, f32)
        shape, elem = annotation._ti_matrix_type
        return ParamSpec(name, "matrix", to_dtype(elem or float), element_shape=shape)
    try:
        return ParamSpec(name, "scalar", to_dtype(annotation))
    except TypeError:
        raise TaichiSyntaxError(
            f"kernel '{kernel_name}': unsupported annotation {annotation!r} for '{name}'"
        ) from None


class Kernel:
    """`@ti.kernel`: a Python function compiled on first call per template signature.

    `autodiff_mode` is the compile mode (`lang/autodiff_mode.py`): "none" for the kernel the
    user wrote; its twins (`f.grad`, ...) are kernels of the same function in another mode,
    made by `twin` and kept in `_autodiff_twins`, with `primal` pointing back at `f`."""

    __ti_kernel__ = True

    def __init__(
        self, fn: Callable[..., Any], autodiff_mode: str = "none", primal: Kernel | None = None
    ) -> None:
        assert autodiff_mode in ad_mode.MODES, autodiff_mode
        self.fn = fn
        self.autodiff_mode = autodiff_mode
        self.primal = primal
        self._autodiff_twins: dict[str, Kernel] = {}
        self.__name__ = fn.__name__ + ad_mode.LABEL.get(autodiff_mode, "")
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        sig = inspect.signature(fn)
        self.takes_self = _takes_self(fn)  # a method of a class: `self` is a template
        for p in sig.parameters.values():
            if (
                p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                or p.default is not p.empty
            ):
                raise TaichiSyntaxError(
                    f"kernel '{fn.__name__}': parameters must be plain positional parameters "
                    f"without defaults ('{p.name}')"
                )
            if p.annotation is p.empty and not (self.takes_self and p.name == self_name(sig)):
                _spec_of(p.name, p.annotation, fn.__name__)  # raises: every parameter is typed
        self._signature = sig
        self._raw_annotations = [p.annotation for p in sig.parameters.values()]
        self._ret_annotation = fn.__annotations__.get("return")
        self._names = list(sig.parameters)
        self._arity = len(self._names)
        self._parsed: ParsedFunction | None = None
        self._cache: dict[tuple, CacheEntry] = {}
        # calls whose template arguments are all fields skip the full key (see `_lookup`)
        self._fast: dict[tuple, FastHit] = {}
        self._fast_key: Callable[[tuple], tuple] | None = None
        self._program: Any = None
        self._counter = -1
        self._namer = Namer()  # names of the fields passed, for signature texts
        self._reset: why_.Reset | None = None  # set when ti.init() dropped compiled instances
        self.debug: bool | None = None  # debug checks for this kernel alone (%%ti_kernel)

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        return oop.bind_kernel(self, obj, cls)

    # --- signatures --------------------------------------------------------------------------

    def _specs(self) -> list[ParamSpec]:
        return [
            ParamSpec(n, "template")  # `self`
            if i == 0 and self.takes_self
            else _spec_of(n, resolve_annotation(self.fn, a), self.__name__)
            for i, (n, a) in enumerate(zip(self._names, self._raw_annotations))
        ]

    def _ret_types(self) -> list[PrimitiveType]:
        """The kernel's return values as scalars (vectors and structs return their elements)."""
        return [t for item in self._ret_layout() for t in args_.scalar_types(item)]

    def _ret_layout(self) -> list[tuple[str, Any]]:
        """Each declared return value: ("scalar", dtype), ("matrix", (shape, dtype)) or
        ("struct", struct type)."""
        ret = resolve_annotation(self.fn, self._ret_annotation)
        if ret is None or ret is inspect.Signature.empty:
            return []
        if typing.get_origin(ret) is tuple:  # -> tuple[ti.i32, ti.math.vec2]
            ret = typing.get_args(ret)
        return [args_.ret_item(r) for r in (ret if isinstance(ret, (tuple, list)) else (ret,))]

    def _key(self, args: tuple, specs: list[ParamSpec]) -> tuple:
        key = []
        for spec, arg in zip(specs, args):
            if spec.kind == "template":
                key.append(args_.template_key(arg))
            elif spec.kind == "ndarray":
                arr = args_.as_array(arg, spec, self.__name__)
                key.append((arr.dtype.str, arr.ndim, args_.element_shape_of(arg, arr, spec)))
            else:
                key.append("#")
        if self.autodiff_mode != "none":  # and which ndarrays bring a `.grad` (reverse mode)
            key += [self.autodiff_mode, *ad_mode.grad_positions(self.autodiff_mode, specs, args)]
        return tuple(key)

    # --- calling -----------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != self._arity:
            args = self._bind(args, kwargs)
        program = impl.current.program
        if (
            program is not self._program
            or program.ad_scope is not None
            or program.pending is not None
        ):
            return self._call_checked(args)
        fast_key = self._fast_key
        try:
            hit = self._fast.get(fast_key(args)) if fast_key is not None else None
        except TypeError:  # an unhashable template argument: its calls take the slow path
            hit = None
        if hit is None:
            return self._call_slowly(args, program)
        entry, launch, pick = hit  # fields, scalars, NumPy arrays and ti.ndarrays seen before
        entry.hits += 1
        entry.last_use = time.time()
        try:
            returned = launch(args, program.root_addresses)
        except ValueError:  # refused before it ran: a transposed or strided NumPy array
            if not strided_array_at(args, self._array_positions):
                raise
            entry.hits -= 1
            return self._call_slowly(args, program)  # which converts it
        if program.pointer_trees:  # deactivated pointer cells back to their pools
            _collect_sparse(program)
        if bus.kinds:
            _publish_launch(self, entry, pick(args))
        return args_.returned_values(returned, entry) if returned else None

    def _call_checked(self, args: tuple) -> Any:
        """A call the fast path of `__call__` leaves out because of the program's state: the
        first call under a program, an open `ti.ad` scope, fields declared since the last
        materialisation."""
        program = impl.get_program()
        if program.ad_scope is not None and program.ad_scope.intercept(self, args):
            return program.ad_scope.run_instead(self, args)  # a ti.ad.FwdMode is open
        if program is not self._program:
            self._reset_for(program)
        if program.has_pending_fields:
            program.materialize()
        return self._call_slowly(args, program)

    def _call_slowly(self, args: tuple, program: Any) -> Any:
        """A call the fast path of `__call__` does not know: the first of its signature, or one
        with tensors or DLPack producers (converted to NumPy arrays, written back after)."""
        specs = self._specs_cached
        write_backs = None
        if self._array_positions:  # tensors, DLPack, F-order arrays -> C-contiguous NumPy arrays
            args, write_backs = convert_array_args(args, self._array_positions, self._names)
        hit = self._fast_hit(args)
        if hit is None:
            entry = self._lookup(args, specs, program)
            hit = self._fast_hit(args)
        else:
            entry = hit[0]
            entry.hits += 1
        entry.last_use = time.time()
        if entry.pick is not None:  # fields and scalars only: the args themselves
            runtime_args = entry.pick(args)
        else:
            runtime_args = args_.runtime_args(entry, args, specs)
        if entry.grad_positions:  # reverse mode: `arr.grad` after the declared arguments
            runtime_args = [*runtime_args, *ad_mode.grad_arrays(args, entry.grad_positions)]
        if hit is not None and hit[0] is entry:  # the launch the next calls will use
            returned = hit[1](args, program.root_addresses)
        else:
            returned = entry.instance.launch(runtime_args, program.root_addresses)
        if program.pointer_trees:  # deactivated pointer cells back to their pools
            _collect_sparse(program)
        if write_backs is not None:  # copies of non-contiguous / non-CPU tensors go back now
            write_backs()
        if bus.kinds:
            _publish_launch(self, entry, runtime_args)
        return args_.returned_values(returned, entry)

    def _bind(self, args: tuple, kwargs: dict) -> tuple:
        """The arguments in parameter order, bound as Taichi binds them (`frontend/arguments.py`:
        its TaichiSyntaxError, which is also a TypeError)."""
        bound = bind_arguments(
            f"kernel '{self.__name__}'",
            self._signature,
            args,
            kwargs,
            lambda ann: resolve_annotation(self.fn, ann),
        )
        return tuple(bound.values())

    def _lookup(self, args: tuple, specs: list[ParamSpec], program: Any) -> CacheEntry:
        """The slow path of a call: the full template key, compiling on a miss; then remember
        the entry under the cheap key of `fast_calls.fast_key_function` for the next call."""
        key = self._key(args, specs)
        entry = self._cache.get(key)
        if entry is None:
            entry = self._instantiate(key, args, specs, program)
        else:
            entry.hits += 1
        if self._fast_key is not None and (hit := fast_hit(entry, specs, args)) is not None:
            with contextlib.suppress(TypeError):  # an unhashable template argument: no entry
                self._fast[self._fast_key(args)] = hit
        return entry

    def _fast_hit(self, args: tuple) -> tuple | None:
        """The fast table's entry for `args`, if any (none for unhashable template arguments,
        which only the full key, `kernel_args.template_key`, tells apart)."""
        if self._fast_key is None:
            return None
        try:
            return self._fast.get(self._fast_key(args))
        except TypeError:
            return None

    def _reset_for(self, program: Any) -> None:
        self._program = program
        if self._cache:
            self._reset = why_.Reset(len(self._cache), next(iter(self._cache.values())).arch)
        self._namer = Namer()
        self._cache.clear()
        self._specs_cached = self._specs()
        self._fast = {}
        # the full key only for twins: it knows which ndarrays bring a gradient
        plain = self.autodiff_mode == "none"
        self._fast_key = fast_key_function(self._specs_cached) if plain else None
        self._array_positions = tuple(
            i for i, s in enumerate(self._specs_cached) if s.kind == "ndarray"
        )
        program.kernel_counter += 1
        self._counter = program.kernel_counter - 1

    def _instantiate(
        self, key: tuple, args: tuple, specs: list[ParamSpec], program: Any
    ) -> CacheEntry:
        grads = ad_mode.grad_positions(self.autodiff_mode, specs, args)
        labels = self._namer.labels(specs, args)
        facts = why_.describe(self._names, specs, args, labels, grads)
        start, waited = time.perf_counter(), warm_up.waited()
        name = self._instance_name(f"c{self._counter}_{len(self._cache)}")
        result = self._compile(name, args, specs, program, record=program.config.record_passes)
        startup_ms = (warm_up.waited() - waited) * 1e3
        compile_ms = (time.perf_counter() - start) * 1e3 - startup_ms
        arch, earlier = program.config.arch, list(self._cache.values())
        why = why_.explain(self.__name__, key, facts, earlier, compile_ms, arch, self._reset)
        positions = tuple(i for i, s in enumerate(specs) if s.kind != "template")
        layout = self._ret_layout()
        entry = CacheEntry(
            key,
            ", ".join(f.text for f in facts),
            name,
            result.executable,
            compile_ms,
            result,
            runtime_positions=positions,
            flat_args=all(s.kind not in ("matrix", "struct") for s in specs),
            ret_layout=layout if any(kind != "scalar" for kind, _ in layout) else None,
            arch=arch,
            pick=picker(positions) if all(s.kind in _PLAIN for s in specs) else None,
            grad_positions=grads,
            facts=facts,
            why=why,
            startup_ms=startup_ms,
        )
        self._cache[key] = entry
        for message, loc in result.warnings:  # shown at the kernel's line, not at ours
            if loc is None:
                warnings.warn(message, stacklevel=3)
            else:
                warnings.warn_explicit(message, UserWarning, loc.filename, loc.line)
        if bus.wants("compiled"):
            bus.publish("compiled", kernel=self, entry=entry)
        return entry

    def _compile(
        self, name: str, args: tuple, specs: list[ParamSpec], program: Any, record: bool
    ) -> Any:
        with _collector_paused():
            start = time.perf_counter()
            build = self._ir_builder(name, args, specs, program)
            ir = build()
            frontend_ms = (time.perf_counter() - start) * 1e3
            echo = print if program.config.print_ir else None
            source = self._source_text()
            result = program.compile(ir, record, echo, source, self.debug, rebuild=build)
        result.frontend_ms = frontend_ms
        return result

    def frontend_ir(self, args: tuple, name: str) -> Any:
        """The frontend IR of the instantiation for `args`, named `name`, neither compiled nor
        cached: AOT modules (`tistudio.aot`) run it through the passes themselves."""
        program = impl.get_program()
        if program is not self._program:
            self._reset_for(program)
        program.materialize()
        return self._frontend_ir(name, tuple(args), self._specs_cached, program)

    def param_specs(self) -> list[ParamSpec]:
        """Each parameter as its annotation declares it (kind, dtype, ndim)."""
        return self._specs()

    def _frontend_ir(self, name: str, args: tuple, specs: list[ParamSpec], program: Any) -> Any:
        return self._ir_builder(name, args, specs, program)()

    def _ir_builder(
        self, name: str, args: tuple, specs: list[ParamSpec], program: Any
    ) -> Callable[[], Any]:
        """What builds the frontend IR for `args`, as often as asked: it keeps the template
        arguments and the arrays' dtypes and shapes, never an array (the studio builds it again
        to print the passes, `passes/deferred.py`)."""
        if self._parsed is None:
            self._parsed = parse_function(self.fn)
        templates = {s.name: a for s, a in zip(specs, args) if s.kind == "template"}
        arrays = {
            s.name: args_.as_array(a, s, self.__name__)
            for s, a in zip(specs, args)
            if s.kind == "ndarray"
        }
        ndarrays = {}
        for spec, arg in zip(specs, args):
            if spec.kind == "ndarray":  # a ti.ndarray knows its element shape
                arr = arrays[spec.name]
                shape = args_.element_shape_of(arg, arr, spec)
                ndarrays[spec.name] = (to_dtype(arr.dtype), arr.ndim - len(shape), shape)
        parsed, ret_types, config = self._parsed, self._ret_types(), program.config_for(self.debug)
        positions = ad_mode.grad_positions(self.autodiff_mode, specs, args)

        def build() -> Any:
            ir = build_frontend_ir(
                self.fn, parsed, specs, templates, ndarrays, ret_types, config, name
            )
            ad_mode.mark(ir, self.autodiff_mode, specs, positions)
            return ir

        return build

    def _instance_name(self, tag: str) -> str:
        """`f_c3_0` for `f`; `f_c3_0_reverse_grad` for `f.grad`, as Taichi names them."""
        base = self.primal.__name__ if self.primal is not None else self.__name__
        return ad_mode.instance_name(f"{base}_{tag}", self.autodiff_mode)

    def _source_text(self) -> str:
        """The kernel's own lines and where they are: part of the offline cache's key."""
        parsed = self._parsed
        assert parsed is not None
        node = parsed.node
        first = node.lineno + parsed.line_offset
        last = (node.end_lineno or node.lineno) + parsed.line_offset
        lines = "\n".join(parsed.source_line(n) for n in range(first, last + 1))
        return f"{parsed.filename}:{first}\n{lines}"

    @property
    def grad(self) -> Kernel:
        """The adjoint kernel (reverse mode, made by the `auto_diff` pass; see tistudio.ad)."""
        return self.twin("reverse")

    def twin(self, mode: str) -> Kernel:
        """This kernel compiled in autodiff mode `mode`, made once and kept here."""
        assert self.autodiff_mode == "none", "twins are made from the kernel the user wrote"
        if mode not in self._autodiff_twins:
            self._autodiff_twins[mode] = Kernel(self.fn, mode, primal=self)
        return self._autodiff_twins[mode]

    def twins(self) -> list[Kernel]:
        """The autodiff versions of this kernel made so far (`f.grad`, ...), for the studio."""
        return list(self._autodiff_twins.values())

    # --- introspection -----------------------------------------------------------------------

    def cache_info(self) -> list[dict[str, Any]]:
        """One row per template signature: kernel name, signature, compile ms, hits, misses, and
        `why` it compiled (what differs from the nearest earlier signature; recompile_why)."""
        return [e.info() for e in self._cache.values()]

    def instances(self) -> list[CacheEntry]:
        return list(self._cache.values())

    def compile_report(self, *args: Any, **kwargs: Any) -> CompileReport:
        """Compile (again) with recording on for these arguments and return what every pass
        did, plus the final LLVM IR and assembly. Does not launch the kernel."""
        if kwargs or len(args) != len(self._names):
            args = self._bind(args, kwargs)  # the same errors as a call with these arguments
        program = impl.get_program()
        if program is not self._program:
            self._reset_for(program)
        program.materialize()
        specs = self._specs_cached
        key = self._key(args, specs)
        name = self._cache[key].name if key in self._cache else self._instance_name("report")
        result = self._compile(name, args, specs, program, record=True)
        labels = self._namer.labels(specs, args)
        text = args_.signature_text(self._names, specs, args, labels)
        return CompileReport(name, text, result, self._parsed, self)


def kernel(fn: Callable[..., Any]) -> Kernel:
    return Kernel(fn)


_PLAIN = ("template", "scalar")  # parameter kinds whose runtime values are the args themselves


_imports_collected = False  # see `_collector_paused`


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a kernel compiles: the IR and the LLVM
    module are thousands of small objects, whose allocation set off collections of the whole
    heap (1-2 ms of a 30 ms compile, more in a notebook full of objects). The compile's
    garbage is mostly acyclic and freed by reference counting; whatever is left waits for the
    next collection. Left alone when the program turned the collector off itself.

    The process's first compile imports the compiler's lazily loaded modules (the frontend,
    llvmlite: ~8,000 long-lived functions, classes and ctypes wrappers), which then sit in
    the young generations until a collection of generation 1 moves them on. Left alone, that
    collection came in a later kernel's first call (2.6-8 ms of it, in 4 of 6 fresh processes
    of the compile_next benchmark); so the first compile ends with it, as part of start-up."""
    global _imports_collected
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        if not _imports_collected:
            _imports_collected = True
            gc.collect(1)


def _collect_sparse(program: Any) -> None:
    """After a launch on trees with pointer nodes: recycle the cells it deactivated, and raise
    if a pool ran out (ir/sparse.py)."""
    problem = program.collect_sparse()
    if problem:
        raise TaichiRuntimeError(problem)


def _publish_launch(kernel_obj: Kernel, entry: CacheEntry, args: Any = ()) -> None:
    bus.publish("launched", kernel=kernel_obj, entry=entry, args=args)
    if bus.wants("field_written"):
        bus.publish("field_written", kernel=kernel_obj, snodes=entry.result.written_snodes)

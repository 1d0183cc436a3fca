"""Translation of a generated kernel (Python source, as :mod:`.kernels` writes it for Numba) to
LLVM IR, without Numba.

The kernels :mod:`.elemwise_codegen`, :mod:`.reduce_codegen` and friends write use a small part
of Python: ``for`` over ``range``, ``while``, ``if``, scalar arithmetic and comparisons, NumPy
scalar casts (``np.float64(x)``), ``math`` functions, indexing of arrays of a known rank and
layout, and a few helpers (``stack_empty``, ``flat_view``, ``block_call``, plain functions of
jitgraph's modules, which are inlined). :class:`FunctionLowering` types that part the way Numba
does and emits the function with Numba's native calling convention, so the entry code of
:mod:`.native_ir` calls it exactly as it calls a function Numba compiled. Anything outside the
part (or typed in a way this module does not reproduce exactly) raises
:class:`~.direct_types.Unsupported`, and the kernel is compiled by Numba as before.
"""

from __future__ import annotations

import ast
import pickle
from collections.abc import Callable
from typing import Any

from jitgraph.backend_cpu.native import direct_ops as ops
from jitgraph.backend_cpu.native.direct_env import module_env, resolve_global
from jitgraph.backend_cpu.native.direct_intrinsics import INTRINSIC_CALLS, fold
from jitgraph.backend_cpu.native.direct_types import (Arg, ArrayArg, PointerArg, Unsupported, kind,
                                                      memory_type, parse_signature, unified,
                                                      value_type)
from jitgraph.backend_cpu.native.direct_values import (
    ArrayValue, DType, Intrinsic, Literal, Module, ModuleEnv, Pointer, PyFunction, ShapeTuple,
    Value, Variable, Writer)

_NUMPY_DTYPES = {"bool": "bool", "bool_": "bool", **{n: n for n in (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
    "float64")}, "intp": "int64", "uintp": "uint64", "double": "float64"}
_CONSTANTS = {("math", "pi"): 3.141592653589793, ("math", "e"): 2.718281828459045,
              ("math", "inf"): float("inf"), ("math", "nan"): float("nan"),
              ("numpy", "inf"): float("inf"), ("numpy", "nan"): float("nan"),
              ("numpy", "pi"): 3.141592653589793, ("numpy", "e"): 2.718281828459045}
_NUMPY_FUNCTIONS = {"floor", "ceil", "trunc", "rint", "exp2", "sqrt", "exp", "log", "sin", "cos",
                    "tan", "tanh", "sinh", "cosh", "log1p", "expm1", "log2", "log10", "isnan",
                    "isinf", "isfinite"}
_MAX_INLINE_DEPTH = 16  # nested helper functions (special_math: up to ~10 deep)


def exception_info(w: Writer, exc: type, args: tuple) -> str:
    """A constant exception description (what Numba stores in ``*excinfo``)."""
    data = pickle.dumps((exc, args, None), protocol=4)
    n = len(w.globals)
    body = "".join(f"\\{b:02X}" for b in data)
    w.globals.append(f'@.exc{n}.data = private unnamed_addr constant [{len(data)} x i8] '
                     f'c"{body}"')
    w.globals.append(f"@.exc{n} = private unnamed_addr constant {{ptr, i32}} "
                     f"{{ptr @.exc{n}.data, i32 {len(data)}}}")
    return f"@.exc{n}"


class FunctionLowering:
    """One kernel function translated to LLVM IR text (see the module docstring)."""

    def __init__(self, env: ModuleEnv, fastmath: str) -> None:
        self.w = Writer()
        self.fastmath = fastmath
        self.scopes: list[dict[str, Any]] = []
        self.envs: list[ModuleEnv] = [env]
        self.returns: list[tuple[str, list]] = []  # (continue label, [result Variable])
        self.loops: list[tuple[str, str]] = []   # (continue label, break label)
        self.strided_accesses = 0  # element addresses computed from strides so far

    # -- entry point ------------------------------------------------------------------------

    def function(self, node: ast.FunctionDef, argtypes: tuple[Arg, ...], name: str) -> str:
        """``define i32 @name(ptr %retptr, ptr %excinfo, params...)`` of ``node``."""
        if len(node.args.args) != len(argtypes) or node.args.vararg or node.args.kwonlyargs:
            raise Unsupported("signature and parameters differ")
        params = ["ptr %retptr", "ptr %excinfo"]
        scope: dict[str, Any] = {}
        for a, ty in zip(node.args.args, argtypes):
            scope[a.arg] = self._parameter(a.arg, ty, params)
        self.scopes.append(scope)
        self.statements(node.body)
        if not self.w.terminated:
            self.w.terminate("ret i32 0")
        w = self.w
        body = "\n".join(["entry:", *w.allocas, "  br label %start", "start:", *w.lines])
        return "\n".join([*w.globals, *w.declarations.values(),
                          f"define i32 @{name}({', '.join(params)}) {{", body, "}",
                          *w.metadata, ""])

    def _parameter(self, name: str, ty: Arg, params: list[str]) -> Any:
        p = f"%a_{name}"
        if isinstance(ty, ArrayArg):
            params += [f"ptr {p}.meminfo", f"ptr {p}.parent", f"i64 {p}.nitems",
                       f"i64 {p}.itemsize", f"ptr {p}.data"]
            shape = tuple(f"{p}.s{d}" for d in range(ty.ndim))
            strides = tuple(f"{p}.st{d}" for d in range(ty.ndim))
            params += [f"i64 {s}" for s in shape] + [f"i64 {s}" for s in strides]
            return ArrayValue(ty.dtype, ty.layout, f"{p}.data", shape, strides)
        if isinstance(ty, PointerArg):
            params.append(f"ptr {p}")
            return Pointer(p, ty.dtype)
        if ty.dtype == "bool":
            params.append(f"i8 {p}")
            value = Value(self.w.value(f"icmp ne i8 {p}, 0"), "bool")
        else:
            params.append(f"{value_type(ty.dtype)} {p}")
            value = Value(p, ty.dtype)
        var = Variable(self.w.alloca(value.llvm), value.dtype)
        self.w.emit(f"store {value.llvm} {value.ref}, ptr {var.slot}")
        return var

    # -- names ------------------------------------------------------------------------------

    def lookup(self, name: str) -> Any:
        bound = self.scopes[-1].get(name)
        if bound is None:
            bound = resolve_global(self.envs[-1], name)
        if isinstance(bound, Variable):
            return Value(self.w.value(f"load {value_type(bound.dtype)}, ptr {bound.slot}"),
                         bound.dtype)
        return bound

    def assign(self, name: str, value: Any) -> None:
        scope = self.scopes[-1]
        bound = scope.get(name)
        if isinstance(value, (Value, Literal)) and not isinstance(bound, (ArrayValue, Pointer)):
            v = ops.as_value(value, name)
            if bound is None:
                bound = scope[name] = Variable(self.w.alloca(v.llvm), v.dtype)
            elif unified(bound.dtype, v.dtype) != bound.dtype:
                raise Unsupported(f"variable {name} takes types {bound.dtype} and {v.dtype}")
            v = ops.cast(self.w, v, bound.dtype)
            self.w.emit(f"store {v.llvm} {v.ref}, ptr {bound.slot}")
        elif isinstance(value, (ArrayValue, Pointer)) and bound is None:
            scope[name] = value
        else:
            raise Unsupported(f"assignment of {type(value).__name__} to {name}")

    # -- statements -------------------------------------------------------------------------

    def statements(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            handler = _STATEMENTS.get(type(stmt))
            if handler is None:
                raise Unsupported(f"statement {type(stmt).__name__}")
            handler(self, stmt)

    def _assign(self, node: ast.Assign) -> None:
        if len(node.targets) != 1:
            raise Unsupported("chained assignment")
        self._store_target(node.targets[0], self.expr(node.value))

    def _store_target(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.assign(target.id, value)
        elif isinstance(target, ast.Subscript):
            arr = self.expr(target.value)
            if not isinstance(arr, ArrayValue):
                raise Unsupported("item assignment to a non-array")
            ptr = self.element_pointer(arr, target.slice)
            v = ops.cast(self.w, ops.as_value(value), arr.dtype)
            if arr.dtype == "bool":
                v = Value(self.w.value(f"zext i1 {v.ref} to i8"), "uint8")
            self.w.emit(f"store {memory_type(arr.dtype)} {v.ref}, ptr {ptr}")
        else:
            raise Unsupported(f"assignment target {type(target).__name__}")

    def _augassign(self, node: ast.AugAssign) -> None:
        current = ops.as_value(self.expr(node.target))
        value = self._binop_values(node.op, current, ops.as_value(self.expr(node.value)))
        self._store_target(node.target, value)

    def _expr_stmt(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant):  # a docstring
            return
        self.expr(node.value)

    def _pass(self, node: ast.Pass) -> None:
        pass

    def _if(self, node: ast.If) -> None:
        w = self.w
        cond = ops.truth(w, ops.as_value(self.expr(node.test)))
        then, other, join = w.new_label("then"), w.new_label("else"), w.new_label("endif")
        w.branch(cond, then, other if node.orelse else join)
        w.label(then)
        self.statements(node.body)
        if not w.terminated:
            w.jump(join)
        if node.orelse:
            w.label(other)
            self.statements(node.orelse)
            if not w.terminated:
                w.jump(join)
        w.label(join)

    def _while(self, node: ast.While) -> None:
        if node.orelse:
            raise Unsupported("while ... else")
        w = self.w
        head, body, done = w.new_label("while"), w.new_label("wbody"), w.new_label("wend")
        w.label(head)
        cond = ops.truth(w, ops.as_value(self.expr(node.test)))
        w.branch(cond, body, done)
        w.label(body)
        self.loops.append((head, done))
        self.statements(node.body)
        self.loops.pop()
        if not w.terminated:
            w.jump(head)
        w.label(done)

    def _for(self, node: ast.For) -> None:
        call = node.iter
        if node.orelse or not isinstance(node.target, ast.Name) or not (
                isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and isinstance(self.lookup(call.func.id), Intrinsic)
                and call.func.id == "range" and 1 <= len(call.args) <= 3):
            raise Unsupported("for loop other than over range(...)")
        w = self.w
        given_bounds = [self.expr(a) for a in call.args]
        bounds = [self._int64(b, "range argument") for b in given_bounds]
        step = 1
        if len(call.args) == 3:
            given = given_bounds[2]
            if not isinstance(given, Literal) or type(given.value) is not int or not given.value:
                raise Unsupported("range with a step that is not a nonzero constant")
            step = given.value
        start, stop = (Value("0", "int64"), bounds[0]) if len(bounds) == 1 else bounds[:2]
        counter = w.alloca("i64")
        w.emit(f"store i64 {start.ref}, ptr {counter}")
        head, body, latch, done = (w.new_label(p) for p in ("for", "body", "next", "endfor"))
        w.label(head)
        i = w.value(f"load i64, ptr {counter}")
        more = w.value(f"icmp {'slt' if step > 0 else 'sgt'} i64 {i}, {stop.ref}")
        w.branch(more, body, done)
        w.label(body)
        self.assign(node.target.id, Value(i, "int64"))
        self.loops.append((latch, done))
        strided_before = self.strided_accesses
        self.statements(node.body)
        self.loops.pop()
        w.label(latch)
        nxt = w.value(f"add i64 {i}, {step}")
        w.emit(f"store i64 {nxt}, ptr {counter}")
        # A loop of run-time length over contiguous arrays is vectorized and interleaved; LLVM's
        # run-time unrolling on top of that made it no faster and was a third of LLVM's work.
        # A loop over literal bounds (a pooling window) may still be unrolled, fully if short,
        # and so may a loop reading strided arrays (not vectorized: unrolling gains ~7%).
        w.loop_back(head, unroll=all(isinstance(b, Literal) for b in given_bounds)
                    or self.strided_accesses > strided_before)
        w.label(done)

    def _int64(self, obj: Any, what: str) -> Value:
        v = ops.as_value(obj, what)
        if kind(v.dtype) != "i":
            raise Unsupported(f"{what} of type {v.dtype}")
        return ops.cast(self.w, v, "int64")

    def _break(self, node: ast.Break) -> None:
        self.w.jump(self.loops[-1][1])

    def _continue(self, node: ast.Continue) -> None:
        self.w.jump(self.loops[-1][0])

    def _raise(self, node: ast.Raise) -> None:
        exc = node.exc
        args: tuple = ()
        if isinstance(exc, ast.Call):
            args = tuple(ast.literal_eval(a) for a in exc.args)
            exc = exc.func
        cls = self.lookup(exc.id) if isinstance(exc, ast.Name) else None
        if not (isinstance(cls, type) and issubclass(cls, Exception)):
            raise Unsupported("raise of something other than a builtin exception")
        info = exception_info(self.w, cls, args)
        self.w.emit(f"store ptr {info}, ptr %excinfo")
        self.w.terminate("ret i32 1")

    def _return(self, node: ast.Return) -> None:
        if not self.returns:
            if node.value is not None:
                raise Unsupported("a kernel returning a value")
            self.w.terminate("ret i32 0")
            return
        label, slot = self.returns[-1]
        if node.value is None:
            raise Unsupported("an inlined function returning None")
        v = ops.as_value(self.expr(node.value), "return value")
        if not slot:
            slot.append(Variable(self.w.alloca(v.llvm), v.dtype))
        elif slot[0].dtype != v.dtype:
            raise Unsupported("a function returning values of different types")
        self.w.emit(f"store {v.llvm} {v.ref}, ptr {slot[0].slot}")
        self.w.jump(label)

    # -- expressions ------------------------------------------------------------------------

    def expr(self, node: ast.expr) -> Any:
        handler = _EXPRESSIONS.get(type(node))
        if handler is None:
            raise Unsupported(f"expression {type(node).__name__}")
        return handler(self, node)

    def _name(self, node: ast.Name) -> Any:
        return self.lookup(node.id)

    def _constant(self, node: ast.Constant) -> Any:
        return Literal(node.value)

    def _tuple(self, node: ast.Tuple) -> Any:
        if not node.elts:
            return Literal(())
        raise Unsupported("tuple values")

    def _attribute(self, node: ast.Attribute) -> Any:
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, Module):
            if (base.name, attr) in _CONSTANTS:
                return Literal(_CONSTANTS[(base.name, attr)])
            if base.name == "numpy" and attr in _NUMPY_DTYPES:
                return DType(_NUMPY_DTYPES[attr])
            if base.name == "numba" and attr == "carray":
                return Intrinsic("carray")
            return ("function", base.name, attr)
        if isinstance(base, ArrayValue):
            if attr == "shape":
                return ShapeTuple(tuple(Value(s, "int64") for s in base.shape))
            if attr == "size":
                return self.nitems(base)
            if attr == "ndim":
                return Literal(base.ndim)
        raise Unsupported(f"attribute {attr}")

    def _binop_values(self, op: ast.operator, a: Value, b: Value) -> Value:
        return ops.binary(self.w, op, a, b, self.fastmath)

    def _binop(self, node: ast.BinOp) -> Any:
        a, b = self.expr(node.left), self.expr(node.right)
        if isinstance(a, Literal) and isinstance(b, Literal):
            return fold(node.op, a.value, b.value)
        return self._binop_values(node.op, ops.as_value(a), ops.as_value(b))

    def _unaryop(self, node: ast.UnaryOp) -> Any:
        operand = self.expr(node.operand)
        if isinstance(operand, Literal) and isinstance(node.op, ast.USub) \
                and isinstance(operand.value, (int, float)) \
                and not isinstance(operand.value, bool):
            return Literal(-operand.value)
        return ops.unary(self.w, node.op, ops.as_value(operand), self.fastmath)

    def _compare(self, node: ast.Compare) -> Any:
        if len(node.ops) != 1:
            raise Unsupported("chained comparison")
        a = ops.as_value(self.expr(node.left))
        b = ops.as_value(self.expr(node.comparators[0]))
        return ops.compare(self.w, node.ops[0], a, b, self.fastmath)

    def _boolop(self, node: ast.BoolOp) -> Any:
        """``a and b`` / ``a or b`` of booleans, short-circuited."""
        w = self.w
        result = w.alloca("i1")
        done = w.new_label("bool")
        is_and = isinstance(node.op, ast.And)
        for i, operand in enumerate(node.values):
            v = ops.as_value(self.expr(operand))
            if v.dtype != "bool":
                raise Unsupported("and/or of non-booleans")
            w.emit(f"store i1 {v.ref}, ptr {result}")
            if i < len(node.values) - 1:
                nxt = w.new_label("bool")
                w.branch(v.ref, nxt if is_and else done, done if is_and else nxt)
                w.label(nxt)
        w.label(done)
        return Value(w.value(f"load i1, ptr {result}"), "bool")

    def _ifexp(self, node: ast.IfExp) -> Any:
        w = self.w
        cond = ops.truth(w, ops.as_value(self.expr(node.test)))
        with w.capture() as then_code:
            a = ops.as_value(self.expr(node.body))
        with w.capture() as else_code:
            b = ops.as_value(self.expr(node.orelse))
        dtype = unified(a.dtype, b.dtype)
        slot = w.alloca(value_type(dtype))
        then, other, join = w.new_label("ift"), w.new_label("iff"), w.new_label("ifend")
        w.branch(cond, then, other)
        for label, code, v in ((then, then_code, a), (other, else_code, b)):
            w.label(label)
            with w.resume(code):
                v = ops.cast(w, v, dtype)
                w.emit(f"store {v.llvm} {v.ref}, ptr {slot}")
                w.jump(join)
            w.splice(code)
        w.label(join)
        return Value(w.value(f"load {value_type(dtype)}, ptr {slot}"), dtype)

    def _subscript(self, node: ast.Subscript) -> Any:
        base = self.expr(node.value)
        if isinstance(base, ShapeTuple):
            index = self.expr(node.slice)
            if not isinstance(index, Literal) or not isinstance(index.value, int):
                raise Unsupported("shape indexed by a variable")
            return base.items[index.value]
        if not isinstance(base, ArrayValue):
            raise Unsupported("indexing of a non-array")
        ptr = self.element_pointer(base, node.slice)
        raw = self.w.value(f"load {memory_type(base.dtype)}, ptr {ptr}")
        if base.dtype == "bool":
            return Value(self.w.value(f"icmp ne i8 {raw}, 0"), "bool")
        return Value(raw, base.dtype)

    def _call(self, node: ast.Call) -> Any:
        if node.keywords:
            raise Unsupported("keyword arguments")
        fn = self.expr(node.func)
        args = [self.expr(a) for a in node.args]
        if isinstance(fn, DType):
            (arg,) = args
            return ops.cast(self.w, ops.as_value(arg), fn.dtype)
        if isinstance(fn, Intrinsic):
            handler = INTRINSIC_CALLS.get(fn.name)
            if handler is None:
                raise Unsupported(f"call of {fn.name}")
            return handler(self, node, args)
        if isinstance(fn, PyFunction):
            return self.inline(fn, args)
        if isinstance(fn, tuple) and fn[0] == "function":
            _, module, name = fn
            if module == "math" or (module == "numpy" and name in _NUMPY_FUNCTIONS):
                values = [ops.as_value(a) for a in args]
                to_int = module == "math" and name in ops.MATH_TO_INT
                res = ops.call_intrinsic(self.w, name, values, self.fastmath)
                return ops.cast(self.w, res, "int64") if to_int else res
        raise Unsupported(f"call of {ast.dump(node.func)}")

    def inline(self, fn: PyFunction, args: list[Any]) -> Value:
        """The value of a call of a plain Python function, its body inlined here."""
        node = fn.node
        if len(self.returns) >= _MAX_INLINE_DEPTH or len(node.args.args) != len(args) \
                or node.args.vararg or node.args.defaults:
            raise Unsupported(f"call of {node.name}")
        w = self.w
        self.scopes.append({})
        self.envs.append(fn.env)
        for param, value in zip(node.args.args, args):
            self.assign(param.arg, value)
        done = w.new_label("ret")
        slot: list[Variable] = []
        self.returns.append((done, slot))
        self.statements(node.body)
        self.returns.pop()
        self.envs.pop()
        self.scopes.pop()
        if not w.terminated:
            raise Unsupported(f"{node.name} can end without returning a value")
        w.label(done)
        if not slot:
            raise Unsupported(f"{node.name} never returns")
        return Value(w.value(f"load {value_type(slot[0].dtype)}, ptr {slot[0].slot}"),
                     slot[0].dtype)

    # -- arrays -----------------------------------------------------------------------------

    def nitems(self, arr: ArrayValue) -> Value:
        total = "1"
        for s in arr.shape:
            total = self.w.value(f"mul i64 {total}, {s}")
        return Value(total, "int64")

    def element_pointer(self, arr: ArrayValue, index_node: ast.expr) -> str:
        """The address of ``arr[index]`` (a full index: one integer per axis)."""
        w = self.w
        if isinstance(index_node, ast.Tuple):
            nodes = index_node.elts
        elif isinstance(index_node, ast.Constant) and index_node.value == ():
            nodes = []
        else:
            nodes = [index_node]
        if len(nodes) != arr.ndim:
            raise Unsupported(f"{len(nodes)} indices for a {arr.ndim}-d array")
        idx = [self._index(self.expr(n), arr.shape[d]) for d, n in enumerate(nodes)]
        if not idx:
            return arr.data
        if arr.layout == "C":
            offset = idx[0]
            for d in range(1, arr.ndim):
                scaled = w.value(f"mul i64 {offset}, {arr.shape[d]}")
                offset = w.value(f"add i64 {scaled}, {idx[d]}")
            return w.value(f"getelementptr {memory_type(arr.dtype)}, ptr {arr.data}, i64 {offset}")
        self.strided_accesses += 1
        offset = "0"
        for d in range(arr.ndim):
            term = w.value(f"mul i64 {idx[d]}, {arr.strides[d]}")
            offset = w.value(f"add i64 {offset}, {term}")
        return w.value(f"getelementptr i8, ptr {arr.data}, i64 {offset}")

    def _index(self, obj: Any, extent: str) -> str:
        """An index as i64; a negative signed index counts from the end (as in Numba)."""
        if isinstance(obj, Literal) and isinstance(obj.value, int) \
                and not isinstance(obj.value, bool):
            if obj.value >= 0:
                return str(obj.value)
            return self.w.value(f"add i64 {extent}, {obj.value}")
        v = ops.as_value(obj, "index")
        k = kind(v.dtype)
        if k == "u":
            return ops.cast(self.w, v, "uint64").ref
        if k != "i":
            raise Unsupported(f"index of type {v.dtype}")
        i = ops.cast(self.w, v, "int64").ref
        neg = self.w.value(f"icmp slt i64 {i}, 0")
        wrapped = self.w.value(f"add i64 {i}, {extent}")
        return self.w.value(f"select i1 {neg}, i64 {wrapped}, i64 {i}")


_STATEMENTS: dict[type, Callable] = {
    ast.Assign: FunctionLowering._assign, ast.AugAssign: FunctionLowering._augassign,
    ast.Expr: FunctionLowering._expr_stmt, ast.Pass: FunctionLowering._pass,
    ast.If: FunctionLowering._if, ast.While: FunctionLowering._while,
    ast.For: FunctionLowering._for, ast.Break: FunctionLowering._break,
    ast.Continue: FunctionLowering._continue, ast.Raise: FunctionLowering._raise,
    ast.Return: FunctionLowering._return,
}

_EXPRESSIONS: dict[type, Callable] = {
    ast.Name: FunctionLowering._name, ast.Constant: FunctionLowering._constant,
    ast.Tuple: FunctionLowering._tuple, ast.Attribute: FunctionLowering._attribute,
    ast.BinOp: FunctionLowering._binop, ast.UnaryOp: FunctionLowering._unaryop,
    ast.Compare: FunctionLowering._compare, ast.BoolOp: FunctionLowering._boolop,
    ast.IfExp: FunctionLowering._ifexp, ast.Subscript: FunctionLowering._subscript,
    ast.Call: FunctionLowering._call,
}


def lower_entry(source: str, entry: str, name: str, fastmath: str
                ) -> tuple[str, tuple[Arg, ...]]:
    """The LLVM IR (text) of kernel ``entry`` of a module ``source``, defined as ``name``,
    and its argument types. Raises :class:`Unsupported`."""
    env = module_env(source, "<kernel>")
    node = env.functions.get(entry)
    sig = env.signatures.get(entry)
    if node is None or sig is None:
        raise Unsupported(f"no function or signature for {entry}")
    argtypes = parse_signature(sig)
    return FunctionLowering(env, fastmath).function(node, argtypes, name), argtypes


__all__ = ["FunctionLowering", "lower_entry"]

"""Printing cases shared by the tests and by the script that records Theano 1.0.5's output for
them (``data/record_printing_oracle.py``, run under the oracle).

Each case is a small program written against Theano's API; it receives the library through
``lib`` (real Theano when recording, ``jitgraph`` in the tests) and returns the text it printed.
Only graphs that both libraries build alike are compared (the cases avoid repeated small
constants, which Theano shares as one cached constant, and means, whose shape graph differs).
"""

from __future__ import annotations

import contextlib
import io
from types import SimpleNamespace
from typing import Callable

import numpy as np

CASES: dict[str, Callable[[SimpleNamespace], str]] = {}


def case(fn: Callable[[SimpleNamespace], str]) -> Callable[[SimpleNamespace], str]:
    CASES[fn.__name__] = fn
    return fn


def _logreg(lib: SimpleNamespace):
    T = lib.T
    x, w, b = T.dmatrix("x"), T.dvector("w"), T.dscalar("b")
    z = T.dot(x, w) - b
    return x, w, b, z, (T.exp(-z) * 2.5) > 0.5


def _captured(fn: Callable[[], object]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# debugprint

@case
def dp_basic(lib):
    return lib.printing.debugprint(_logreg(lib)[-1], file="str")


@case
def dp_print_type(lib):
    return lib.printing.debugprint(_logreg(lib)[-1], file="str", print_type=True)


@case
def dp_ids_int(lib):
    return lib.printing.debugprint(_logreg(lib)[-1], file="str", ids="int")


@case
def dp_ids_empty(lib):
    return lib.printing.debugprint(_logreg(lib)[-1], file="str", ids="")


@case
def dp_depth2(lib):
    return lib.printing.debugprint(_logreg(lib)[-1], file="str", depth=2)


@case
def dp_stop_on_name(lib):
    x, w, b, z, out = _logreg(lib)
    z.name = "z"
    return lib.printing.debugprint(out, file="str", stop_on_name=True)


@case
def dp_list_shares_ids(lib):
    x, w, b, z, out = _logreg(lib)
    return lib.printing.debugprint([out, lib.T.tanh(z)], file="str")


@case
def dp_apply_node(lib):
    return lib.printing.debugprint(_logreg(lib)[-1].owner, file="str")


@case
def dp_unnamed_inputs(lib):
    T = lib.T
    u = T.dvector()
    return lib.printing.debugprint(T.sqr(u) + u + T.dvector(), file="str", print_type=True)


@case
def dp_multi_output_op(lib):
    class TwoOutputs(lib.Op):
        __props__ = ()

        def make_node(self, x):
            return lib.Apply(self, [x], [x.type(), x.type()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0]
            output_storage[1][0] = inputs[0]

    v = lib.T.dvector("v")
    a, c = TwoOutputs()(v)
    return lib.printing.debugprint([a * c, c], file="str")


@case
def dp_clients(lib):
    T = lib.T
    x = T.dvector("x")
    y = x + x
    fgraph = lib.FunctionGraph([x], [y, y * x, T.exp(y)], clone=False)
    return lib.printing.debugprint(fgraph, file="str", print_clients=True)


@case
def dp_done_shared(lib):
    x, w, b, z, out = _logreg(lib)
    done: dict = {}
    first = lib.printing.debugprint(z, file="str", done=done)
    return first + "--\n" + lib.printing.debugprint(out, file="str", done=done)


@case
def dp_constants(lib):
    T = lib.T
    v = T.dvector("v")
    out = (v + np.arange(3.0)) * np.ones(3) - np.arange(30.0)[:3] + np.array([1.123456789, 2.0])
    return lib.printing.debugprint(out, file="str")


@case
def dp_function_tutorial(lib):
    """doc/library/printing.txt: the compiled gradient of x ** 2."""
    x = lib.T.dscalar("x")
    f = lib.theano.function([x], lib.T.grad(x ** 2, x))
    return lib.printing.debugprint(f, file="str")


@case
def dp_function_updates(lib):
    T = lib.T
    x = T.dvector("x")
    w = lib.theano.shared(np.ones(2), name="w")
    f = lib.theano.function([x], (x * w).sum(), updates=[(w, w - 0.1 * x)],
                            mode="FAST_COMPILE")
    return lib.printing.debugprint(f, file="str")


# ---------------------------------------------------------------------------------------------
# pprint

@case
def pp_tutorial_gradient(lib):
    """doc/library/printing.txt: pp(gy) before and after compilation."""
    x = lib.T.dscalar("x")
    gy = lib.T.grad(x ** 2, x)
    f = lib.theano.function([x], gy)
    return lib.theano.pp(gy) + "\n" + lib.theano.pp(f.maker.fgraph.outputs[0])


@case
def pp_tutorial_prediction(lib):
    """doc/tutorial/printing_drawing.txt: the logistic regression's prediction."""
    T = lib.T
    x, y = T.matrix("x"), T.vector("y")
    w = lib.theano.shared(np.zeros(5), name="w")
    b = lib.theano.shared(np.asarray(0.0), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    return lib.printing.pprint(p_1 > 0.5)


PP_EXPRESSIONS = [
    "x[1:3]", "x[i]", "v[::2]", "x[:, -1]", "x.shape[0]", "i % 3", "T.cast(x, 'int8')",
    "T.cast(x, 'float32')", "abs(x)", "T.inv(x)", "T.exp(x)", "x > 0", "T.switch(x > 0, x, 0)",
    "T.maximum(x, s)", "T.fill(x, 1.0)", "T.ones_like(x)", "T.zeros_like(x)",
    "T.nnet.sigmoid(x)", "T.nnet.softplus(x)", "x.T", "x.dimshuffle(1, 0)",
    "v.dimshuffle('x', 0)", "v.dimshuffle(0, 'x')", "T.stack([s, s])",
    "T.concatenate([x, x])", "T.alloc(s, 3, 4)", "T.dot(x, v)", "x.sum()", "x.sum(axis=0)",
    "x.shape", "x.reshape((2, -1))", "T.nnet.softmax(x)", "x + x * x - x / x", "-x",
    "x ** 2", "(x + 1) ** (x - 2)", "alpha * x", "T.neq(x, 1)", "T.and_(i, j)",
    "T.invert(T.lt(x, 1))", "T.isnan(x)", "T.round(x)", "T.clip(x, 0, 1)", "x.flatten()",
    "i // 2", "T.true_div(i, j)", "T.mul(x, x, x)", "T.add(x, x, x)",
    "T.constant(np.arange(3.)) + v", "T.outer(v, v)", "T.log1p(x)", "T.arange(i)",
    "T.inc_subtensor(v[1:], 1.0)", "T.set_subtensor(v[iv], 1.0)", "v[iv]", "T.tanh(x)",
    "T.nnet.relu(x)", "T.as_tensor_variable(2) * x",
]


def _pp_namespace(lib: SimpleNamespace) -> dict:
    T = lib.T
    return dict(T=T, np=np, x=T.dmatrix("x"), v=T.dvector("v"), s=T.dscalar("s"),
                i=T.lscalar("i"), j=T.lscalar("j"), iv=T.lvector("iv"),
                alpha=T.dscalar("alpha"))


@case
def pp_expressions(lib):
    ns = _pp_namespace(lib)
    return "\n".join(f"{src} => {lib.theano.pp(eval(src, ns))}" for src in PP_EXPRESSIONS)


@case
def pp_custom_printers(lib):
    """A user's op given notations as Theano's printing documentation describes."""
    printing, T = lib.printing, lib.T

    class Double(lib.Op):
        __props__ = ()

        def make_node(self, x):
            return lib.Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0] * 2

    v = T.dvector("v")
    lines = []
    mine = printing.PPrinter()
    mine.assign(lambda pstate, r: True, printing.default_printer)
    mine.assign(Double, printing.FunctionPrinter("double"))
    lines.append(mine(Double()(v) + 1))
    mine.assign(Double(), printing.PatternPrinter(("<%(0)s>", -1000)))
    lines.append(mine(Double()(v)))
    lines.append(lib.theano.pp(Double()(v)))
    y = v * 2
    y.name = "y"
    named = printing.pprint.clone_assign(lambda pstate, r: r.name == "y",
                                         printing.leaf_printer)
    lines.append(named(T.exp(y) + 1))
    state = printing.PrinterState(pprinter=lib.theano.pp)
    lines.append(printing.OperatorPrinter("@", 0, "right").process(v + v, state))
    lines.append(printing.OperatorPrinter("@", 0, "right").process(-v, state))
    lines.append(printing.FunctionPrinter("f", "g").process(v * v, state))
    lines.append(printing.PatternPrinter("%(0)s!!%(1)s").process(v - v, state))
    lines.append(printing.IgnorePrinter().process(T.exp(v), state))
    lines.append(printing.leaf_printer.process(v, printing.PrinterState()))
    lines.append(printing.default_printer.process(T.exp(v), state))
    lines.append(str(printing.PPrinter()(v + v)))
    lines.append(printing.pprint(v + v, {"precedence": 3}))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Names of ops, variables and types

NAME_EXPRESSIONS = [
    "x.T", "x.dimshuffle(1, 0)", "v.dimshuffle('x', 0)", "x + x", "x.sum()", "x.sum(axis=0)",
    "x.sum(axis=1, keepdims=True)", "x.prod()", "T.dot(x, v)", "T.dot(x, x)", "x.shape",
    "x.shape[0]", "x[1:3]", "x[i]", "x[1, 2:]", "v[::2]", "v[i:]", "x[:, -1]", "v[iv]",
    "x[iv, iv]", "T.inc_subtensor(v[1:], 1.0)", "T.set_subtensor(v[1], 1.0)",
    "T.inc_subtensor(v[iv], 1.0)", "T.set_subtensor(v[iv], 1.0)", "x.reshape((2, -1))",
    "x.flatten()", "x.flatten(2)", "T.stack([s, s])", "T.alloc(s, 3, 4)", "T.zeros((3, i))",
    "T.cast(x, 'float32')", "T.exp(x)", "T.nnet.sigmoid(x)", "T.nnet.softplus(x)",
    "T.nnet.softmax(x)", "T.arange(i)", "T.clip(x, 0, 1)", "T.switch(x > 0, x, 0)", "-x",
    "abs(x)", "T.inv(x)", "T.round(x)", "T.any(x, axis=0)", "T.all(x, axis=0)",
    "T.nnet.crossentropy_categorical_1hot(x, iv)", "T.batched_dot(T.tensor3(), T.tensor3())",
    "x.sum(dtype='float32')", "T.bmatrix().sum(axis=1)",
    "T.constant(np.arange(3.))", "T.constant(np.ones((2, 2)))", "T.constant(np.arange(30.))",
    "T.constant(np.float32(1.5))", "T.constant(3)", "T.constant(np.array([True, False]))",
    "T.constant(np.array([1.123456789, 2.0]))", "T.constant(np.zeros((3, 4, 5)))",
    "T.constant(np.arange(12).reshape(3, 4))", "T.constant(2.0, name='two')",
    "theano.shared(np.zeros(3), name='W')", "theano.shared(np.zeros(3))",
]


@case
def op_and_variable_names(lib):
    T = lib.T
    ns = dict(T=T, np=np, theano=lib.theano, x=T.dmatrix("x"), v=T.dvector("v"),
              s=T.dscalar("s"), i=T.lscalar("i"), iv=T.lvector("iv"))
    lines = []
    for src in NAME_EXPRESSIONS:
        var = eval(src, ns)
        op = str(var.owner.op) if var.owner is not None and "sum" not in src and \
            "prod" not in src and "softmax" not in src else "-"
        lines.append(f"{src} | {op} | {var} | {var.type}")
    return "\n".join(lines)


@case
def op_name_attribute(lib):
    """doc/tutorial/symbolic_graphs.txt: ``y.owner.op.name``."""
    T = lib.T
    x = T.dmatrix("x")
    y = x * 2.0
    return "\n".join(repr(v) for v in [y.owner.op.name, y.owner.inputs,
                                        T.cast(x, "int8").owner.op.name,
                                        T.nnet.sigmoid(x).owner.op.name])


@case
def type_strings(lib):
    T = lib.T
    variables = [T.dvector(), T.dmatrix(), T.tensor3(), T.tensor4(), T.lscalar(), T.bcol(),
                 T.brow(), T.TensorType("float32", (False,) * 5)(),
                 T.TensorType("float32", (True, False, True))(), T.dvector("named")]
    return "\n".join(f"{v} | {v!r} | {v.type} | {v.type!r}" for v in variables)


# ---------------------------------------------------------------------------------------------
# The Print op

@case
def print_op_output(lib):
    T, printing = lib.T, lib.printing
    x, m, s = T.dvector("x"), T.dmatrix("m"), T.dscalar("s")

    def run():
        f = lib.theano.function([x], printing.Print("this is a very important value")(x) * 5)
        print(f([1.0, 2.0, 3.0]))
        g = lib.theano.function([m], printing.Print("mat")(m))
        g(np.arange(6.0).reshape(2, 3))
        h = lib.theano.function([s], printing.Print("scal")(s))
        h(2.5)
        k = lib.theano.function([x], printing.Print("m", attrs=("shape", "sum", "dtype"))(x))
        k([1.0, 2.0, 3.0])
        print(printing.Print("q").attrs, printing.Print("q") == printing.Print("q"))

    return _captured(run)


@case
def print_op_grad(lib):
    T, printing = lib.T, lib.printing
    s = T.dscalar("s")
    gradient = T.grad(printing.Print("ps")(s) ** 2, s)
    f = lib.theano.function([s], gradient)
    return _captured(lambda: print(f(3.0)))


# ---------------------------------------------------------------------------------------------
# Short descriptions

def _described_graph(lib):
    T = lib.T
    x, y = T.dvector("x"), T.dvector()
    z = (x + 1) * x + T.constant(np.arange(3.0)) + y
    z2 = z * 2
    z2.name = "z2"
    return x, y, T.exp(z2) + z


@case
def describe_min_informative_str(lib):
    x, y, out = _described_graph(lib)
    p = lib.printing
    return "\n".join([p.min_informative_str(out), p.min_informative_str(out, indent_level=2),
                      p.min_informative_str(x), p.min_informative_str(y),
                      p.min_informative_str(np.zeros(2))])


@case
def describe_var_descriptor(lib):
    x, y, out = _described_graph(lib)
    p = lib.printing
    return "\n".join([p.var_descriptor(out), p.var_descriptor(y),
                      p.var_descriptor(np.arange(6.0).reshape(2, 3)),
                      p.position_independent_str(x), p.position_independent_str(y)])


@case
def describe_hex_digest(lib):
    p = lib.printing
    return "\n".join([p.hex_digest(np.arange(6.0).reshape(2, 3)),
                      p.hex_digest(np.arange(6.0).reshape(2, 3).T),
                      p.hex_digest(np.arange(4, dtype="int32")),
                      p.hex_digest(np.zeros((0, 3), dtype="float32"))])

"""The output dtype of 1107 operator/dtype combinations (``x + y``, ``x / 2``, ``T.floor(x)``,
...) under a Theano-like module: Theano 1.0.5 or jitgraph. Run under the oracle,
``python operator_dtypes.py out.json`` re-records ``data/theano_operator_dtypes.json``."""

import json
import sys

import numpy as np

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint32", "float32", "float64"]

BINARY = {
    "+": lambda T, x, y: x + y, "*": lambda T, x, y: x * y, "/": lambda T, x, y: x / y,
    "//": lambda T, x, y: x // y, "%": lambda T, x, y: x % y, "**": lambda T, x, y: x ** y,
    "max": lambda T, x, y: T.maximum(x, y), "lt": lambda T, x, y: x < y,
    "-": lambda T, x, y: x - y,
}

UNARY = {
    "+1": lambda T, x: x + 1, "*0.5": lambda T, x: x * 0.5, "+1.5": lambda T, x: x + 1.5,
    "+f32": lambda T, x: x + np.float32(1), "+i64": lambda T, x: x + np.int64(1),
    "/2": lambda T, x: x / 2, "2/": lambda T, x: 2 / x, "**2": lambda T, x: x ** 2,
    "**0.5": lambda T, x: x ** 0.5, "sum": lambda T, x: T.sum(x), "mean": lambda T, x: T.mean(x),
    "prod": lambda T, x: T.prod(x), "max": lambda T, x: T.max(x),
    "argmax": lambda T, x: T.argmax(x), "abs": lambda T, x: abs(x), "neg": lambda T, x: -x,
    "exp": lambda T, x: T.exp(x), "sqrt": lambda T, x: T.sqrt(x), "sqr": lambda T, x: T.sqr(x),
    "dot": lambda T, x: T.dot(x, x), "var": lambda T, x: T.var(x), "std": lambda T, x: T.std(x),
    "cumsum": lambda T, x: T.extra_ops.cumsum(x), "round": lambda T, x: T.round(x),
    "floor": lambda T, x: T.floor(x), "sgn": lambda T, x: T.sgn(x), "invert": lambda T, x: ~x,
    "zeros_like": lambda T, x: T.zeros_like(x), "ones_like": lambda T, x: T.ones_like(x),
    "arange": lambda T, x: T.arange(x.shape[0]), "shape": lambda T, x: x.shape,
    "size": lambda T, x: x.size, "nnz": lambda T, x: T.sum(T.neq(x, 0)),
    "eqmean": lambda T, x: T.mean(T.eq(x, 0)), "switch": lambda T, x: T.switch(x > 0, x, 0),
    "clip": lambda T, x: T.clip(x, 0, 1), "sigmoid": lambda T, x: T.nnet.sigmoid(x),
    "cast32": lambda T, x: T.cast(x, "float32") * 2,
    "sumacc": lambda T, x: T.sum(x, acc_dtype="float64"),
    "true_div1": lambda T, x: T.true_div(x, 1), "int_div2": lambda T, x: T.int_div(x, 2),
    "ceil_intdiv": lambda T, x: T.ceil_intdiv(x, x),
}


def _dtype_of(build):
    try:
        return str(build().dtype)
    except Exception as exc:  # noqa: BLE001 - the exception class is the recorded answer
        return "ERR " + type(exc).__name__


def operator_dtypes(T):
    """``{case: output dtype, or 'ERR <exception class>'}`` for the tensor module ``T``."""
    result = {}
    for a in DTYPES:
        x = T.vector("x", dtype=a)
        for b in DTYPES:
            y = T.vector("y", dtype=b)
            for name, fn in BINARY.items():
                result[f"{a}{name}{b}"] = _dtype_of(lambda: fn(T, x, y))
        for name, fn in UNARY.items():
            result[f"{a}{name}"] = _dtype_of(lambda: fn(T, x))
    return result


if __name__ == "__main__":
    import theano.tensor

    with open(sys.argv[1], "w") as out:
        json.dump(operator_dtypes(theano.tensor), out, indent=0)

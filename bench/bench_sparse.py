"""Sparse benchmark: a sparse x dense product and a sparse logistic-regression training step.

    flock /tmp/jitgraph-bench.lock python bench/bench_sparse.py            # everything
    flock /tmp/jitgraph-bench.lock python bench/bench_sparse.py --quick    # small sizes
    python bench/bench_sparse.py --no-theano                              # skip the oracle

Workloads (float64):

* ``product csr`` / ``product csc``: ``A @ B`` for a 1e5 x 1e5 matrix of density 1e-4 (1e6
  stored values, random positions) and a dense 1e5 x 64 matrix, through
  ``sparse.structured_dot`` (a fresh output array every call);
* ``logreg step``: one SGD step of a binary logistic regression on a 20000 x 50000 csr
  bag-of-words matrix (about 60 words per document): ``sigmoid(structured_dot(X, w) + b)``, the mean
  cross-entropy, its gradient ``X.T @ (p - y) / n`` and the weight update (the weights a
  50000 x 1 column, the scores ``structured_dot(X, w)``: PyTensor cannot differentiate
  ``sparse.dot`` with a dense vector).

Systems: ``scipy`` (``A @ B``; the step written by hand with scipy.sparse and NumPy),
``jitgraph`` (openmp off), ``jitgraph-omp`` (openmp on: rows split across threads),
``pytensor`` (``pytensor.sparse``, its default C backend) and ``theano`` (Theano 1.0.5 through
the oracle, ``../shared/tools/theano-oracle`` or ``$THEANO_ORACLE``, in a subprocess). Best of
several calls, in milliseconds. The issue's goal: jitgraph's product at most SciPy's time, and
ahead of PyTensor. Prints the 1-minute load average at the start and the end (the machine is
shared) and writes ``bench/results/sparse-<timestamp>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from harness import Table, best_ms, dumps, installed, load_average

SYSTEMS = ("scipy", "jitgraph", "jitgraph-omp", "pytensor", "theano")
WORKLOADS = ("product csr", "product csc", "logreg step")

# Data built the same way in this process and in the Theano child (legacy RandomState: the
# same numbers in every NumPy version).
DATA_CODE = '''
import numpy as np
import scipy.sparse as sp

def product_data(n, density, k, fmt):
    rng = np.random.RandomState(0)
    nnz = int(n * n * density)
    rows, cols = rng.randint(0, n, nnz), rng.randint(0, n, nnz)
    a = sp.coo_matrix((rng.randn(nnz), (rows, cols)), shape=(n, n)).asformat(fmt)
    a.sort_indices()
    return a, rng.randn(n, k)

def logreg_data(n_docs, n_words, words_per_doc):
    rng = np.random.RandomState(1)
    nnz = n_docs * words_per_doc
    rows = np.repeat(np.arange(n_docs), words_per_doc)
    cols = rng.randint(0, n_words, nnz)
    x = sp.coo_matrix((rng.randint(1, 4, nnz).astype('float64'), (rows, cols)),
                      shape=(n_docs, n_words)).tocsr()
    x.sort_indices()
    y = (rng.uniform(size=n_docs) > 0.5).astype('float64')
    return x, y, np.zeros((n_words, 1))
'''
_DATA: dict[str, Any] = {}
exec(DATA_CODE, _DATA)  # noqa: S102 - the same source runs in the Theano child
product_data, logreg_data = _DATA["product_data"], _DATA["logreg_data"]


def sizes(quick: bool) -> dict[str, tuple]:
    if quick:
        return {"product": (20000, 1e-3, 16), "logreg": (2000, 5000, 30)}
    return {"product": (100000, 1e-4, 64), "logreg": (20000, 50000, 60)}


# -- the systems -----------------------------------------------------------------------------

def scipy_product(a: Any, b: Any) -> Callable[[], Any]:
    return lambda: a @ b


def scipy_logreg(x: Any, y: Any, w0: Any) -> Callable[[], Any]:
    import numpy as np

    state = {"w": w0.copy(), "b": 0.0}
    xt = x.T.tocsr()

    def step() -> float:
        w, b = state["w"], state["b"]
        p = 1 / (1 + np.exp(-((x @ w).ravel() + b)))
        cost = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
        err = (p - y) / y.shape[0]
        state["w"] = w - 0.1 * (xt @ err)[:, None]
        state["b"] = b - 0.1 * err.sum()
        return cost

    return step


def graph_product(lib: Any, sparse: Any, a: Any, b: Any, **kw: Any) -> Callable[[], Any]:
    x = sparse.matrix(a.format, "x", "float64") if hasattr(sparse, "matrix") else None
    x = getattr(sparse, f"{a.format}_matrix")("x", dtype="float64") if x is None else x
    w = lib.tensor.dmatrix("w")
    f = lib.function([x, w], sparse.structured_dot(x, w), **kw)
    return lambda: f(a, b)


def graph_logreg(lib: Any, sparse: Any, x_value: Any, y_value: Any, w0: Any, **kw: Any
                 ) -> Callable[[], Any]:
    T = lib.tensor
    x, y = sparse.csr_matrix("x", dtype="float64"), T.dvector("y")
    w = lib.shared(w0.copy(), name="w")
    b = lib.shared(0.0, name="b")
    scores = sparse.structured_dot(x, w).flatten() + b
    if hasattr(T, "nnet"):
        p = T.nnet.sigmoid(scores)
    else:  # pytensor
        import pytensor.tensor.math as ptm

        p = ptm.sigmoid(scores)
    cost = (-y * T.log(p) - (1 - y) * T.log(1 - p)).mean()
    gw, gb = lib.grad(cost, [w, b])
    f = lib.function([x, y], cost, updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)], **kw)
    return lambda: f(x_value, y_value)


def jitgraph_maker(openmp: bool) -> Any:
    import jitgraph
    from jitgraph import sparse

    def make(kind: str, *data: Any) -> Callable[[], Any]:
        with jitgraph.config.change_flags(openmp=openmp):
            if kind == "product":
                return graph_product(jitgraph, sparse, *data)
            return graph_logreg(jitgraph, sparse, *data)

    return make


def pytensor_maker() -> Any:
    import pytensor
    from pytensor import sparse

    def make(kind: str, *data: Any) -> Callable[[], Any]:
        if kind == "product":
            return graph_product(pytensor, sparse, *data)
        return graph_logreg(pytensor, sparse, *data)

    return make


THEANO_SCRIPT = DATA_CODE + '''
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import theano
import theano.tensor as T
from theano import sparse as S
jobs = json.loads(sys.argv[1])
results = {}

def best(fn, repeat):
    fn()
    out = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter(); fn(); out = min(out, time.perf_counter() - t0)
    return out * 1e3

for name, args, repeat in jobs:
    try:
        if name.startswith("product"):
            a, b = product_data(*args)
            x = getattr(S, a.format + "_matrix")("x", dtype="float64")
            w = T.dmatrix("w")
            f = theano.function([x, w], S.structured_dot(x, w))
            results[name] = best(lambda: f(a, b), repeat)
        else:
            xv, yv, w0 = logreg_data(*args)
            x, y = S.csr_matrix("x", dtype="float64"), T.dvector("y")
            w, bb = theano.shared(w0.copy()), theano.shared(0.0)
            p = T.nnet.sigmoid(S.structured_dot(x, w).flatten() + bb)
            cost = (-y * T.log(p) - (1 - y) * T.log(1 - p)).mean()
            gw, gb = T.grad(cost, [w, bb])
            f = theano.function([x, y], cost, updates=[(w, w - 0.1 * gw), (bb, bb - 0.1 * gb)])
            results[name] = best(lambda: f(xv, yv), repeat)
    except Exception as exc:
        results[name] = "failed: %s: %s" % (type(exc).__name__, str(exc)[:200])
print("RESULTS", json.dumps(results))
'''


def theano_ms(jobs: list) -> dict[str, Any]:
    """Best milliseconds per workload measured by Theano 1.0.5 in the oracle's interpreter."""
    oracle = os.environ.get("THEANO_ORACLE",
                            str(HERE.parent.parent / "shared" / "tools" / "theano-oracle"))
    if not Path(oracle).exists():
        print(f"(Theano oracle not found at {oracle}: skipped)")
        return {}
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(THEANO_SCRIPT)
    try:
        res = subprocess.run([oracle, script.name, json.dumps(jobs)], capture_output=True,
                             text=True, timeout=1800, check=False)
    finally:
        os.unlink(script.name)
    for line in res.stdout.splitlines():
        if line.startswith("RESULTS "):
            return json.loads(line[len("RESULTS "):])
    print(f"(Theano oracle failed: {res.stderr[-800:]})")
    return {}


def workload_data(name: str, quick: bool) -> tuple[str, tuple, tuple]:
    """(kind, arguments of the data function, the data)."""
    s = sizes(quick)
    if name.startswith("product"):
        args = s["product"] + (name.split()[1],)
        return "product", args, product_data(*args)
    return "logreg", s["logreg"], logreg_data(*s["logreg"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-theano", action="store_true")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    systems = [s for s in args.systems.split(",") if s]
    print(f"load average (1 min) at start: {load_average():.2f}; cpus: {os.cpu_count()}")
    ms: dict[tuple[str, str], Any] = {}
    if "theano" in systems and not args.no_theano:
        jobs = [(w, list(workload_data(w, args.quick)[1]), args.repeat) for w in WORKLOADS]
        for key, value in theano_ms(jobs).items():
            ms[("theano", key)] = value
    makers: dict[str, Any] = {}
    if "jitgraph" in systems:
        makers["jitgraph"] = jitgraph_maker(False)
    if "jitgraph-omp" in systems:
        makers["jitgraph-omp"] = jitgraph_maker(True)
    if "pytensor" in systems and installed("pytensor"):
        makers["pytensor"] = pytensor_maker()
    for workload in WORKLOADS:
        kind, _, data = workload_data(workload, args.quick)
        for system in systems:
            if system == "theano":
                continue
            if system == "scipy":
                fn = scipy_product(*data) if kind == "product" else scipy_logreg(*data)
            elif system in makers:
                fn = makers[system](kind, *data)
            else:
                continue
            ms[(system, workload)] = best_ms(fn, args.repeat)
    table = Table("sparse: milliseconds per call (lower is better)",
                  [("system", "system")] + [(w, w, ".1f") for w in WORKLOADS],
                  note="product: 1e5 x 1e5 density 1e-4 times 1e5 x 64; logreg: 20000 x 50000 "
                       "bag of words" if not args.quick else "quick sizes")
    for system in systems:
        table.add(system=system, **{w: ms.get((system, w)) for w in WORKLOADS})
    table.show()
    for workload in WORKLOADS:
        for mine in ("jitgraph", "jitgraph-omp"):
            t = ms.get((mine, workload))
            ref, pyt = ms.get(("scipy", workload)), ms.get(("pytensor", workload))
            if isinstance(t, float) and isinstance(ref, float):
                line = f"{workload}: {mine} / scipy = {t / ref:.2f}x"
                if isinstance(pyt, float):
                    line += f", pytensor / {mine} = {pyt / t:.2f}x"
                if workload.startswith("product"):
                    ok = t <= ref and (not isinstance(pyt, float) or t < pyt)
                    line += f" (goal <= 1x scipy, ahead of pytensor: {'PASS' if ok else 'FAIL'})"
                print(line)
    print(f"load average (1 min) at end: {load_average():.2f}")
    out = HERE / "results" / f"sparse-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(dumps({"table": table.to_json(), "load_end": load_average(),
                          "quick": args.quick}))
    print(f"written {out}")


if __name__ == "__main__":
    main()

"""A process whose kernels the direct compiler translates never imports Numba: a cold compile
(empty compiledir) and the call of a logistic-regression training step, with the compile-ahead
child on and off. Numba costs a cold compile about 0.8 s (its import and CPU target)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

CHILD = textwrap.dedent('''
    import json, sys
    import numpy as np
    import jitgraph, jitgraph.tensor as T
    from jitgraph.backend_cpu.codegen.kernels import COMPILE_LOG
    rng = np.random.RandomState(0)
    x, y = T.matrix("x"), T.vector("y")
    w = jitgraph.shared(rng.uniform(-0.1, 0.1, 20), name="w")
    b = jitgraph.shared(0.0, name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    step = jitgraph.function([x, y], [p_1 > 0.5, xent],
                             updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)])
    xv = rng.uniform(-1, 1, (30, 20))
    yv = (rng.uniform(size=30) > 0.5).astype("float64")
    pred, err = step(xv, yv)
    from jitgraph.backend_cpu.codegen import tiering
    tiering.settle()  # the optimised kernels' records come with the compile child's report
    print(json.dumps({"numba": sorted(m for m in sys.modules if m.split(".")[0] == "numba"),
                      "kernels": len(COMPILE_LOG), "err": float(err.sum()),
                      "w": w.get_value().tolist()}))
''')


def expected(steps: int = 1) -> tuple[float, list[float]]:
    rng = np.random.RandomState(0)
    w = rng.uniform(-0.1, 0.1, 20)
    x = rng.uniform(-1, 1, (30, 20))
    y = (rng.uniform(size=30) > 0.5).astype("float64")
    p = 1 / (1 + np.exp(-(x @ w)))
    xent = -y * np.log(p) - (1 - y) * np.log(1 - p)
    gw = x.T @ (p - y) / len(y) + 0.02 * w
    return float(xent.sum()), (w - 0.1 * gw).tolist()


@pytest.mark.slow
@pytest.mark.parametrize("parallel", ["0", "1"])
def test_cold_logistic_regression_never_imports_numba(tmp_path, parallel):
    env = dict(os.environ)
    env["JITGRAPH_FLAGS"] = f"base_compiledir={tmp_path},floatX=float64"
    env["JITGRAPH_PARALLEL_COMPILE"] = parallel
    env.pop("THEANO_FLAGS", None)
    env.pop("JITGRAPH_DIRECT", None)
    proc = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["kernels"] > 0, "the compiledir was empty: kernels must have been compiled"
    assert res["numba"] == [], f"a cold compile imported {res['numba'][:5]}"
    err, w = expected()
    assert res["err"] == pytest.approx(err, rel=1e-12)
    np.testing.assert_allclose(res["w"], w, rtol=1e-12)

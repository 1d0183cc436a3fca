"""The rewrites of an optional op family are registered only once the family is imported: sparse
and random when their package is (not by the first ``shared()`` any more), scan, ifelse and the
abstract convolutions (``jitgraph.FAMILY_REWRITE_MODULES``) before the first rewrite after their
op module is. A graph rewrites to the same graph as when every family's rewrites were registered
before the first rewrite, in today's order, or only those of the families it uses, each in a
fresh process with the graph cache off. And a dense program never imports those modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

#: graph builders by name; each imports what a user of that family imports
GRAPHS = textwrap.dedent('''
    import numpy as np
    import jitgraph, jitgraph.tensor as T

    def dense():
        x, y = T.matrix("x"), T.vector("y")
        w = jitgraph.shared(np.zeros(5), name="w")
        b = jitgraph.shared(0.0, name="b")
        p = 1 / (1 + T.exp(-T.dot(x, w) - b))
        xent = -y * T.log(p) - (1 - y) * T.log(1 - p)
        cost = xent.mean() + 0.01 * (w ** 2).sum()
        gw, gb = T.grad(cost, [w, b])
        return [x, y], [p > 0.5, xent], [(w, w - 0.1 * gw), (b, b - 0.1 * gb)]

    def softmax():
        x, y = T.matrix("x"), T.ivector("y")
        w = jitgraph.shared(np.zeros((5, 3)), name="w")
        cost = T.nnet.categorical_crossentropy(T.nnet.softmax(T.dot(x, w)), y).mean()
        return [x, y], [cost], [(w, w - 0.1 * T.grad(cost, w))]

    def sparse():
        import scipy.sparse
        import jitgraph.sparse as S
        x = S.csr_matrix("x")
        w = jitgraph.shared(np.ones((4, 2)), name="w")
        out = S.structured_dot(x, w) * 2 + 1
        return [x], [T.tanh(out).sum(), S.sp_sum(x * 3)], []

    def random():
        from jitgraph.random import MRG_RandomStreams, RandomStreams
        x = T.matrix("x")
        mrg, srng = MRG_RandomStreams(1), RandomStreams(2)
        out = x * mrg.uniform(x.shape) + srng.normal(x.shape) * 0
        return [x], [out.sum()], []

    def ifelse():
        from jitgraph.ifelse import ifelse
        a, b = T.scalars("a", "b")
        return [a, b], [ifelse(T.lt(a, b), T.exp(a) * 2, T.log(b) + 1) * 3], []

    def scan():
        import jitgraph.scan
        x = T.vector("x")
        out, _ = jitgraph.scan.scan(lambda v, acc: acc + v * 2, sequences=x,
                                    outputs_info=T.zeros_like(x[0]))
        return [x], [out[-1]], []

    def conv():
        x = T.tensor4("x")
        w = jitgraph.shared(np.ones((2, 1, 3, 3)), name="w")
        cost = T.nnet.conv2d(x, w).sum()
        return [x], [cost, T.grad(cost, w)], []
''')

CHILD = GRAPHS + textwrap.dedent('''
    import sys
    from jitgraph.printing import debugprint
    if sys.argv[1] == "eager":  # what the first shared() imported, the rewrites listed before
        import jitgraph.random, jitgraph.sparse
        from jitgraph import services, wiring
        eager = list(wiring.REWRITE_MODULES)  # in the order they were listed before
        eager.insert(eager.index("jitgraph.tensor.rewriting.fusion"),
                     "jitgraph.tensor.rewriting.conv")
        at = eager.index("jitgraph.tensor.rewriting.crossentropy")
        eager[at:at] = [m for op, ms in wiring.FAMILY_REWRITE_MODULES.items() for m in ms
                        if "convolution" not in op]
        services.provide("rewrite_modules", lambda: tuple(eager))
    out = {}
    for name in sys.argv[2:]:
        inputs, outputs, updates = globals()[name]()
        fn = jitgraph.function(inputs, outputs, updates=updates)
        out[name] = debugprint(fn.maker.fgraph, file="str")
    out["modules"] = sorted(m for m in sys.modules if m.split(".")[:2] in
                            (["jitgraph", "sparse"], ["jitgraph", "random"],
                             ["jitgraph", "scan"], ["jitgraph", "ifelse"])
                            or m.startswith("jitgraph.tensor.convolution.conv"))
    print(json.dumps(out))
''').replace("import sys\n", "import sys, json\n", 1)

NAMES = ["dense", "softmax", "sparse", "random", "ifelse", "scan", "conv"]


def _run(how: str, names: list[str]) -> dict:
    env = dict(os.environ, JITGRAPH_GRAPH_CACHE="0")
    proc = subprocess.run([sys.executable, "-c", CHILD, how, *names], capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", NAMES)
def test_rewritten_graph_is_the_same_with_only_the_families_it_imports(name):
    eager, lazy = _run("eager", [name]), _run("lazy", [name])
    assert "->" in eager[name] or "|" in eager[name], eager[name]
    assert lazy[name] == eager[name]


def test_dense_program_imports_no_optional_family_module():
    assert _run("lazy", ["dense", "softmax"])["modules"] == []


def test_the_eager_child_registers_the_family_rewrites():
    loaded = _run("eager", ["dense"])["modules"]
    assert "jitgraph.scan.rewrites" in loaded and "jitgraph.tensor.convolution.conv" in loaded

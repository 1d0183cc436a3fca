"""A moved module's old path (jitgraph/_facade/moved.py) imports the module itself, and every
alias (a moved path, a ``theano.x`` path) leaves the module's own spec in place: the import
system stamps the alias's spec on the module it loads, which would make ``reload`` and
``__spec__.name`` follow the old name."""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys

import numpy as np
import pytest

import jitgraph

from jitgraph._facade.moved import MOVED

SAMPLE = ["jitgraph.tensor.basic", "jitgraph.tensor.elemwise", "jitgraph.backend_cpu.kernels",
          "jitgraph.tensor.subtensor_ops"]


@pytest.mark.parametrize("old", SAMPLE)
def test_an_old_path_is_the_moved_module_with_its_own_spec(old):
    # a fresh process: the old path is imported before anything imported it under its new name
    code = (f"import importlib, {old} as m\n"
            f"assert m.__name__ == {MOVED[old]!r} and m.__spec__.name == {MOVED[old]!r}\n"
            f"assert importlib.import_module({MOVED[old]!r}) is m\n"
            f"assert importlib.reload(m).__spec__.name == {MOVED[old]!r}\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_every_old_path_names_an_existing_module():
    missing = [new for new in MOVED.values() if importlib.util.find_spec(new) is None]
    assert missing == []


def test_a_theano_path_is_the_jitgraph_module_with_its_own_spec():
    from jitgraph.theano_compat import theano_is_jitgraph

    with theano_is_jitgraph():
        import theano.tensor.nnet as nnet

        import jitgraph.tensor.nnet as own
        assert nnet is own and own.__spec__.name == "jitgraph.tensor.nnet"
        assert importlib.util.find_spec("theano.no_such_module") is None


def test_names_served_into_a_real_module_never_hide_a_builtin():
    # theano.tensor.basic (a real module here) also serves jitgraph.tensor's names; caching
    # `complex` into its globals made its own isinstance(v, complex) fail, and the rewrites that
    # read constants through it silently stopped (log(1 - sigmoid(x)) got a NaN gradient)
    import jitgraph.tensor as T
    from jitgraph.tensor.core import basic

    assert basic.complex is T.complex and basic.vectors is T.vectors
    assert "complex" not in vars(basic) and "vectors" in vars(basic)
    x, lr = T.dmatrix("x"), T.dscalar("lr")
    step = x - lr * jitgraph.grad(T.log(1 - T.nnet.sigmoid(x)).mean(), x)
    np.testing.assert_allclose(jitgraph.function([x, lr], step)([[50.0]], 0.1), [[50.1]])


def test_theano_names_for_sigmoid_tests():
    # names Theano's test_sigm and test_nnet import from these paths
    import jitgraph.gof.graph as gof_graph
    import jitgraph.tensor as T
    from jitgraph.tensor.core import basic
    from jitgraph.tensor.elementwise.reduction import Argmax
    from jitgraph.tensor.rewriting import mul_tree, sigmoid

    sigm = importlib.import_module("jitgraph.tensor.nnet.sigm")
    assert basic.Argmax is Argmax and basic.neg is T.neg and basic.matrix is T.matrix
    x = T.dvector("x")
    assert gof_graph.is_same_graph(x * 2, x * 2)
    assert sigm.parse_mul_tree is mul_tree.parse_mul_tree
    assert sigm.register_local_1msigmoid is True
    assert sigm.local_sigm_times_exp is sigmoid.local_sigm_times_exp

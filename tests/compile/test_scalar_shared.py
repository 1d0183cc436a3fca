"""Shared variables of Python/NumPy scalars are ``ScalarSharedVariable`` as in Theano 1.0.5, and
``theano.tensor.sharedvar`` names the classes and constructors (values recorded with Theano)."""

from __future__ import annotations

import pickle

import numpy as np

import jitgraph as theano
from jitgraph.tensor.core import sharedvar


def test_scalars_make_scalar_shared_variables():
    s = theano.shared(3.0)
    assert type(s) is sharedvar.ScalarSharedVariable and str(s.type) == "TensorType(float64, scalar)"
    assert isinstance(s, sharedvar.TensorSharedVariable)  # behaves as any shared tensor
    assert type(theano.shared(np.float64(3.0))) is sharedvar.ScalarSharedVariable
    assert type(theano.shared(np.array(3.0))) is sharedvar.TensorSharedVariable  # as Theano
    assert theano.shared(3).dtype == "int64"
    assert sharedvar.scalar_constructor(np.float32(2)).dtype == "float32"
    assert sharedvar.scalar_constructor(np.zeros(3)) is None  # not a scalar: the next one tries


def test_scalar_shared_variables_update_and_pickle():
    s = theano.shared(3.0, name="s")
    f = theano.function([], s * 2, updates=[(s, s + 1)])
    assert f() == 6.0 and f() == 8.0 and s.get_value() == 5.0
    again = pickle.loads(pickle.dumps(s))
    assert type(again) is sharedvar.ScalarSharedVariable and again.get_value() == 5.0


def test_tensor_options_go_to_the_tensor_constructor():
    col = sharedvar.tensor_constructor(np.zeros((2, 1)), broadcastable=(False, True))
    assert col.broadcastable == (False, True)
    assert sharedvar.load_shared_variable(np.zeros(2)).broadcastable == (False,)
    assert theano.shared(np.float64(1.0), broadcastable=()).ndim == 0


def test_a_random_state_is_shared_right_after_import():
    import subprocess
    import sys

    code = ("import numpy as np, jitgraph\n"
            "s = jitgraph.shared(np.random.RandomState(1))\n"
            "print(type(s).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "RandomStateSharedVariable", out.stderr[-2000:]

"""``theano.sandbox.conv``: empty since Theano moved its convolutions to
``theano.tensor.nnet.conv`` (:mod:`jitgraph.tensor.nnet.conv`); importing it warns, as in
Theano."""

import warnings

warnings.warn("jitgraph.sandbox.conv no longer provides conv: it moved to "
              "jitgraph.tensor.nnet.conv (as theano.sandbox.conv did to theano.tensor.nnet.conv)",
              DeprecationWarning, stacklevel=2)

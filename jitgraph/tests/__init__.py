"""``theano.tests``: what Theano users import when they test their own ops
(:mod:`jitgraph.tests.unittest_tools`, imported as ``utt`` in Theano's "Extending Theano" guide).

jitgraph's own test suite lives outside the package (``tests/`` of the repository)."""

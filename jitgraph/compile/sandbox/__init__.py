"""``theano.compile.sandbox``: an empty package in Theano 1.0.5, kept so that the path
imports."""

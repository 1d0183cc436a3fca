"""``theano.sandbox.cuda``: Theano's first GPU back end, removed from Theano 1.0 itself (importing
it raised there too). Importing it here raises ImportError saying what to use instead, so that
programs written ``try: import theano.sandbox.cuda ... except ImportError:`` take their CPU
branch."""

raise ImportError(
    "theano.sandbox.cuda is the old GPU back end, removed in Theano 1.0 and absent from "
    "jitgraph. jitgraph runs graphs on an NVIDIA GPU through CuPy: install jitgraph[cuda12] or "
    "jitgraph[cuda13] and set the flag device=cuda (THEANO_FLAGS=device=cuda0).")

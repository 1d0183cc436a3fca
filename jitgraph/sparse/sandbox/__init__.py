"""``theano.sparse.sandbox``: Theano's experimental sparse modules (``sp``, ``sp2``,
``truedot``)."""

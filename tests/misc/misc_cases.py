"""Cases of tests/misc run under Theano 1.0.5 (data/record_misc_oracle.py) and under jitgraph
(test_*.py): each builder takes the modules it needs, so both libraries build the same values."""

from __future__ import annotations

import warnings


def matrix(np, value):
    """``np.matrix(value)`` without NumPy's PendingDeprecationWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.matrix(value)


def hash_arrays(np):
    """name -> array given to hash_from_ndarray."""
    base = np.arange(6.0).reshape(2, 3)
    return {
        "float_2x3": base,
        "float_2x3_T": base.T,
        "float_2x3_fortran": np.asfortranarray(base),
        "empty_1x0": np.zeros((1, 0)),
        "empty_2x0": np.zeros((2, 0)),
        "int32_zeros": np.zeros(3, "int32"),
        "uint32_zeros": np.zeros(3, "uint32"),
        "int_0d": np.array(5),
        "strided": np.arange(10)[::3],
        "bool": np.array([True, False]),
        "complex": np.array([1 + 2j]),
        "float32_3d": np.linspace(0, 1, 24, dtype="float32").reshape(2, 3, 4),
        "matrix": matrix(np, [[1, 2]]),
        "float64_scalar": np.float64(3),
    }


#: strings (and byte strings) given to hash_from_code
HASH_CODES = ["abc", "", "def f(x):\n    return x\n", "unicode é ✓"]


def memory_cases(np, sp):
    """name -> (a, b) given to may_share_memory; Theano answers all of them without an error
    (it fails with AttributeError on coo/lil/dia matrices against ndarrays: not recorded)."""
    a = np.arange(10.0)
    m = sp.csr_matrix(np.eye(3))
    coo = sp.coo_matrix(np.eye(3))
    return {
        "array_view": (a, a[2:5]),
        "array_other": (a, np.arange(3.0)),
        "array_same": (a, a),
        "array_masked_view": (a, a.view(np.ma.MaskedArray)),
        "array_matrix_copy": (a, matrix(np, a)),
        "csr_same_storage": (m, sp.csr_matrix((m.data, m.indices, m.indptr), shape=(3, 3))),
        "csr_copy": (m, m.copy()),
        "csr_same": (m, m),
        "csr_data": (m, m.data),
        "data_csr": (m.data, m),
        "csr_indptr": (m, m.indptr),
        "csr_array": (m, a),
        "csc_of_csr": (m.tocsc(), m),
        "csr_transpose": (m, m.T),
        "coo_same": (coo, coo),
        "coo_data": (coo, coo.data),
        "lil_same": (sp.lil_matrix(np.eye(3)),) * 2,
        "bsr_two": (sp.bsr_matrix(np.eye(2)), sp.bsr_matrix(np.eye(2))),
        "list_array": ([1], a),
        "array_list": (a, [1]),
        "int_int": (1, 1),
        "none_array": (None, a),
        "array_numpy_scalar": (a, np.float64(1)),
        "csr_list": (m, [1]),
        "str_str": ("a", "a"),
    }


def shape_cases(theano, T):
    """name -> (inputs, outputs, input shapes by input position); outputs are named, and their
    shapes (and the inputs') are compared. Every case builds a fresh graph."""
    def slicing():
        x = T.matrix("x")
        y = x[512:]
        y.name = "y"
        return [x], [y], [(1024, 1024)]

    def dot_and_sums():
        x, v = T.matrix("x"), T.vector("v")
        z = T.dot(x, v) + v.sum()
        w = (x * 2).sum(axis=0)
        q = T.concatenate([x, x], axis=1)
        for var, name in ((z, "z"), (w, "w"), (q, "q")):
            var.name = name
        return [x, v], [z, w, q], [(3, 4), (4,)]

    def strided_transpose():
        x = T.tensor3("x")
        s = x[1:, ::2, -1]
        t = x.dimshuffle(2, 0, 1)
        d = T.dot(x[0], T.ones_like(x[0]).T)
        for var, name in ((s, "s"), (t, "t"), (d, "d")):
            var.name = name
        return [x], [s, t, d], [(5, 6, 7)]

    def scalar_times_matrix():
        s, x = T.scalar("s"), T.matrix("x")
        y = s * x
        y.name = "y"
        return [s, x], [y], [(), (2, 2)]

    def mismatched_input_shapes():
        """The inputs disagree (x + y of shapes (3, 4), (4, 4)): the shapes are read, not checked."""
        x, y = T.matrix("x"), T.matrix("y")
        p = T.dot(x, y)
        a = x + y
        p.name, a.name = "p", "a"
        return [x, y], [p, a], [(3, 4), (4, 4)]

    return {"slicing": slicing, "dot_and_sums": dot_and_sums,
            "strided_transpose": strided_transpose, "scalar_times_matrix": scalar_times_matrix,
            "mismatched_input_shapes": mismatched_input_shapes}


def dump_cases(theano, np):
    """name -> the object given to dump (default persistent ids); its entry names are compared."""
    foo_1 = theano.shared(0, name="foo")
    foo_2 = theano.shared(1, name="foo")
    w = theano.shared(np.arange(6.0).reshape(2, 3), name="W")
    unnamed = theano.shared(np.zeros(2))
    a = np.ones(3)
    return {
        "docstring": (foo_1, foo_2, np.array(2)),
        "shared_twice": [w, w, a, a, {"k": a}],
        "unnamed": [unnamed, np.arange(2)],
        "inline_values": [np.float64(3), np.ma.array([1, 2]), matrix(np, [[1]]),
                          np.arange(3)[::2], np.asfortranarray(np.ones((2, 2)))],
    }

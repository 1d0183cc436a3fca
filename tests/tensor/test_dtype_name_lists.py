"""``theano.tensor``'s lists of dtype names, which Ops written for Theano check their inputs
against (theano_lstm's MaskedLoss: ``dtype not in T.float_dtypes``); contents and order are
Theano 1.0.5's."""

import jitgraph.tensor as T


def test_dtype_lists_are_theano_s():
    ints = ["int8", "int16", "int32", "int64"]
    uints = ["uint8", "uint16", "uint32", "uint64"]
    floats = ["float16", "float32", "float64"]
    complexes = ["complex64", "complex128"]
    assert T.int_dtypes == ints and T.uint_dtypes == uints
    assert T.integer_dtypes == ints + uints
    assert T.float_dtypes == floats and T.complex_dtypes == complexes
    assert T.discrete_dtypes == ["bool"] + ints + uints
    assert T.continuous_dtypes == floats + complexes
    assert T.all_dtypes == ["bool"] + ints + uints + floats + complexes


def test_dtype_lists_are_lists_a_caller_may_extend():
    extended = T.float_dtypes + ["complex64"]  # a tuple would refuse this
    assert extended[-1] == "complex64" and "complex64" not in T.float_dtypes
    assert T.dmatrix().dtype in T.float_dtypes and T.imatrix().dtype in T.discrete_dtypes

"""Theano's tutorial page ``sparse`` (doc/tutorial/sparse.txt), its examples in order."""
import numpy as np
import scipy.sparse as sp
import theano
from theano import sparse

# To and Fro
x = sparse.csc_matrix(name='x', dtype='float32')
y = sparse.dense_from_sparse(x)
z = sparse.csc_from_dense(y)

# Properties and Construction
x = sparse.csc_matrix(name='x', dtype='int64')
data, indices, indptr, shape = sparse.csm_properties(x)
y = sparse.CSR(data, indices, indptr, shape)
f = theano.function([x], y)
a = sp.csc_matrix(np.asarray([[0, 1, 1], [0, 0, 0], [1, 0, 0]]))
print(a.toarray())
print(f(a).toarray())

# Structured Operation
x = sparse.csc_matrix(name='x', dtype='float32')
y = sparse.structured_add(x, 2)
f = theano.function([x], y)
a = sp.csc_matrix(np.asarray([[0, 0, -1], [0, -2, 1], [3, 0, 0]], dtype='float32'))
print(a.toarray())
print(f(a).toarray())

print(sorted(sparse.all_dtypes))

# doc/tutorial/numpy.txt: NumPy conventions Theano follows (row-major matrices, broadcasting)
import numpy
import theano
import theano.tensor as T

m = numpy.asarray([[1., 2], [3, 4], [5, 6]])
print(m.shape)
print(m[2, 0])
a = numpy.asarray([1.0, 2.0, 3.0])
b = 2.0
print(a * b)
x = T.dmatrix('x')
print(theano.function([x], x.shape)(m))
print(theano.function([x], x[2, 0])(m))
v = T.dvector('v')
s = T.dscalar('s')
print(theano.function([v, s], v * s)(a, b))

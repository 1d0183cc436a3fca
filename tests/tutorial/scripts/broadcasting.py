# doc/tutorial/broadcasting.txt and the broadcastable patterns of the basic types
import numpy
import theano
import theano.tensor as T

r = T.row()
print(r.broadcastable)
mtr = T.matrix()
print(mtr.broadcastable)
f_row = theano.function([r, mtr], [r + mtr])
R = numpy.arange(3).reshape(1, 3).astype(theano.config.floatX)
M = numpy.arange(9).reshape(3, 3).astype(theano.config.floatX)
print(R)
print(M)
print(f_row(R, M)[0])
c = T.col()
print(c.broadcastable)
f_col = theano.function([c, mtr], [c + mtr])
C = numpy.arange(3).reshape(3, 1).astype(theano.config.floatX)
print(f_col(C, M)[0])
print(T.TensorType('float64', (False, True))().broadcastable, T.tensor3().broadcastable)
s = theano.shared(numpy.ones((1, 3)), broadcastable=(True, False))
print(s.broadcastable, (s + T.dmatrix()).broadcastable)
print(T.addbroadcast(mtr, 0).broadcastable, T.unbroadcast(r, 0).broadcastable)
print(T.patternbroadcast(mtr, (False, True)).broadcastable)
print(r.dimshuffle(1, 0).broadcastable, r.dimshuffle('x', 0, 1).broadcastable)

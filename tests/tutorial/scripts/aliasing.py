# doc/tutorial/aliasing.txt: borrow for shared variables and function outputs
import numpy
import theano
import theano.tensor as T

np_array = numpy.ones(2, dtype='float32')
s_default = theano.shared(np_array)
s_false = theano.shared(np_array, borrow=False)
s_true = theano.shared(np_array, borrow=True)
np_array += 1
print(s_default.get_value())
print(s_false.get_value())
print(s_true.get_value())  # borrowed: sees the change on the CPU

s = theano.shared(numpy.arange(3.0))
v_false = s.get_value(borrow=False)
v_false += 10
print(s.get_value())
v_internal = s.get_value(borrow=True, return_internal_type=True)
print(type(v_internal).__name__)
s.set_value(numpy.arange(3.0) * 2, borrow=True)
print(s.get_value())

x = T.matrix()
y = 2 * x
f = theano.function([theano.In(x, borrow=True)], theano.Out(y, borrow=True))
value = numpy.ones((2, 2), dtype=theano.config.floatX)
print(f(value))
print(value)  # the input is not changed

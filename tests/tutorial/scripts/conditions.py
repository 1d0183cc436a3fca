# doc/tutorial/conditions.txt: ifelse (lazy) and switch (elementwise)
import numpy
import theano
import theano.tensor as T
from theano.ifelse import ifelse

a, b = T.scalars('a', 'b')
x, y = T.matrices('x', 'y')
z_switch = T.switch(T.lt(a, b), T.mean(x), T.mean(y))
z_lazy = ifelse(T.lt(a, b), T.mean(x), T.mean(y))
f_switch = theano.function([a, b, x, y], z_switch, mode=theano.Mode(linker='vm'))
f_lazyifelse = theano.function([a, b, x, y], z_lazy, mode=theano.Mode(linker='vm'))
val1 = 0.
val2 = 1.
big_mat1 = numpy.ones((100, 100), dtype=theano.config.floatX)
big_mat2 = numpy.zeros((100, 100), dtype=theano.config.floatX)
print(f_switch(val1, val2, big_mat1, big_mat2))
print(f_lazyifelse(val1, val2, big_mat1, big_mat2))
print(f_switch(val2, val1, big_mat1, big_mat2))
print(f_lazyifelse(val2, val1, big_mat1, big_mat2))
v = T.dvector('v')
print(theano.function([v], T.switch(v > 0, v, -2 * v))([-1., 0., 2.]))

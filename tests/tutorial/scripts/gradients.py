# doc/tutorial/gradients.txt (Jacobian and Hessian through scan: run the oracle with ORACLE_PY=1)
import numpy
import theano
import theano.tensor as T
from theano import pp

x = T.dscalar('x')
y = x ** 2
gy = T.grad(y, x)
print(pp(gy))
f = theano.function([x], gy)
print(f(4))
print(numpy.allclose(f(94.2), 188.4))
print(pp(f.maker.fgraph.outputs[0]))

x = T.dmatrix('x')
s = T.sum(1 / (1 + T.exp(-x)))
gs = T.grad(s, x)
dlogistic = theano.function([x], gs)
print(dlogistic([[0, 1], [-1, -2]]))

x = T.dvector('x')
y = x ** 2
J, updates = theano.scan(lambda i, y, x: T.grad(y[i], x), sequences=T.arange(y.shape[0]),
                         non_sequences=[y, x])
f = theano.function([x], J, updates=updates)
print(f([4, 4]))
print(theano.gradient.jacobian(y, x).eval({x: [4., 5.]}))

x = T.dvector('x')
y = x ** 2
cost = y.sum()
gy = T.grad(cost, x)
H, updates = theano.scan(lambda i, gy, x: T.grad(gy[i], x), sequences=T.arange(gy.shape[0]),
                         non_sequences=[gy, x])
f = theano.function([x], H, updates=updates)
print(f([4, 4]))
print(theano.gradient.hessian(cost, x).eval({x: [4., 5.]}))

W = T.dmatrix('W')
V = T.dmatrix('V')
x = T.dvector('x')
y = T.dot(x, W)
JV = T.Rop(y, W, V)
f = theano.function([W, V, x], JV)
print(f([[1, 1], [1, 1]], [[2, 2], [2, 2]], [0, 1]))

W = T.dmatrix('W')
v = T.dvector('v')
x = T.dvector('x')
y = T.dot(x, W)
VJ = T.Lop(y, W, v)
f = theano.function([v, x], VJ)
print(f([2, 2], [0, 1]))

x = T.dvector('x')
v = T.dvector('v')
y = T.sum(x ** 2)
gy = T.grad(y, x)
vH = T.grad(T.sum(gy * v), x)
f = theano.function([x, v], vH)
print(f([4, 4], [2, 2]))
Hv = T.Rop(gy, x, v)
f = theano.function([x, v], Hv)
print(f([4, 4], [2, 2]))

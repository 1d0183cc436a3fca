# doc/tutorial/adding.txt: adding two scalars, then two matrices
import numpy
import theano
import theano.tensor as T
from theano import function, pp

x = T.dscalar('x')
y = T.dscalar('y')
z = x + y
f = function([x, y], z)
print(f(2, 3))
print(f(16.3, 12.1))
print(type(x).__name__)
print(x.type)
print(T.dscalar)
print(x.type == T.dscalar)
print(pp(z))
print(numpy.allclose(z.eval({x: 16.3, y: 12.1}), 28.4))

x = T.dmatrix('x')
y = T.dmatrix('y')
z = x + y
f = function([x, y], z)
print(f([[1, 2], [3, 4]], [[10, 20], [30, 40]]))
print(f(numpy.array([[1, 2], [3, 4]]), numpy.array([[10, 20], [30, 40]])))

# exercise: a ** 2 + b ** 2 + 2 * a * b on vectors
a = T.vector()
b = T.vector()
out = a ** 2 + b ** 2 + 2 * a * b
f = function([a, b], out)
print(f([1, 2], [4, 5]))

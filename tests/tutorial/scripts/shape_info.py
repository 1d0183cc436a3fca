# doc/tutorial/shape_info.txt: shape inference in the compiled graph, specify_shape
import numpy
import theano
import theano.tensor as T

x = T.matrix('x')
f = theano.function([x], (x ** 2).shape)
theano.printing.debugprint(f)
print(f(numpy.ones((3, 4), dtype=theano.config.floatX)))

x = T.matrix('x')
y = T.matrix('y')
z = T.join(0, x, y)
xv = numpy.random.rand(5, 4)
yv = numpy.random.rand(3, 3)
f = theano.function([x, y], z.shape)
theano.printing.debugprint(f)
try:
    f(xv, yv)  # the shapes are not checked: Theano returns [8 4]
    print("shape computed without the join")
except ValueError:
    print("ValueError")
f = theano.function([x, y], z)
try:
    f(xv, yv)
except ValueError:
    print("ValueError: the join fails")

x = T.matrix()
x_specify_shape = T.specify_shape(x, (2, 2))
f = theano.function([x], (x_specify_shape ** 2).shape)
# Theano: DeepCopyOp(TensorConstant{(2,) of 2}); the shape is a constant, nothing is computed
print([type(n.op).__name__ for n in f.maker.fgraph.toposort()
       if type(n.op).__name__ != 'DeepCopyOp'])
print(f(numpy.ones((2, 2), dtype=theano.config.floatX)))

x = T.matrix()
y = x.reshape((x.shape[0] * x.shape[1],))
print(theano.function([x], y.shape)(numpy.ones((3, 5), dtype=theano.config.floatX)))

# doc/tutorial/extending_theano.txt (Python parts): an Op with perform, infer_shape, grad and
# R_op; __props__; as_op; the exercise's product op
import numpy
import theano
import theano.tensor as T
from theano import gof
from theano.compile.ops import as_op


class DoubleOp1(gof.Op):
    __props__ = ()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return gof.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = x * 2

    def infer_shape(self, node, i0_shapes):
        return i0_shapes

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return eval_points
        return self.grad(inputs, eval_points)


doubleOp1 = DoubleOp1()
x = T.matrix()
f = theano.function([x], doubleOp1(x))
inp = numpy.arange(6, dtype=theano.config.floatX).reshape(2, 3)
print(inp)
print(f(inp))
print(theano.function([x], doubleOp1(x).shape)(inp))
print(theano.function([x], T.grad(doubleOp1(x).sum(), x))(inp))
v = T.matrix()
print(theano.function([x, v], T.Rop(doubleOp1(x), x, v), on_unused_input='ignore')(
    inp, numpy.ones_like(inp)))
print(DoubleOp1() == DoubleOp1(), hash(DoubleOp1()) == hash(DoubleOp1()))
rng = numpy.random.RandomState(42)
theano.gradient.verify_grad(doubleOp1, [rng.rand(5, 7)], rng=rng)
print("verify_grad passed")


class AXPBOp(gof.Op):
    """This creates an Op that takes x to a*x+b."""
    __props__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b
        super(AXPBOp, self).__init__()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return gof.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = self.a * x + self.b

    def infer_shape(self, node, i0_shapes):
        return i0_shapes

    def grad(self, inputs, output_grads):
        return [self.a * output_grads[0]]


mult4plus5op = AXPBOp(4, 5)
another_mult4plus5op = AXPBOp(4, 5)
mult2plus3op = AXPBOp(2, 3)
print(mult4plus5op == another_mult4plus5op, mult4plus5op == mult2plus3op)
x = T.matrix()
f = theano.function([x], mult4plus5op(x))
g = theano.function([x], mult2plus3op(x))
inp = numpy.random.rand(5, 4).astype(numpy.float32)
print(numpy.allclose(4 * inp + 5, f(inp)), numpy.allclose(2 * inp + 3, g(inp)))


def infer_shape_numpy_dot(node, input_shapes):
    ashp, bshp = input_shapes
    return [ashp[:-1] + bshp[-1:]]


@as_op(itypes=[T.fmatrix, T.fmatrix], otypes=[T.fmatrix], infer_shape=infer_shape_numpy_dot)
def numpy_dot(a, b):
    return numpy.dot(a, b)


a, b = T.fmatrices('a', 'b')
f = theano.function([a, b], numpy_dot(a, b))
A = numpy.arange(6, dtype='float32').reshape(2, 3)
B = numpy.arange(12, dtype='float32').reshape(3, 4)
print(f(A, B))
print(theano.function([a, b], numpy_dot(a, b).shape)(A, B))


class ProdOp(gof.Op):
    __props__ = ()

    def make_node(self, x, y):
        x = T.as_tensor_variable(x)
        y = T.as_tensor_variable(y)
        outdim = x.ndim
        output = (T.TensorType(dtype=theano.scalar.upcast(x.dtype, y.dtype),
                               broadcastable=[False] * outdim)())
        return gof.Apply(self, inputs=[x, y], outputs=[output])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        z = output_storage[0]
        z[0] = x * y

    def infer_shape(self, node, i0_shapes):
        return [i0_shapes[0]]

    def grad(self, inputs, output_grads):
        return [output_grads[0] * inputs[1], output_grads[0] * inputs[0]]


x, y = T.dmatrices('x', 'y')
out = ProdOp()(x, y)
f = theano.function([x, y], [out, T.grad(out.sum(), x)])
for value in f([[1., 2.]], [[3., 4.]]):
    print(value)

# doc/tutorial/examples.txt (random numbers: RandomStreams and MRG_RandomStreams included)
import numpy
import theano
import theano.tensor as T
from theano import In, Param, function, shared

x = T.dmatrix('x')
s = 1 / (1 + T.exp(-x))
logistic = function([x], s)
print(logistic([[0, 1], [-1, -2]]))
s2 = (1 + T.tanh(x / 2)) / 2
logistic2 = function([x], s2)
print(logistic2([[0, 1], [-1, -2]]))

a, b = T.dmatrices('a', 'b')
diff = a - b
abs_diff = abs(diff)
diff_squared = diff ** 2
f = function([a, b], [diff, abs_diff, diff_squared])
for value in f([[1, 1], [1, 1]], [[0, 1], [2, 3]]):
    print(value)

x, y = T.dscalars('x', 'y')
z = x + y
f = function([x, In(y, value=1)], z)
print(f(33), f(33, 2))
x, y, w = T.dscalars('x', 'y', 'w')
z = (x + y) * w
f = function([x, Param(y, default=1), Param(w, default=2, name='w_by_name')], z)
print(f(33), f(33, 2), f(33, 0, 1), f(33, w_by_name=1), f(33, w_by_name=1, y=0))

state = shared(0)
inc = T.iscalar('inc')
accumulator = function([inc], state, updates=[(state, state + inc)])
print(state.get_value())
print(accumulator(1), state.get_value())
print(accumulator(300), state.get_value())
state.set_value(-1)
print(accumulator(3), state.get_value())
decrementor = function([inc], state, updates=[(state, state - inc)])
print(decrementor(2), state.get_value())
fn_of_state = state * 2 + inc
foo = T.scalar(dtype=state.dtype)
skip_shared = function([inc, foo], fn_of_state, givens=[(state, foo)])
print(skip_shared(1, 3), state.get_value())

# copying functions: a new state swapped in
state.set_value(10)
new_state = theano.shared(0)
new_accumulator = accumulator.copy(swap={state: new_state})
print(new_accumulator(100), new_state.get_value(), state.get_value())
null_accumulator = accumulator.copy(delete_updates=True)
print(null_accumulator(9000), state.get_value())

from theano.tensor.shared_randomstreams import RandomStreams
srng = RandomStreams(seed=234)
rv_u = srng.uniform((2, 2))
rv_n = srng.normal((2, 2))
f = function([], rv_u)
g = function([], rv_n, no_default_updates=True)
nearly_zeros = function([], rv_u + rv_u - 2 * rv_u)
f_val0 = f()
f_val1 = f()
print(f_val0)
print(f_val1)
g_val0 = g()
g_val1 = g()
print(g_val0)
print(numpy.array_equal(g_val0, g_val1))
print(numpy.allclose(nearly_zeros(), 0))
rng_val = rv_u.rng.get_value(borrow=True)
rng_val.seed(89234)
rv_u.rng.set_value(rng_val, borrow=True)
print(f())
srng.seed(902340)
print(f(), g())
state_after_v0 = rv_u.rng.get_value().get_state()
nearly_zeros()
v1 = f()
rng = rv_u.rng.get_value(borrow=True)
rng.set_state(state_after_v0)
rv_u.rng.set_value(rng, borrow=True)
v2 = f()
v3 = f()
print(numpy.array_equal(v1, v2), numpy.array_equal(v1, v3))

from theano.sandbox.rng_mrg import MRG_RandomStreams


class Graph():
    def __init__(self, seed=123):
        self.rng = RandomStreams(seed)
        self.y = self.rng.uniform(size=(1,))


g1 = Graph(seed=123)
f1 = theano.function([], g1.y)
g2 = Graph(seed=987)
f2 = theano.function([], g2.y)
print(f1(), f2())


def copy_random_state(g1, g2):
    if isinstance(g1.rng, MRG_RandomStreams):
        g2.rng.rstate = g1.rng.rstate
    for (su1, su2) in zip(g1.rng.state_updates, g2.rng.state_updates):
        su2[0].set_value(su1[0].get_value())


copy_random_state(g1, g2)
print(f1(), f2())

mrg = MRG_RandomStreams(seed=234)
print(function([], mrg.uniform((2, 3)))())
print(function([], mrg.normal((4,)))())

# a real example: logistic regression, trained for a few steps on fixed random data
rng = numpy.random.RandomState(42)
N, feats = 40, 10
D = (rng.randn(N, feats), rng.randint(size=N, low=0, high=2))
training_steps = 50
x = T.dmatrix("x")
y = T.dvector("y")
w = theano.shared(rng.randn(feats), name="w")
b = theano.shared(0., name="b")
p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
prediction = p_1 > 0.5
xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
cost = xent.mean() + 0.01 * (w ** 2).sum()
gw, gb = T.grad(cost, [w, b])
train = theano.function(inputs=[x, y], outputs=[prediction, xent],
                        updates=((w, w - 0.1 * gw), (b, b - 0.1 * gb)))
predict = theano.function(inputs=[x], outputs=prediction)
for i in range(training_steps):
    pred, err = train(D[0], D[1])
print(w.get_value())
print(b.get_value())
print(D[1])
print(predict(D[0]))

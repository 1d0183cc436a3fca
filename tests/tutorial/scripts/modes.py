# doc/tutorial/modes.txt: floatX, the modes, the logistic regression exercise in float32
import numpy
import theano
import theano.tensor as T

print(theano.config.floatX)
x = T.vector()
print(x.dtype == theano.config.floatX)
y = T.dvector()
f = theano.function([y], T.exp(y).sum(), mode='FAST_COMPILE')
print(f([0., 1.]))
f = theano.function([y], T.exp(y).sum(), mode=theano.Mode(linker='py', optimizer='fast_run'))
print(f([0., 1.]))
f = theano.function([y], T.exp(y).sum(), mode='DebugMode')
print(f([0., 1.]))
f = theano.function([y], T.exp(y).sum(), mode=theano.compile.get_mode('FAST_RUN'))
print(f([0., 1.]))

with theano.change_flags(floatX='float32'):
    rng = numpy.random.RandomState(1)
    N, feats = 30, 6
    D = (rng.randn(N, feats).astype('float32'), rng.randint(size=N, low=0, high=2).astype('float32'))
    x = T.matrix("x")
    y = T.vector("y")
    w = theano.shared(rng.randn(feats).astype('float32'), name="w")
    b = theano.shared(numpy.asarray(0., dtype='float32'), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    prediction = p_1 > 0.5
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = T.cast(xent.mean(), 'float32') + numpy.float32(0.01) * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    train = theano.function(inputs=[x, y], outputs=[prediction, xent],
                            updates=[(w, w - numpy.float32(0.1) * gw),
                                     (b, b - numpy.float32(0.1) * gb)])
    predict = theano.function(inputs=[x], outputs=prediction)
    for i in range(20):
        train(D[0], D[1])
    print(w.get_value().dtype, x.dtype, cost.dtype)
    print(w.get_value())
    print(predict(D[0]))

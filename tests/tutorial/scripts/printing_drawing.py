# doc/tutorial/printing_drawing.txt (pydotprint left out: it writes an image file)
import numpy
import theano
import theano.tensor as T

rng = numpy.random.RandomState(0)
N, feats = 40, 5
D = (rng.randn(N, feats).astype(theano.config.floatX),
     rng.randint(size=N, low=0, high=2).astype(theano.config.floatX))
x = T.matrix("x")
y = T.vector("y")
w = theano.shared(rng.randn(feats).astype(theano.config.floatX), name="w")
b = theano.shared(numpy.asarray(0., dtype=theano.config.floatX), name="b")
x.tag.test_value = D[0]
y.tag.test_value = D[1]
p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
prediction = p_1 > 0.5
xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
cost = xent.mean() + 0.01 * (w ** 2).sum()
gw, gb = T.grad(cost, [w, b])
train = theano.function(inputs=[x, y], outputs=[prediction, xent],
                        updates=[[w, w - 0.01 * gw], [b, b - 0.01 * gb]], name="train")
predict = theano.function(inputs=[x], outputs=prediction, name="predict")
print(theano.printing.pprint(prediction))
theano.printing.debugprint(prediction)
for _ in range(3):
    train(D[0], D[1])
print(predict(D[0]))
print(w.get_value())

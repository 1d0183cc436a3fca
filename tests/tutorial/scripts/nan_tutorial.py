# doc/tutorial/nan_tutorial.txt: NanGuardMode finds where a NaN or Inf appears
import numpy
import theano
import theano.tensor as T
from theano.compile.nanguardmode import NanGuardMode

x = T.matrix()
w = theano.shared(numpy.random.randn(5, 7).astype(theano.config.floatX))
y = T.dot(x, w)
fun = theano.function([x], y, mode=NanGuardMode(nan_is_error=True, inf_is_error=True,
                                                 big_is_error=True))
print(fun(numpy.zeros((3, 5), dtype=theano.config.floatX)))
infa = numpy.tile((numpy.asarray(100.) ** 1000000).astype(theano.config.floatX), (3, 5))
try:
    fun(infa)
    print("no error")
except AssertionError:
    print("AssertionError: Inf detected")
nana = numpy.full((3, 5), numpy.nan, dtype=theano.config.floatX)
try:
    fun(nana)
    print("no error")
except AssertionError:
    print("AssertionError: NaN detected")

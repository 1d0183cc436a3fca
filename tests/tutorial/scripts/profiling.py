# doc/tutorial/profiling.txt: profile=True collects per-op times; the summary prints them
import io

import numpy
import theano
import theano.tensor as T

x, y, z = T.dvectors('x', 'y', 'z')
f = theano.function([x, y, z], [(x + y + z) * 2, x * 3], profile=True)
xv = numpy.random.rand(1000)
for _ in range(10):
    out = f(xv, xv, xv)
print(numpy.allclose(out[0], 6 * xv))
print(f.profile.fct_callcount)
buffer = io.StringIO()
f.profile.summary(file=buffer)
text = buffer.getvalue()
print('Function profiling' in text, 'Time in' in text)

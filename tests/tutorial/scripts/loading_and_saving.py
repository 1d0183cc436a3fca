# doc/tutorial/loading_and_saving.txt: pickling shared variables and compiled functions
import io
import pickle

import numpy
import theano
import theano.tensor as T

w = theano.shared(numpy.arange(6.0).reshape(2, 3), name="w")
x = T.dvector("x")
f = theano.function([x], T.dot(w, x), updates=[(w, w * 2)])
print(f([1.0, 1.0, 1.0]))

buffer = io.BytesIO()
pickle.dump(w, buffer, protocol=pickle.HIGHEST_PROTOCOL)
pickle.dump(f, buffer, protocol=pickle.HIGHEST_PROTOCOL)
buffer.seek(0)
w2 = pickle.load(buffer)
f2 = pickle.load(buffer)
print(w2.name, w2.get_value())
print(f2([1.0, 0.0, 0.0]))
print(w.get_value())  # the loaded function has its own copy of the shared variable

# the long-term way: save the values, not the objects
buffer = io.BytesIO()
numpy.save(buffer, w.get_value(borrow=True))
buffer.seek(0)
w.set_value(numpy.load(buffer) + 1, borrow=True)
print(w.get_value())

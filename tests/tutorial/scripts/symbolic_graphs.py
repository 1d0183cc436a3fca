# doc/tutorial/symbolic_graphs.txt: the graph structure, and what rewriting does to it
import numpy
import theano
import theano.tensor as T

x = T.dmatrix('x')
y = T.dmatrix('y')
z = x + y
print(z.owner.op.name)
print(len(z.owner.inputs))
print(z.owner.inputs[0] is x, z.owner.inputs[1] is y)

x = T.dmatrix('x')
y = x * 2.
print(y.owner.op.name)
print(y.owner.inputs[0] is x)
print(y.owner.inputs[1])
print(type(y.owner.inputs[1]).__name__)
print(type(y.owner.inputs[1].owner.op).__name__)
print(y.owner.inputs[1].owner.inputs)

a = T.vector('a')
b = a + a ** 10
f = theano.function([a], b)
print(f([0, 1, 2]))
theano.printing.debugprint(b)
print(theano.printing.pp(b))

# doc/tutorial/debug_faq.txt: printing intermediate values, shape errors, MonitorMode
import numpy
import theano
import theano.tensor as T

x = T.dvector('x')
x_printed = theano.printing.Print('this is a very important value')(x)
f = theano.function([x], x * 5)
f_with_print = theano.function([x], x_printed * 5)
print(f([1, 2, 3]))
print(f_with_print([1, 2, 3]))

# a shape mismatch is reported when the function runs
x = T.vector()
y = T.vector()
z = x + x
z = z + y
f = theano.function([x, y], z)
try:
    f(numpy.ones((2,), dtype=theano.config.floatX), numpy.ones((3,), dtype=theano.config.floatX))
except ValueError:
    print("ValueError: the shapes do not match")


def inspect_inputs(i, node, fn):
    print(i, node, "input(s) value(s):", [input[0] for input in fn.inputs], end=' ')


def inspect_outputs(i, node, fn):
    print(" output(s) value(s):", [output[0] for output in fn.outputs])


x = T.dscalar('x')
f = theano.function([x], [5 * x],
                    mode=theano.compile.MonitorMode(pre_func=inspect_inputs,
                                                    post_func=inspect_outputs))
print(f(3))


def detect_nan(i, node, fn):
    for output in fn.outputs:
        if (not isinstance(output[0], numpy.random.RandomState) and
                numpy.isnan(output[0]).any()):
            print('*** NaN detected ***')
            break


x = T.dscalar('x')
f = theano.function([x], [T.log(x) * x],
                    mode=theano.compile.MonitorMode(post_func=detect_nan))
with numpy.errstate(invalid='ignore', divide='ignore'):
    print(f(0))

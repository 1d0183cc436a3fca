"""Records what the training programs compute under Theano 1.0.5 into ``expected/<name>.json``
(run under the oracle, never in CI; the tests compare jitgraph's results with these):

    /work/shared/tools/theano-oracle tests/programs/record_theano.py [program ...]

(with THEANO_FLAGS=cxx= for the programs with scan: lstm_imdb, rnnslu, rnnrbm, rbm, dbn; not
for convolutional_mlp, whose ConvOp has no working Python implementation in the oracle; with
floatX=float32 for the *_float32 records)
"""

from __future__ import print_function

import importlib
import json
import os
import sys

import theano

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = ['logistic_sgd', 'mlp', 'autoencoders', 'logistic_cg', 'lstm_imdb', 'rnnslu', 'rnnrbm',
            'rbm', 'dbn', 'convolutional_mlp', 'dA', 'SdA',
            'hmc']


def record(name):
    # under THEANO_FLAGS=floatX=float32 the record is <name>_float32.json
    suffix = '' if theano.config.floatX == 'float64' else '_' + theano.config.floatX
    results = importlib.import_module(name).main()
    path = os.path.join(HERE, 'expected', name + suffix + '.json')
    with open(path, 'w') as out:
        json.dump(results, out, indent=1, sort_keys=True)
        out.write('\n')
    print('recorded', path)


if __name__ == '__main__':
    if not os.path.isdir(os.path.join(HERE, 'expected')):
        os.mkdir(os.path.join(HERE, 'expected'))
    for program in sys.argv[1:] or PROGRAMS:
        record(program)

"""The deeplearning.net recurrent-network tutorial for spoken language understanding
(rnnslu.py, 2015, and its 2014 predecessor elman-forward) as its users ran it, at toy size: an
Elman network over word embeddings, each word seen with a context window of its neighbours
(``contextwin``, padding index -1 picking the embeddings' last row), the recurrence in ``scan``
with a softmax of a vector in the step (``s[:, 0, :]``), sentence-level SGD with an
``OrderedDict`` of updates, the embeddings normalised after each update by a function with no
inputs, shuffling with ``random.seed``, best-model keeping and learning-rate halving. The
older variant trains on the last word of each growing minibatch of windows. Synthetic
sentences stand in for ATIS; accuracy stands in for conlleval's F1.

    python rnnslu.py                   # with Theano
"""

from __future__ import print_function

import copy
import random
from collections import OrderedDict

import numpy

import theano
from theano import tensor as T


def shuffle(lol, seed):
    """Shuffle each list of ``lol`` in place, all in the same order."""
    for l in lol:
        random.seed(seed)
        random.shuffle(l)


def contextwin(l, win):
    """The ``win`` words around each word of ``l`` (-1 beyond the ends)."""
    assert (win % 2) == 1
    assert win >= 1
    l = list(l)
    lpadded = win // 2 * [-1] + l + win // 2 * [-1]
    out = [lpadded[i:(i + win)] for i in range(len(l))]
    assert len(out) == len(l)
    return out


def minibatch(l, bs):
    """The growing prefixes of ``l`` up to ``bs`` items, then its sliding windows of ``bs``."""
    out = [l[:i] for i in range(1, min(bs, len(l) + 1))]
    out += [l[i - bs:i] for i in range(bs, len(l) + 1)]
    assert len(l) == len(out)
    return out


def make_sentences(rng, n, ne, nc):
    """Word ids in [0, ne); a word's label depends on it and on the word before it."""
    lex, labels = [], []
    for _ in range(n):
        length = rng.randint(4, 9)
        words = rng.randint(0, ne, size=length)
        previous = numpy.concatenate([[0], words[:-1]])
        lex.append(words.astype('int32'))
        labels.append(((words + (previous % 2)) % nc).astype('int32'))
    return lex, labels


class RNNSLU(object):
    """Elman neural net model for slot filling."""

    def __init__(self, nh, nc, ne, de, cs):
        """nh: hidden units; nc: classes; ne: vocabulary size; de: embedding dimension;
        cs: context window size."""
        self.emb = theano.shared(name='embeddings',
                                 value=0.2 * numpy.random.uniform(-1.0, 1.0, (ne + 1, de))
                                 .astype(theano.config.floatX))
        self.wx = theano.shared(name='wx',
                                value=0.2 * numpy.random.uniform(-1.0, 1.0, (de * cs, nh))
                                .astype(theano.config.floatX))
        self.wh = theano.shared(name='wh',
                                value=0.2 * numpy.random.uniform(-1.0, 1.0, (nh, nh))
                                .astype(theano.config.floatX))
        self.w = theano.shared(name='w',
                               value=0.2 * numpy.random.uniform(-1.0, 1.0, (nh, nc))
                               .astype(theano.config.floatX))
        self.bh = theano.shared(name='bh', value=numpy.zeros(nh, dtype=theano.config.floatX))
        self.b = theano.shared(name='b', value=numpy.zeros(nc, dtype=theano.config.floatX))
        self.h0 = theano.shared(name='h0', value=numpy.zeros(nh, dtype=theano.config.floatX))
        self.params = [self.emb, self.wx, self.wh, self.w, self.bh, self.b, self.h0]

        idxs = T.imatrix()
        x = self.emb[idxs].reshape((idxs.shape[0], de * cs))
        y_sentence = T.ivector('y_sentence')

        def recurrence(x_t, h_tm1):
            h_t = T.nnet.sigmoid(T.dot(x_t, self.wx) + T.dot(h_tm1, self.wh) + self.bh)
            s_t = T.nnet.softmax(T.dot(h_t, self.w) + self.b)
            return [h_t, s_t]

        [h, s], _ = theano.scan(fn=recurrence, sequences=x, outputs_info=[self.h0, None],
                                n_steps=x.shape[0])
        p_y_given_x_sentence = s[:, 0, :]
        y_pred = T.argmax(p_y_given_x_sentence, axis=1)

        lr = T.scalar('lr')
        sentence_nll = -T.mean(T.log(p_y_given_x_sentence)[T.arange(x.shape[0]), y_sentence])
        sentence_gradients = T.grad(sentence_nll, self.params)
        sentence_updates = OrderedDict((p, p - lr * g)
                                       for p, g in zip(self.params, sentence_gradients))

        # the 2014 variant: the label of the minibatch's last word only
        y = T.iscalar('y')
        p_y_given_x_lastword = s[-1, 0, :]
        nll = -T.log(p_y_given_x_lastword)[y]
        gradients = T.grad(nll, self.params)
        updates = OrderedDict((p, p - lr * g) for p, g in zip(self.params, gradients))

        self.classify = theano.function(inputs=[idxs], outputs=y_pred)
        self.sentence_train = theano.function(inputs=[idxs, y_sentence, lr],
                                              outputs=sentence_nll, updates=sentence_updates)
        self.lastword_train = theano.function(inputs=[idxs, y, lr], outputs=nll,
                                              updates=updates)
        self.normalize = theano.function(inputs=[], updates={
            self.emb: self.emb / T.sqrt((self.emb ** 2).sum(axis=1)).dimshuffle(0, 'x')})
        self.cs = cs

    def train(self, x, y, window_size, learning_rate):
        cwords = contextwin(x, window_size)
        words = list(map(lambda x: numpy.asarray(x).astype('int32'), cwords))
        labels = y
        nll = self.sentence_train(words, labels, learning_rate)
        self.normalize()
        return nll

    def train_lastword(self, x, y, window_size, bs, learning_rate):
        cwords = contextwin(x, window_size)
        nlls = []
        for word_batch, label_last_word in zip(minibatch(cwords, bs), y):
            nlls.append(self.lastword_train(numpy.asarray(word_batch).astype('int32'),
                                            label_last_word, learning_rate))
            self.normalize()
        return nlls

    def values(self):
        return [p.get_value() for p in self.params]

    def set_values(self, values):
        for p, v in zip(self.params, values):
            p.set_value(v)


def accuracy(predictions, labels):
    right = sum(int((p == l).sum()) for p, l in zip(predictions, labels))
    return 100.0 * right / sum(len(l) for l in labels)


def main_loop(lastword=False, nepochs=4, seed=345, win=3, nhidden=10, emb_dimension=6,
              lr=0.5, decay=True, bs=4):
    param = dict(seed=seed, win=win, nhidden=nhidden, emb_dimension=emb_dimension, lr=lr,
                 decay=decay, nepochs=nepochs, clr=lr, be=0)
    ne, nc = 25, 4
    data_rng = numpy.random.RandomState(2015)
    train_lex, train_y = make_sentences(data_rng, 16, ne, nc)
    valid_lex, valid_y = make_sentences(data_rng, 6, ne, nc)
    test_lex, test_y = make_sentences(data_rng, 6, ne, nc)

    numpy.random.seed(param['seed'])
    random.seed(param['seed'])
    rnn = RNNSLU(nh=param['nhidden'], nc=nc, ne=ne, de=param['emb_dimension'],
                 cs=param['win'])
    best_f1 = -numpy.inf
    best_values = None
    history = []
    for e in range(param['nepochs']):
        shuffle([train_lex, train_y], param['seed'])
        param['ce'] = e
        nlls = []
        for x, y in zip(train_lex, train_y):
            if lastword:
                nlls.extend(rnn.train_lastword(x, y, param['win'], bs, param['clr']))
            else:
                nlls.append(rnn.train(x, y, param['win'], param['clr']))
        predictions_valid = [rnn.classify(numpy.asarray(contextwin(x, param['win']))
                                          .astype('int32')) for x in valid_lex]
        predictions_test = [rnn.classify(numpy.asarray(contextwin(x, param['win']))
                                         .astype('int32')) for x in test_lex]
        res_valid = accuracy(predictions_valid, valid_y)
        res_test = accuracy(predictions_test, test_y)
        history.append([float(numpy.mean(nlls)), res_valid, res_test, param['clr']])
        print('[learning] epoch', e, 'nll', numpy.mean(nlls), 'valid', res_valid,
              'test', res_test)
        if res_valid > best_f1:
            best_values = copy.deepcopy(rnn.values())
            best_f1 = res_valid
            param['vf1'], param['tf1'] = res_valid, res_test
            param['be'] = e
        if param['decay'] and abs(param['be'] - param['ce']) >= 2:
            param['clr'] *= 0.5
            rnn.set_values(best_values)
        if param['clr'] < 1e-5:
            break
    print('BEST RESULT: epoch', param['be'], 'valid F1', param['vf1'], 'best test F1',
          param['tf1'])
    emb = rnn.emb.get_value()
    return {
        'history': history,
        'best': [param['be'], param['vf1'], param['tf1']],
        'predictions_test': numpy.concatenate(predictions_test).tolist(),
        'emb_row_norms': numpy.sqrt((emb ** 2).sum(axis=1)).tolist(),
        'dtypes': [str(numpy.asarray(nlls[-1]).dtype), str(predictions_test[0].dtype)] +
                  [str(v.dtype) for v in rnn.values()],
        'params': [[float(v.sum()), float(numpy.abs(v).sum())] for v in rnn.values()],
    }


def main():
    return {'sentence': main_loop(), 'lastword': main_loop(lastword=True, nepochs=3)}


if __name__ == '__main__':
    main()

"""Short scan/ifelse programs the way Theano users write them, each exercising what the other
tests of this folder do not (several taps on sequences and outputs at once, ``go_backwards``
with a symbolic ``n_steps``, the gradient of an ``until`` loop, a counter in the updates,
int32 and float32 states together, map/reduce/foldl/foldr over several sequences, ifelse
inside scan and scan inside ifelse, a bidirectional RNN, an attention loop, a masked LSTM step,
a step returning (outputs, updates, until), an ifelse branch reading a shared variable).

``RECORDED`` holds what Theano 1.0.5 printed for the same source (Python scan: ``cxx=``),
rounded to 10 digits. The programs take the library as arguments, so that this very file
regenerates the record: ``THEANO_FLAGS=cxx= <oracle python> tests/scan/test_scan_user_programs.py``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

try:
    import pytest
except ImportError:  # run under the Theano oracle to regenerate RECORDED
    pytest = None


def _r(v):
    v = np.asarray(v)
    return np.round(v, 10).tolist() if v.dtype.kind == "f" else v.tolist()


def multi_taps(th, T, ifelse, until):
    x = T.matrix('x'); y0 = T.matrix('y0'); z0 = T.vector('z0')

    def step(xm2, x0, xp1, ym3, ym1, zm1):
        y = T.tanh(xm2 + 0.5 * x0 - xp1 + 0.3 * ym3 * ym1)
        return y, zm1 + y.sum(0), (y * 2).sum()
    seq = x.reshape((x.shape[0], 1, x.shape[1]))
    init = y0.reshape((y0.shape[0], 1, y0.shape[1]))
    (ys, zs, ws), _ = th.scan(step, sequences=dict(input=seq, taps=[-2, 0, 1]),
                              outputs_info=[dict(initial=init, taps=[-3, -1]), z0, None])
    g = th.grad(ws.sum() + zs[-1].sum(), [x, y0, z0])
    f = th.function([x, y0, z0], [ys, zs, ws] + g)
    return [_r(a) for a in f(np.arange(21.).reshape(7, 3) / 10,
                             np.linspace(-1, 1, 9).reshape(3, 3), np.ones(3))]


def backwards_n_steps(th, T, ifelse, until):
    x = T.vector('x'); n = T.iscalar('n')
    r, _ = th.scan(lambda a, b, s: s * 0.5 + a * b, sequences=[x, x[::-1] + 1],
                   outputs_info=T.constant(0.0, dtype=x.dtype), n_steps=n, go_backwards=True)
    f = th.function([x, n], [r, th.grad(r[-1], x)])
    return [_r(a) for nn in (3, 5) for a in f(np.arange(1., 6.), nn)]


def until_gradient(th, T, ifelse, until):
    x = T.scalar('x')

    def step(s):
        s2 = s * 1.5 + x
        return s2, until(s2 > 10)
    r, _ = th.scan(step, outputs_info=x, n_steps=50)
    f = th.function([x], [r, th.grad(r[-1], x), r.shape[0]])
    return [_r(a) for a in f(0.7)]


def counter_in_updates(th, T, ifelse, until):
    c = th.shared(np.int32(0), name='c')
    acc = th.shared(np.zeros(3), name='acc')
    x = T.matrix('x')

    def step(row, s):
        return s + row.sum(), OrderedDict([(c, c + 1), (acc, acc + row)])
    r, upd = th.scan(step, sequences=x, outputs_info=T.constant(0.0, dtype='float64'))
    f = th.function([x], r, updates=upd)
    first = f(np.arange(6.).reshape(2, 3))
    second = f(np.ones((3, 3)))
    return [_r(first), _r(second), _r(c.get_value()), _r(acc.get_value())]


def int32_and_float32_states(th, T, ifelse, until):
    x = T.matrix('x', dtype='float32')

    def step(row, cnt, s):
        return cnt + T.cast((row > 0.5).sum(), 'int32'), s * np.float32(0.9) + row.mean()
    (cnts, ss), _ = th.scan(step, sequences=x,
                            outputs_info=[T.constant(np.int32(0)), T.constant(np.float32(0))])
    f = th.function([x], [cnts, ss])
    got = f(np.linspace(0, 1, 12).reshape(4, 3).astype('float32'))
    return [str(a.dtype) for a in got] + [_r(a) for a in got]


def map_reduce_fold_several_sequences(th, T, ifelse, until):
    a = T.vector('a'); b = T.vector('b'); M = T.matrix('M')
    m, _ = th.map(lambda x, y, z: x * y + z.sum(), sequences=[a, b, M])
    r, _ = th.reduce(lambda x, y, acc: acc + x * y, sequences=[a, b],
                     outputs_info=T.zeros_like(a[0]))
    fl, _ = th.foldl(lambda x, y, acc: acc * 0.5 + x - y, sequences=[a, b],
                     outputs_info=T.zeros_like(a[0]))
    fr, _ = th.foldr(lambda x, y, acc: acc * 0.5 + x - y, sequences=[a, b],
                     outputs_info=T.zeros_like(a[0]))
    mm, _ = th.map(lambda x, y: [x + y, x * y], sequences=[a, b])
    f = th.function([a, b, M], [m, r, fl, fr] + list(mm))
    return [_r(v) for v in f(np.arange(4.), np.arange(4.)[::-1] * 2,
                             np.arange(12.).reshape(4, 3))]


def ifelse_in_scan_and_scan_in_ifelse(th, T, ifelse, until):
    x = T.vector('x'); c = T.scalar('c')
    r, _ = th.scan(lambda a, s: ifelse(T.gt(a, c), s + a, s * 2.0), sequences=x,
                   outputs_info=T.zeros_like(c))
    r2, _ = th.scan(lambda a: a ** 2, sequences=x)
    z = ifelse(T.lt(c, 1), r2.sum(), r[-1])
    f = th.function([x, c], [r, z, th.grad(z, x)])
    return [_r(a) for cc in (0.5, 2.0) for a in f(np.array([1.0, 3.0, 0.5, 2.5]), cc)]


def bidirectional_rnn(th, T, ifelse, until):
    rng = np.random.RandomState(0)
    Wf = th.shared(rng.randn(3, 4) * 0.3); Uf = th.shared(rng.randn(4, 4) * 0.3)
    Wb = th.shared(rng.randn(3, 4) * 0.3); Ub = th.shared(rng.randn(4, 4) * 0.3)
    x = T.tensor3('x')  # time, batch, features
    h0 = T.zeros((x.shape[1], 4))

    def step(xt, h, W, U):
        return T.tanh(T.dot(xt, W) + T.dot(h, U))
    hf, _ = th.scan(step, sequences=x, outputs_info=h0, non_sequences=[Wf, Uf], strict=True)
    hb, _ = th.scan(step, sequences=x, outputs_info=h0, non_sequences=[Wb, Ub],
                    go_backwards=True, strict=True)
    H = T.concatenate([hf, hb[::-1]], axis=2)
    cost = (H.sum(axis=2) ** 2).mean()
    f = th.function([x], [H, cost] + th.grad(cost, [Wf, Ub]))
    return [_r(a) for a in f(rng.randn(5, 2, 3))]


def attention_loop(th, T, ifelse, until):
    rng = np.random.RandomState(1)
    enc = T.matrix('enc'); Wa = th.shared(rng.randn(4, 4) * 0.5)

    def step(h, enc, Wa):
        e = T.dot(enc, T.dot(Wa, h))
        a = T.nnet.softmax(e.dimshuffle('x', 0))[0]
        return T.tanh(T.dot(a, enc) + h), a
    (hs, atts), _ = th.scan(step, outputs_info=[enc[0], None], non_sequences=[enc, Wa],
                            n_steps=3)
    cost = hs[-1].sum()
    f = th.function([enc], [hs, atts, th.grad(cost, Wa), th.grad(cost, enc)])
    return [_r(a) for a in f(rng.randn(5, 4))]


def step_returns_tuples(th, T, ifelse, until):
    x = T.scalar('x')
    c = th.shared(0.0, name='cc')
    r, upd = th.scan(lambda s: ([s * 2], {c: c + s}), outputs_info=x, n_steps=3)
    got = [_r(th.function([x], r, updates=upd)(1.0)), _r(c.get_value())]
    r2, _ = th.scan(lambda s: (s + 1, until(s > 3)), outputs_info=x, n_steps=10)
    got.append(_r(th.function([x], r2)(1.0)))
    c2 = th.shared(np.float64(0), name='c2')

    def step(s):
        return s * 2, {c2: c2 + s}, until(s > 10)
    r3, upd3 = th.scan(step, outputs_info=x, n_steps=20)
    got += [_r(th.function([x], r3, updates=upd3)(1.0)), _r(c2.get_value())]
    return got


def masked_lstm_step(th, T, ifelse, until):
    rng = np.random.RandomState(3)
    x = T.tensor3('x'); mask = T.matrix('mask')
    U = th.shared(rng.randn(2, 8) * 0.4)

    def step(m_, x_, h_, c_):
        pre = T.dot(h_, U) + x_
        i = T.nnet.sigmoid(pre[:, :2]); f = T.nnet.sigmoid(pre[:, 2:4])
        o = T.nnet.sigmoid(pre[:, 4:6]); g = T.tanh(pre[:, 6:])
        c = f * c_ + i * g
        c = m_[:, None] * c + (1. - m_)[:, None] * c_
        h = o * T.tanh(c)
        return m_[:, None] * h + (1. - m_)[:, None] * h_, c
    zeros = T.alloc(np.float64(0), x.shape[1], 2)
    (h, c), _ = th.scan(step, sequences=[mask, x], outputs_info=[zeros, zeros])
    cost = (h * mask[:, :, None]).sum() / mask.sum()
    f = th.function([x, mask], [h[-1], cost, th.grad(cost, U)])
    mm = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 0], [1, 0, 0]], dtype='float64')
    return [_r(a) for a in f(rng.randn(4, 3, 8), mm)]


def ifelse_branch_reads_a_shared_variable(th, T, ifelse, until):
    a = T.scalar('a'); b = T.vector('b'); i = T.iscalar('i')
    s = th.shared(np.array([1., 2.]), name='s')
    o1, o2 = ifelse(T.gt(a, 0), (b * 2, i + 1), (b + s, i - 1))
    f = th.function([a, b, i], [o1, o2, ifelse(T.eq(i, 0), s, s)])
    return [_r(v) for av in (1.0, -1.0) for v in f(av, np.array([3., 4.]), 0)]


def nested_scan_with_until_inside(th, T, ifelse, until):
    x = T.vector('x')

    def outer(a):
        r, _ = th.scan(lambda s: (s * 2, until(s > a)),
                       outputs_info=T.constant(1.0, dtype='float64'), n_steps=20)
        return r[-1], r.shape[0]
    (v, n), _ = th.scan(outer, sequences=x)
    return [_r(a) for a in th.function([x], [v, n])(np.array([3., 10., 0.5]))]


def state_aliasing_a_sequence_and_swapped_states(th, T, ifelse, until):
    X = T.matrix('X')
    (ss, ps, qs), _ = th.scan(lambda a, s: (a, s + 1.0, s * 2), sequences=X,
                              outputs_info=[T.zeros_like(X[0]), None, None])
    xv = np.arange(6.).reshape(3, 2)
    got = [_r(a) for a in th.function([X], [ss[-1], ps.sum(0), qs[-1]])(xv)] + [_r(xv)]
    a0 = T.vector('a0'); b0 = T.vector('b0'); w = T.vector('w')
    (A, B, W), _ = th.scan(lambda a, b, w: (b, a + w, w), outputs_info=[a0, b0, None],
                           non_sequences=w, n_steps=4)
    got += [_r(a) for a in th.function([a0, b0, w], [A, B, W])(
        np.array([1., 2.]), np.array([3., 4.]), np.array([10., 20.]))]
    return got


def inc_and_set_subtensor_states(th, T, ifelse, until):
    idx = T.ivector('idx')
    r, _ = th.scan(lambda i, hist: T.inc_subtensor(hist[i], 1), sequences=idx,
                   outputs_info=T.zeros((4,), dtype='int64'))
    got = [_r(th.function([idx], r)(np.array([0, 2, 2, 3, 0, 0], dtype='int32')))]
    x = T.vector('x')

    def step(t, a, M):
        return T.set_subtensor(M[t % 3], M[(t + 2) % 3] * 0.5 + a)
    r2, _ = th.scan(step, sequences=[T.arange(x.shape[0]), x],
                    outputs_info=T.zeros((3, 2)) + 1.0)
    f = th.function([x], [r2[-1], th.grad(r2[-1].sum(), x)])
    return got + [_r(a) for a in f(np.array([1., 2., 3., 4., 5.]))]


def results_kept_between_calls(th, T, ifelse, until):
    X = T.matrix('X')
    (h, y), _ = th.scan(lambda row, s: [s * 0.5 + row, (s * row).sum()], sequences=X,
                        outputs_info=[T.zeros_like(X[0]), None])
    f = th.function([X], [h, y, h[-1], y[-1]])
    first = f(np.ones((3, 2)))
    kept = [np.array(v) for v in first]
    second = f(np.full((3, 2), 2.0))
    unchanged = all(np.array_equal(u, v) for u, v in zip(first, kept))
    return [unchanged] + [_r(v) for v in first + second]


def fibonacci_and_updates_only(th, T, ifelse, until):
    n = T.iscalar('n')
    init = T.constant(np.array([0, 1], dtype='int64'))
    r, _ = th.scan(lambda a, b: a + b, outputs_info=dict(initial=init, taps=[-2, -1]),
                   n_steps=n)
    got = [_r(th.function([n], r)(10))]
    c = th.shared(np.int64(0), name='cnt')
    r, upd = th.scan(lambda: {c: c + 2}, n_steps=5)
    th.function([], [], updates=upd)()
    return got + [_r(c.get_value()), r]


def embedding_lookup_with_shared_initial_state(th, T, ifelse, until):
    E = th.shared(np.arange(12.).reshape(6, 2) / 10, name='E')
    h0 = th.shared(np.array([0.1, -0.1]), name='h0')
    idx = T.ivector('idx')
    r, _ = th.scan(lambda i, h: T.tanh(E[i] + h * 0.5), sequences=idx, outputs_info=h0)
    gE, gh = th.grad((r[-1] ** 2).sum(), [E, h0])
    f = th.function([idx], [r, gE, gh], updates=[(E, E - 0.1 * gE)])
    got = [_r(a) for a in f(np.array([1, 3, 3, 0], dtype='int32'))]
    return got + [_r(E.get_value())]


PROGRAMS = [multi_taps, backwards_n_steps, until_gradient, counter_in_updates,
            int32_and_float32_states, map_reduce_fold_several_sequences,
            ifelse_in_scan_and_scan_in_ifelse, bidirectional_rnn, attention_loop,
            step_returns_tuples, masked_lstm_step, ifelse_branch_reads_a_shared_variable,
            nested_scan_with_until_inside, state_aliasing_a_sequence_and_swapped_states,
            inc_and_set_subtensor_states, results_kept_between_calls,
            fibonacci_and_updates_only, embedding_lookup_with_shared_initial_state]

# Theano 1.0.5 (THEANO_FLAGS=cxx=), printed by running this file under the oracle
RECORDED = {
    'multi_taps':
        [[[[-0.6351489524, -0.6161344271, -0.5716699661]],
          [[-0.381969727, -0.3799489623, -0.3738363038]],
          [[-0.3428295803, -0.3234437974, -0.3023925769]],
          [[-0.0844738503, -0.0401928779, 0.0018606241]]],
         [[0.3648510476, 0.3838655729, 0.4283300339], [-0.0171186794, 0.0039166106, 0.0544937301],
          [-0.3599482597, -0.3195271868, -0.2478988469],
          [-0.44442211, -0.3597200647, -0.2460382228]],
         [-3.6459066912, -2.2715099862, -1.9373319093, -0.2456122082],
         [[1.4800443133, 1.6808350618, 1.9960940952], [2.8373029452, 2.9886180691, 3.1635273774],
          [2.8865767602, 3.0308626772, 3.2562686899], [2.9171996651, 2.8086275705, 2.5856592077],
          [-1.7640256434, -1.8933954959, -2.0344165562],
          [-0.6572583506, -0.6928683474, -0.7582268352],
          [-2.9785925059, -2.9951535977, -2.9999896142]],
         [[0.222006647, 0.3781878889, 0.5988282286], [-0.540632998, -0.5524171445, -0.5425480766],
          [-0.6899889568, -0.627865097, -0.5526756839]],
         [1.0, 1.0, 1.0]],
    'backwards_n_steps':
        [[10.0, 17.0, 20.5], [1.25, 2.0, 7.0, 1.5, 0.5], [10.0, 17.0, 20.5, 20.25, 16.125],
         [6.3125, 3.0, 1.75, 1.375, 1.125]],
    'until_gradient':
        [[1.75, 3.325, 5.6875, 9.23125, 14.546875], 20.78125, 5],
    'counter_in_updates':
        [[3.0, 15.0], [3.0, 6.0, 9.0], 5, [6.0, 8.0, 10.0]],
    'int32_and_float32_states':
        ['int32', 'float32', [0, 0, 3, 6],
         [0.09090909361839294, 0.44545459747314453, 1.0372728109359741, 1.8426363468170166]],
    'map_reduce_fold_several_sequences':
        [[3.0, 16.0, 25.0, 30.0], 8.0, 1.5, -7.125, [6.0, 5.0, 4.0, 3.0], [0.0, 4.0, 4.0, 0.0]],
    'ifelse_in_scan_and_scan_in_ifelse':
        [[1.0, 4.0, 8.0, 10.5], 16.5, [2.0, 6.0, 1.0, 5.0], [0.0, 3.0, 6.0, 8.5], 8.5,
         [0.0, 2.0, 0.0, 1.0]],
    'bidirectional_rnn':
        [[[[0.220621488, -0.1575077754, 0.0781725651, -0.2409291985, -0.6532288793, -0.5070951989,
            -0.5930673011, 0.5248869981],
           [-0.5061887501, 0.1088851709, -0.3038130146, -0.354159059, -0.6156370409, -0.118229069,
            -0.6507227715, 0.5190859984]],
          [[-0.9284667769, 0.5142953695, -0.5989938866, -0.3205784555, 0.5667217668, 0.7486850811,
            0.5988371915, -0.5603097664],
           [-0.8383326182, 0.5053689643, -0.6065529867, 0.0147822553, 0.7147644519, 0.8542130822,
            0.7083883135, -0.6583339793]],
          [[-0.2113774943, -0.0773120015, -0.4261307977, -0.3518628695, -0.5623228781,
            -0.3081322377, -0.6248528777, 0.2296918489],
           [0.8495702698, -0.5768747371, 0.0877823387, -0.5248052725, -0.7684998792, -0.796614227,
            -0.3605406649, 0.4012112359]],
          [[-0.1390138295, 0.2058330615, -0.2593671606, 0.034936194, 0.414172952, 0.5732230699,
            0.6573101993, -0.4039180353],
           [-0.7495015239, 0.328796514, -0.1798505914, -0.1072951916, 0.3005334412, 0.3168542317,
            0.518972943, -0.5058128805]],
          [[0.1553585529, -0.4057091755, -0.130444608, -0.5593636193, -0.5397675053,
            -0.7068910109, -0.1995777025, -0.1313989599],
           [0.0030490467, -0.3996775813, -0.0619120705, -0.3682589618, -0.3825496627,
            -0.7052610228, -0.4194661619, -0.2695872585]]],
         2.8524987705,
         [[1.8602913411, 1.770279481, 1.5829713134, 1.6614737034],
          [-1.1935743681, -1.2089638235, -2.0761601916, -1.3390018652],
          [-1.1216492847, -0.8057973023, -1.2322682313, -0.7363731255]],
         [[-0.8398901169, -0.839289226, -0.8368415254, -0.9159314149],
          [-1.0349972956, -1.0633916304, -1.0169075288, -1.1175055514],
          [-0.7918631788, -0.8846296108, -0.8617902839, -0.9326595218],
          [0.4752155957, 0.5933867413, 0.5811840874, 0.6614788727]]],
    'attention_loop':
        [[[-0.5553861852, -0.5308313926, -0.0545512248, 0.4905425258],
          [-0.7461809736, -0.5361887444, -0.2841290041, 0.4192178419],
          [-0.8066271786, -0.6524744457, -0.5467712386, 0.3366288858]],
         [[0.0823700371, 0.2988021772, 0.0975104908, 0.3810158922, 0.1403014027],
          [0.1358070065, 0.1824896724, 0.101536643, 0.292348332, 0.2878183461],
          [0.1484798234, 0.1144116223, 0.111393612, 0.2624300511, 0.3632848913]],
         [[0.2183656765, 0.3657275975, 0.0343936754, -0.2700663962],
          [-0.5382467091, -0.6889212703, -0.1172108911, 0.5273141859],
          [-0.7189636588, -1.223963633, -0.0997703865, 0.9091674986],
          [-0.3640267182, -0.5814432635, -0.057903721, 0.434365467]],
         [[0.200812331, -0.6852934827, 3.7564320363, -1.3329380603],
          [-0.2514850585, 0.3701208483, 0.4308271079, -0.0805711535],
          [0.0812804898, 0.1068314774, 0.4170670796, 0.0867511481],
          [0.4220270357, -0.3162323871, 1.7661772105, 0.2355946209],
          [0.4794414411, 0.0770897501, 1.2957749903, 0.4168307703]]],
    'step_returns_tuples':
        [[2.0, 4.0, 8.0], 7.0, [2.0, 3.0, 4.0, 5.0], [2.0, 4.0, 8.0, 16.0, 32.0], 31.0],
    'masked_lstm_step':
        [[[-0.0314420155, 0.0866176503], [0.156693063, -0.098742802],
          [0.0508769009, -0.0120646982]],
         0.0877397863,
         [[-0.0001846841, -0.0006647528, 0.0010901761, -0.0008955735, 0.0007457877, -0.0007675312,
           0.000535467, 0.0017458269],
          [0.0005914994, -0.0035273492, -0.0001492833, 0.0037685846, -0.0003015084, 0.0009854294,
           0.0009216189, 0.0107227099]]],
    'ifelse_branch_reads_a_shared_variable':
        [[6.0, 8.0], 1, [1.0, 2.0], [4.0, 6.0], -1, [1.0, 2.0]],
    'nested_scan_with_until_inside':
        [[8.0, 32.0, 2.0], [3, 5, 1]],
    'state_aliasing_a_sequence_and_swapped_states':
        [[4.0, 5.0], [5.0, 7.0], [4.0, 6.0], [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]],
         [[3.0, 4.0], [11.0, 22.0], [13.0, 24.0], [21.0, 42.0]],
         [[11.0, 22.0], [13.0, 24.0], [21.0, 42.0], [23.0, 44.0]],
         [[10.0, 20.0], [10.0, 20.0], [10.0, 20.0], [10.0, 20.0]]],
    'inc_and_set_subtensor_states':
        [[[1, 0, 0, 0], [1, 0, 1, 0], [1, 0, 2, 0], [1, 0, 2, 1], [2, 0, 2, 1], [3, 0, 2, 1]],
         [[6.1875, 6.1875], [8.09375, 8.09375], [4.375, 4.375]], [0.875, 1.75, 3.5, 3.0, 2.0]],
    'results_kept_between_calls':
        [True, [[1.0, 1.0], [1.5, 1.5], [1.75, 1.75]], [0.0, 2.0, 3.0], [1.75, 1.75], 3.0,
         [[2.0, 2.0], [3.0, 3.0], [3.5, 3.5]], [0.0, 8.0, 12.0], [3.5, 3.5], 12.0],
    'fibonacci_and_updates_only':
        [[1, 2, 3, 5, 8, 13, 21, 34, 55, 89], 10, None],
    'embedding_lookup_with_shared_initial_state':
        [[[0.2449186624, 0.2449186624], [0.6184303582, 0.6764062199],
          [0.7207553517, 0.7771774999], [0.3455466579, 0.4530956236]],
         [[0.6085750512, 0.7201541314], [0.0212192822, 0.0181777222], [0.0, 0.0],
          [0.1913604191, 0.1812641594], [0.0, 0.0], [0.0, 0.0]],
         [0.0106096411, 0.0090888611],
         [[-0.0608575051, 0.0279845869], [0.1978780718, 0.2981822278], [0.4, 0.5],
          [0.5808639581, 0.6818735841], [0.8, 0.9], [1.0, 1.1]]],
}


def _jitgraph():
    import jitgraph as theano
    import jitgraph.tensor as T
    from jitgraph.ifelse import ifelse
    from jitgraph.scan_module import until
    return theano, T, ifelse, until


def _close(got, want, rel, path="result"):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{path}: {got} != {want}"
        for k, (g, w) in enumerate(zip(got, want)):
            _close(g, w, rel, f"{path}[{k}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=rel, abs=1e-9), f"{path}: {got} != {want}"
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"


def pytest_generate_tests(metafunc):
    # (a hook, not a decorator: the oracle's venv, running this file, has no pytest)
    if "program" in metafunc.fixturenames:
        metafunc.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])


def test_program_matches_theano(program):
    # float32 results within a few ulps: Theano's Python loop rounds some float32 steps
    # through float64
    rel = 1e-6 if program is int32_and_float32_states else 1e-8
    _close(program(*_jitgraph()), RECORDED[program.__name__], rel)


def test_hessian_through_a_loop_started_from_its_input():
    """The tutorial's Hessian recipe (scan over ``grad(gy[i], x)``) of a loop whose initial
    state is ``x`` itself, against finite differences of the gradient. Theano 1.0.5 gives
    [[5.98770476, -0.07065987], [-0.07065987, 9.07346953]] here, which finite differences of
    its own gradient contradict; jitgraph gives the finite-difference Hessian."""
    theano, T, _, _ = _jitgraph()
    x = T.vector('x')
    W = theano.shared(np.array([[0.5, -0.2], [0.1, 0.3]]), name='W')
    h, _ = theano.scan(lambda h: T.tanh(T.dot(W, h) + x), outputs_info=x, n_steps=4)
    gy = T.grad((h ** 2).sum(), x)
    H, _ = theano.scan(lambda i, gy, x: T.grad(gy[i], x), sequences=T.arange(gy.shape[0]),
                       non_sequences=[gy, x])
    grad = theano.function([x], gy)
    x0, eps = np.array([0.3, -0.4]), 1e-6
    fd = np.array([(grad(x0 + eps * e) - grad(x0 - eps * e)) / (2 * eps) for e in np.eye(2)])
    np.testing.assert_allclose(theano.function([x], H)(x0), fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(fd, [[-0.96094745, 0.46795297], [0.46795297, 2.4899821]],
                               atol=1e-7)


def test_gradient_of_a_backwards_until_loop():
    """The loop stops after two steps, which read x[5] and x[4]: the gradient of the last
    state is 1 there. Theano 1.0.5 gives [0, 0, 0, 1, 1, 0] (the reversed gradient shifted by
    the steps not run)."""
    theano, T, _, until = _jitgraph()
    x = T.vector('x')
    r, _ = theano.scan(lambda a, s: (s + a, until(s + a > 6)), sequences=x,
                       outputs_info=T.constant(0.0, dtype='float64'), go_backwards=True)
    got_r, got_g = theano.function([x], [r, theano.grad(r[-1], x)])(np.arange(6.))
    assert got_r.tolist() == [5.0, 9.0]
    assert got_g.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0, 1.0]


def test_strict_error_is_theanos_missing_input_error():
    theano, T, _, _ = _jitgraph()
    x = T.vector('x'); w = theano.shared(2.0, name='w')
    with pytest.raises(theano.gof.MissingInputError, match="shared variable w"):
        theano.scan(lambda a: a * w, sequences=x, strict=True)


def test_float_n_steps_is_an_error():
    """Theano refuses a float n_steps (jitgraph ran 2.5 as 2 steps)."""
    theano, T, _, _ = _jitgraph()
    x = T.scalar('x')
    for n in (2.5, 2.0, np.float64(3), T.constant(2.0)):
        with pytest.raises(TypeError, match="n_steps must be an integer"):
            theano.scan(lambda s: s * 2, outputs_info=x, n_steps=n)
    r, _ = theano.scan(lambda s: s * 2, outputs_info=x, n_steps=np.int32(2))
    assert theano.function([x], r)(1.0).tolist() == [2.0, 4.0]


def test_gradient_through_an_ifelse_condition_is_zero():
    """As in Theano, a variable read only by an ifelse's condition has gradient 0 (it was a
    DisconnectedInputError); the function then does not use the other input."""
    theano, T, ifelse, _ = _jitgraph()
    from jitgraph.compile.function import UnusedInputError

    c, a = T.scalar('c'), T.vector('a')
    z = ifelse(T.gt(c, 0), a * 2, a * 3)
    g = theano.grad(z.sum(), c)
    with pytest.raises(UnusedInputError):
        theano.function([c, a], g)
    assert theano.function([c, a], g, on_unused_input='ignore')(1.0, np.ones(2)) == 0.0
    k = T.lscalar('k')
    zk = ifelse(k, a * 2, a * 3)
    f = theano.function([k, a], [theano.grad(zk.sum(), a), theano.grad(zk.sum(), k)])
    got_a, got_k = f(0, np.ones(2))
    assert got_a.tolist() == [3.0, 3.0] and got_k == 0


def test_empty_sequence_gives_empty_results():
    """Theano 1.0.5 raises NotImplementedError for a loop of 0 steps; jitgraph returns the
    empty results (each of its shape: steps first), their gradient too."""
    theano, T, _, _ = _jitgraph()
    X = T.matrix('X')
    r, _ = theano.scan(lambda row, s: s + row, sequences=X, outputs_info=T.zeros_like(X[0]))
    m, _ = theano.map(lambda row: row * 2, sequences=X)
    f = theano.function([X], [r, m, theano.grad(r.sum(), X)])
    for got in f(np.zeros((0, 3))):
        assert got.shape == (0, 3)


def test_state_of_another_dtype_is_also_a_value_error():
    """Theano raises ValueError when a step changes its state's dtype: jitgraph's error is a
    TypeError and a ValueError, naming both types."""
    theano, T, _, _ = _jitgraph()
    X = T.matrix('X')
    with pytest.raises(ValueError, match="float64.*float32"):
        theano.scan(lambda row, m: T.maximum(m, row.max()), sequences=X,
                    outputs_info=[T.constant(np.float32(-np.inf))])


def test_copies_of_a_function_run_in_threads():
    """Copies of a function share its ops, and so the inner program of a loop run step by
    step (the gradient loop here) and of a lazy ifelse branch: threads calling different
    copies at once must each get their own results."""
    import sys

    theano, T, _, _ = _jitgraph()
    x = T.matrix('x')
    W = theano.shared(np.random.RandomState(0).randn(8, 8) * 0.3)
    h, _ = theano.scan(lambda xt, h: T.tanh(T.dot(h, W) + xt), sequences=x,
                       outputs_info=T.zeros_like(x[0]))
    c = T.scalar('c')
    z = theano.ifelse.ifelse(T.gt(c, 0), (h ** 2).sum(), h.sum())
    f = theano.function([x, c], [h, theano.grad(h.sum(), W), z])
    copies = [f.copy() for _ in range(4)]
    rng = np.random.RandomState(1)
    xs = [rng.randn(30 + k, 8) for k in range(4)]
    want = [g(a, float(k % 2)) for k, (g, a) in enumerate(zip(copies, xs))]
    wrong: list = []

    def work(k: int) -> None:
        for _ in range(15):
            got = copies[k](xs[k], float(k % 2))
            if not all(np.array_equal(a, b) for a, b in zip(got, want[k])):
                wrong.append(k)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not wrong


if __name__ == "__main__":  # regenerate RECORDED under the Theano oracle
    import theano
    import theano.tensor as T
    from theano.ifelse import ifelse
    from theano.scan_module import until
    print("RECORDED = {")
    for p in PROGRAMS:
        print(f"    {p.__name__!r}: {p(theano, T, ifelse, until)!r},")
    print("}")

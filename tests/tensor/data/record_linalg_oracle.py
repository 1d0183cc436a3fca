# Records tests/tensor/data/linalg_oracle.npz under Theano 1.0.5 (run from tests/tensor/data with
# ../shared/tools/theano-oracle record_linalg_oracle.py). CI never runs this.
import theano, theano.tensor as T, numpy as np, sys
import theano.tensor.nlinalg as nl, theano.tensor.slinalg as sl, theano.tensor.fft as fft
rng = np.random.RandomState(42)
A = rng.rand(3, 3) + 3 * np.eye(3)          # well conditioned, non-symmetric
S = A.dot(A.T)                              # SPD
R = rng.rand(3, 2)                          # rectangular
B = rng.rand(3, 2)
bv = rng.rand(3)
C33 = rng.rand(3, 3); C32 = rng.rand(3, 2); C23 = rng.rand(2, 3); c3 = rng.rand(3)
X = rng.rand(2, 8)                          # fft input
Xo = rng.rand(2, 7)
rec = dict(A=A, S=S, R=R, B=B, bv=bv, C33=C33, C32=C32, C23=C23, c3=c3, X=X, Xo=Xo)
m = T.dmatrix('m'); m2 = T.dmatrix('m2'); v = T.dvector('v')
def go(name, ins, vals, out, wrt=None, cost=None):
    f = theano.function(ins, out)
    rec[name] = f(*vals)
    if cost is not None:
        g = theano.function(ins, T.grad(cost, wrt))
        gs = g(*vals)
        for k, gv in enumerate(gs): rec[f'{name}_g{k}'] = gv
go('inv', [m], [A], nl.matrix_inverse(m), [m], (nl.matrix_inverse(m) * C33).sum())
go('pinv', [m], [R], nl.pinv(m), [m], (nl.pinv(m) * C23).sum())
go('det', [m], [A], nl.det(m), [m], nl.det(m))
w, V = nl.eigh(m)
go('eigh_w', [m], [S], w, [m], (w * c3).sum() + (V * C33).sum())
go('eigh_ns_w', [m], [A], w, [m], (w * c3).sum() + (V * C33).sum())
w, V = nl.Eigh('U')(m)
go('eighU_ns_w', [m], [A], w, [m], (w * c3).sum() + (V * C33).sum())
L = sl.cholesky(m)
go('chol', [m], [S], L, [m], (L * C33).sum())
Lu = sl.Cholesky(lower=False)(m)
go('cholU', [m], [S], Lu, [m], (Lu * C33).sum())
for st in ['general', 'symmetric', 'lower_triangular', 'upper_triangular']:
    M = {'general': A, 'symmetric': S, 'lower_triangular': np.tril(A), 'upper_triangular': np.triu(A)}[st]
    x = sl.Solve(A_structure=st)(m, m2)
    go(f'solve_{st}', [m, m2], [M, B], x, [m, m2], (x * C32).sum())
    xv = sl.Solve(A_structure=st)(m, v)
    go(f'solvev_{st}', [m, v], [M, bv], xv, [m, v], (xv * c3).sum())
w = sl.eigvalsh(m, m2)
go('eigvalsh', [m, m2], [S, S + 2 * np.eye(3)], w, [m, m2], (w * c3).sum())
go('eigvalsh_ns', [m, m2], [A, S + 2 * np.eye(3)], w, [m, m2], (w * c3).sum())
E = sl.expm(m)
go('expm', [m], [A * 0.3], E, [m], (E * C33).sum())
go('kron', [m, m2], [A, B], sl.kron(m, m2))
for norm in [None, 'ortho', 'no_norm']:
    F = fft.rfft(m, norm=norm)
    W = rng.rand(2, 5, 2); rec[f'rfft_W_{norm}'] = W
    go(f'rfft_{norm}', [m], [X], F, [m], (F * W).sum())
    F = fft.rfft(m, norm=norm)
    Wo = rng.rand(2, 4, 2); rec[f'rfft_Wo_{norm}'] = Wo
    go(f'rfft_odd_{norm}', [m], [Xo], F, [m], (F * Wo).sum())
t3 = T.dtensor3('t3')
Z = rng.rand(2, 5, 2); Zo = rng.rand(2, 4, 2); rec['Z'] = Z; rec['Zo'] = Zo
Wi = rng.rand(2, 8); Wio = rng.rand(2, 7); rec['Wi'] = Wi; rec['Wio'] = Wio
for norm in [None, 'ortho', 'no_norm']:
    I = fft.irfft(t3, norm=norm)
    go(f'irfft_{norm}', [t3], [Z], I, [t3], (I * Wi).sum())
    I = fft.irfft(t3, norm=norm, is_odd=True)
    go(f'irfft_odd_{norm}', [t3], [Zo], I, [t3], (I * Wio).sum())
go('trace', [m], [A], nl.trace(m), [m], nl.trace(m))
for o in [None, 'fro', 'inf', '-inf', 0, 1, 2, -2]:
    for nm, x in [('m', m), ('v', v)]:
        try:
            f = theano.function([x], nl.norm(x, o)); rec[f'norm_{nm}_{o}'] = f(A if nm == 'm' else bv - 0.5)
        except Exception as e: print('norm', nm, o, 'ERR', type(e).__name__, e)
go('mpow3', [m], [A], nl.matrix_power(m, 3))

go('mdot', [m, m2], [A, B], nl.matrix_dot(m, m2, m2.T))
np.savez('linalg_oracle.npz', **{k: np.asarray(v) for k, v in rec.items()})
print(sorted(rec))
# R_op of inverse
ev = T.dmatrix('ev')
r = T.Rop(nl.matrix_inverse(m), m, ev)
print('rop_inv', theano.function([m, ev], r)(A, C33).tolist())
for o, f in [('det', nl.det), ('pinv', nl.pinv), ('eigh', lambda a: nl.eigh(a)[0]), ('chol', sl.cholesky), ('expm', sl.expm)]:
    try: T.Rop(f(m), m, ev); print('Rop', o, 'ok')
    except Exception as e: print('Rop', o, 'ERR', type(e).__name__)

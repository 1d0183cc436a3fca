# Logistic regression trained on a Dask cluster, then applied block by block.
# LocalCluster starts worker processes on this machine; on a real cluster, pass the
# scheduler's address to Client instead.
import numpy as np
import dask.array as da
from distributed import Client, LocalCluster

import jitgraph
import jitgraph.dask
import jitgraph.tensor as T


def main():
    rng = np.random.default_rng(0)
    n, feats = 4000, 50
    data = rng.normal(size=(n, feats))
    labels = (data @ rng.normal(size=feats) > 0).astype("float64")
    X = da.from_array(data, chunks=(500, feats))  # 8 blocks of 500 rows
    y = da.from_array(labels, chunks=500)

    x, t = T.dmatrix("x"), T.dvector("t")
    w = jitgraph.shared(np.zeros(feats), name="w")
    b = jitgraph.shared(0.0, name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    cost = (-t * T.log(p_1) - (1 - t) * T.log(1 - p_1)).mean() + 0.001 * (w ** 2).sum()

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        # Each worker keeps 4 blocks; every step it computes the gradient on 50 rows of each,
        # the client averages the gradients and updates w and b.
        trainer = jitgraph.dask.DataParallelSGD(client, [x, t], cost, [w, b], learning_rate=0.5)
        costs = trainer.fit(X, y, epochs=5, batch_size=50)
        print(f"cost: {costs[0]:.3f} -> {costs[-1]:.3f} in {len(costs)} steps")
        print("first call on each worker (s):", trainer.first_call_times())

        # Block by block: the predictions keep X's row chunks, the accuracy (a mean over
        # the rows) is combined across the blocks by Dask.
        prediction = p_1 > 0.5
        predict = jitgraph.function([x, t], [prediction, T.eq(prediction, t).mean()],
                                    name="predict")
        predicted, accuracy = jitgraph.dask.map_blocks(predict, X, y)
        print("predictions:", predicted)
        print(f"accuracy: {float(accuracy.compute()):.3f}")
    return costs, float(accuracy.compute(scheduler="sync"))


if __name__ == "__main__":
    main()

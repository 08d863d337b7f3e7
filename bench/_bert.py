"""BERT-base pretraining (masked LM + next sentence), sequence 128, in flowjob and plain JAX,
for the first-call section (issue 35): the same model written the way each user would.

flowjob's is written with OneFlow's API as OneFlow-Benchmark's ``LanguageModeling/BERT``
scripts do (``get_variable`` embeddings, ``layers.dense``, ``batch_matmul`` attention,
``layer_norm``, Adam); the JAX one is the plain translation. Both train from truncated-normal
(0.02) weights on random token data.
"""

from __future__ import annotations

import math

import numpy as np

from ._models import N_BATCHES, Variant

VOCAB, TYPES, POSITIONS = 30522, 2, 512
HIDDEN, HEADS, LAYERS, FFN = 768, 12, 12, 3072
SEQ, PREDICTIONS = 128, 20
LR = 1e-4


def data(batch: int, seed: int = 0) -> list[tuple[np.ndarray, ...]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(N_BATCHES):
        ids = rng.integers(0, VOCAB, (batch, SEQ)).astype(np.int32)
        types = (np.arange(SEQ)[None, :] >= SEQ // 2).astype(np.int32).repeat(batch, 0)
        mask = np.ones((batch, SEQ), np.int32)
        positions = np.sort(rng.choice(SEQ, (batch, PREDICTIONS)), axis=1).astype(np.int32)
        targets = rng.integers(0, VOCAB, (batch, PREDICTIONS)).astype(np.int32)
        nsp = rng.integers(0, 2, batch).astype(np.int32)
        out.append((ids, types, mask, positions, targets, nsp))
    return out


def flowjob_variant(batch: int) -> Variant:
    import flowjob as flow
    import flowjob.typing as tp

    init = flow.truncated_normal_initializer(stddev=0.02)

    def dense(x, units, name, activation=None):
        return flow.layers.dense(
            x, units, activation=activation, kernel_initializer=init, name=name
        )

    def norm(x, name):
        return flow.layers.layer_norm(x, begin_norm_axis=-1, begin_params_axis=-1, name=name)

    def layer(h, bias, i):  # h: (batch * SEQ, HIDDEN)
        head = HIDDEN // HEADS

        def split(x):  # -> (batch, HEADS, SEQ, head)
            return flow.transpose(flow.reshape(x, (batch, SEQ, HEADS, head)), perm=[0, 2, 1, 3])

        with flow.scope.namespace(f"layer{i}"):
            q = split(dense(h, HIDDEN, "query"))
            k = split(dense(h, HIDDEN, "key"))
            v = split(dense(h, HIDDEN, "value"))
            scores = flow.matmul(q, k, transpose_b=True) * (1.0 / math.sqrt(head)) + bias
            context = flow.matmul(flow.nn.softmax(scores), v)
            context = flow.reshape(flow.transpose(context, perm=[0, 2, 1, 3]), (-1, HIDDEN))
            h = norm(h + dense(context, HIDDEN, "attention_output"), "attention_norm")
            inner = dense(h, FFN, "intermediate", activation=flow.math.gelu)
            return norm(h + dense(inner, HIDDEN, "output"), "output_norm")

    @flow.global_function(type="train")
    def job(
        ids: tp.Numpy.Placeholder((batch, SEQ), dtype=flow.int32),
        types: tp.Numpy.Placeholder((batch, SEQ), dtype=flow.int32),
        mask: tp.Numpy.Placeholder((batch, SEQ), dtype=flow.int32),
        positions: tp.Numpy.Placeholder((batch, PREDICTIONS), dtype=flow.int32),
        targets: tp.Numpy.Placeholder((batch, PREDICTIONS), dtype=flow.int32),
        nsp: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> tp.Numpy:
        words = flow.get_variable("word_embeddings", (VOCAB, HIDDEN), initializer=init)
        kinds = flow.get_variable("type_embeddings", (TYPES, HIDDEN), initializer=init)
        where = flow.get_variable("position_embeddings", (POSITIONS, HIDDEN), initializer=init)
        h = flow.gather(words, ids) + flow.gather(kinds, types)
        h = h + flow.slice(where, [0, 0], [SEQ, HIDDEN])
        h = flow.reshape(norm(h, "embedding_norm"), (-1, HIDDEN))
        keep = flow.cast(flow.reshape(mask, (batch, 1, 1, SEQ)), flow.float32)
        bias = (keep - 1.0) * 10000.0
        for i in range(LAYERS):
            h = layer(h, bias, i)
        seq = flow.reshape(h, (batch, SEQ, HIDDEN))
        picked = flow.gather(seq, positions, batch_dims=1)  # (batch, PREDICTIONS, HIDDEN)
        picked = flow.reshape(picked, (-1, HIDDEN))
        t = norm(dense(picked, HIDDEN, "mlm_transform", activation=flow.math.gelu), "mlm_norm")
        mlm_bias = flow.get_variable("mlm_bias", (VOCAB,), initializer=flow.zeros_initializer())
        logits = flow.matmul(t, words, transpose_b=True) + mlm_bias
        mlm = flow.nn.sparse_softmax_cross_entropy_with_logits(flow.reshape(targets, (-1,)), logits)
        first = flow.slice(seq, [0, 0, 0], [batch, 1, HIDDEN])
        pooled = dense(flow.reshape(first, (batch, HIDDEN)), HIDDEN, "pooler", flow.math.tanh)
        nsp_loss = flow.nn.sparse_softmax_cross_entropy_with_logits(nsp, dense(pooled, 2, "nsp"))
        loss = flow.math.reduce_mean(mlm) + flow.math.reduce_mean(nsp_loss)
        flow.optimizer.Adam(flow.optimizer.PiecewiseConstantScheduler([], [LR])).minimize(loss)
        return loss

    feeds = data(batch)
    losses: list[float] = []

    def step(i):
        losses.append(float(np.asarray(job(*feeds[i % N_BATCHES])).reshape(-1)[0]))

    return Variant(step, flow.sync_default_session, {"losses": losses})


def jax_variant(batch: int) -> Variant:
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(0)

    def normal(*shape):
        return jnp.asarray(0.02 * np.clip(rng.standard_normal(shape, np.float32), -2, 2))

    def dense_params(n_in, n_out):
        return {"w": normal(n_in, n_out), "b": jnp.zeros(n_out)}

    def norm_params():
        return {"g": jnp.ones(HIDDEN), "b": jnp.zeros(HIDDEN)}

    params = {
        "words": normal(VOCAB, HIDDEN),
        "types": normal(TYPES, HIDDEN),
        "positions": normal(POSITIONS, HIDDEN),
        "embedding_norm": norm_params(),
        "layers": [
            {
                "q": dense_params(HIDDEN, HIDDEN),
                "k": dense_params(HIDDEN, HIDDEN),
                "v": dense_params(HIDDEN, HIDDEN),
                "o": dense_params(HIDDEN, HIDDEN),
                "n1": norm_params(),
                "ffn1": dense_params(HIDDEN, FFN),
                "ffn2": dense_params(FFN, HIDDEN),
                "n2": norm_params(),
            }
            for _ in range(LAYERS)
        ],
        "mlm": dense_params(HIDDEN, HIDDEN),
        "mlm_norm": norm_params(),
        "mlm_bias": jnp.zeros(VOCAB),
        "pooler": dense_params(HIDDEN, HIDDEN),
        "nsp": dense_params(HIDDEN, 2),
    }

    def dense(p, x):
        return x @ p["w"] + p["b"]

    def norm(p, x):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * p["g"] + p["b"]

    def loss_fn(p, ids, types, mask, positions, targets, nsp):
        head = HIDDEN // HEADS
        h = p["words"][ids] + p["types"][types] + p["positions"][:SEQ]
        h = norm(p["embedding_norm"], h)
        bias = (mask[:, None, None, :].astype(jnp.float32) - 1.0) * 10000.0
        for lp in p["layers"]:

            def split(x):
                return x.reshape(batch, SEQ, HEADS, head).transpose(0, 2, 1, 3)

            q, k, v = (split(dense(lp[n], h)) for n in ("q", "k", "v"))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head) + bias
            context = (jax.nn.softmax(scores) @ v).transpose(0, 2, 1, 3)
            h = norm(lp["n1"], h + dense(lp["o"], context.reshape(batch, SEQ, HIDDEN)))
            inner = jax.nn.gelu(dense(lp["ffn1"], h), approximate=False)
            h = norm(lp["n2"], h + dense(lp["ffn2"], inner))
        picked = jnp.take_along_axis(h, positions[:, :, None], axis=1)
        t = norm(p["mlm_norm"], jax.nn.gelu(dense(p["mlm"], picked), approximate=False))
        logits = t @ p["words"].T + p["mlm_bias"]
        mlm = -jnp.take_along_axis(jax.nn.log_softmax(logits), targets[..., None], -1).mean()
        pooled = jnp.tanh(dense(p["pooler"], h[:, 0]))
        nsp_logits = dense(p["nsp"], pooled)
        return mlm - jnp.take_along_axis(jax.nn.log_softmax(nsp_logits), nsp[:, None], 1).mean()

    def adam_init(p):
        zeros = jax.tree.map(jnp.zeros_like, p)
        return {"m": zeros, "v": zeros, "t": jnp.zeros((), jnp.int32)}

    @jax.jit
    def init(p):
        return adam_init(p)

    def train(p, opt, *batch_arrays):
        loss, g = jax.value_and_grad(loss_fn)(p, *batch_arrays)
        t = opt["t"] + 1
        m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, opt["m"], g)
        v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, opt["v"], g)
        scale = LR * jnp.sqrt(1 - 0.999**t) / (1 - 0.9**t)
        p = jax.tree.map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + 1e-8), p, m, v)
        return p, {"m": m, "v": v, "t": t}, loss

    train = jax.jit(train, donate_argnums=(0, 1))
    state = {"p": params, "opt": init(params)}
    feeds = data(batch)
    losses: list[float] = []

    def step(i):
        state["p"], state["opt"], loss = train(state["p"], state["opt"], *feeds[i % N_BATCHES])
        losses.append(float(np.asarray(loss)))

    return Variant(step, extra={"losses": losses})

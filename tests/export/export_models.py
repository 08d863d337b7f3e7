"""Small models for the export tests: the shapes of OneFlow-Benchmark's ResNet and BERT."""

import flowjob as flow


def _conv_bn(x, filters, kernel, stride, name, relu=True, groups=1):
    weight = flow.get_variable(
        name + "-weight",
        shape=(filters, x.shape[1] // groups, kernel, kernel),
        initializer=flow.variance_scaling_initializer(2, "fan_in", "random_normal"),
    )
    y = flow.nn.conv2d(
        x, weight, strides=stride, padding="SAME", data_format="NCHW", groups=groups, name=name
    )
    y = flow.layers.batch_normalization(
        y, axis=1, momentum=0.9, epsilon=1e-5, training=False, trainable=False, name=name + "_bn"
    )
    return flow.nn.relu(y) if relu else y


def _bottleneck(x, filters, stride, name):
    shortcut = x
    if stride != 1 or x.shape[1] != filters * 4:
        shortcut = _conv_bn(x, filters * 4, 1, stride, name + "_branch1", relu=False)
    y = _conv_bn(x, filters, 1, 1, name + "_branch2a")
    y = _conv_bn(y, filters, 3, stride, name + "_branch2b")
    y = _conv_bn(y, filters * 4, 1, 1, name + "_branch2c", relu=False)
    return flow.nn.relu(shortcut + y)


def resnet_small(images):
    """Stem conv + max pool, two bottleneck blocks, global average pool, dense."""
    x = _conv_bn(images, 16, 3, 1, "stem")
    x = flow.nn.max_pool2d(x, ksize=3, strides=2, padding="SAME", data_format="NCHW")
    x = _bottleneck(x, 8, 1, "res2a")
    x = _bottleneck(x, 8, 2, "res3a")
    x = flow.nn.avg_pool2d(x, ksize=x.shape[2], strides=1, padding="VALID", data_format="NCHW")
    x = flow.reshape(x, (x.shape[0], -1))
    return flow.layers.dense(x, 10, kernel_initializer=flow.xavier_uniform_initializer(), name="fc")


def bert_small(ids, mask, vocab=50, hidden=32, heads=4, layers=2, seq=8):
    """Word + position embeddings, layer norm, ``layers`` encoder blocks, first-token pooler."""
    init = flow.truncated_normal_initializer(stddev=0.02)
    table = flow.get_variable("word_embeddings", shape=(vocab, hidden), initializer=init)
    x = flow.gather(table, ids, axis=0)
    pos = flow.get_variable("position_embeddings", shape=(1, seq, hidden), initializer=init)
    x = flow.layers.layer_norm(
        x + pos, begin_norm_axis=-1, begin_params_axis=-1, name="embeddings_ln"
    )
    # additive attention mask: 0 where attended, -10000 where masked
    bias = (1.0 - flow.cast(flow.reshape(mask, (-1, 1, 1, seq)), flow.float32)) * -10000.0
    size = hidden // heads
    for i in range(layers):
        scope = f"layer{i}"
        flat = flow.reshape(x, (-1, hidden))

        def project(t, name, units=hidden, activation=None, scope=scope):
            return flow.layers.dense(
                t, units, activation=activation, kernel_initializer=init, name=f"{scope}-{name}"
            )

        def split_heads(t):
            t = flow.reshape(t, (-1, seq, heads, size))
            return flow.transpose(t, perm=[0, 2, 1, 3])

        q, k, v = (split_heads(project(flat, n)) for n in ("query", "key", "value"))
        scores = flow.matmul(q, k, transpose_b=True) * (1.0 / size**0.5) + bias
        probs = flow.nn.softmax(scores)
        ctx = flow.transpose(flow.matmul(probs, v), perm=[0, 2, 1, 3])
        ctx = flow.reshape(ctx, (-1, hidden))
        attn = flow.layers.layer_norm(
            project(ctx, "output") + flat,
            begin_norm_axis=-1,
            begin_params_axis=-1,
            name=f"{scope}-attn_ln",
        )
        mid = project(attn, "intermediate", hidden * 4, activation=flow.math.gelu)
        out = flow.layers.layer_norm(
            project(mid, "ffn_out") + attn,
            begin_norm_axis=-1,
            begin_params_axis=-1,
            name=f"{scope}-ffn_ln",
        )
        x = flow.reshape(out, (-1, seq, hidden))
    first = flow.squeeze(flow.slice(x, [None, 0, 0], [None, 1, hidden]), axis=[1])
    pooled = flow.math.tanh(
        flow.layers.dense(first, hidden, kernel_initializer=init, name="pooler")
    )
    return flow.math.reduce_mean(pooled, axis=-1, keepdims=True) + pooled

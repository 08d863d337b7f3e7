"""BERT-style pretraining (masked language model + next sentence prediction) on OFRecord.

This project's own program (not a copy): modelled on the API surface of OneFlow-Benchmark's
``LanguageModeling/BERT`` pretraining scripts (OFRecord fields ``input_ids``, ``input_mask``,
``segment_ids``, ``masked_lm_positions``, ``masked_lm_ids``, ``masked_lm_weights``,
``next_sentence_labels`` read by ``OFRecordRawDecoder``; embeddings by ``get_variable`` and
``gather``; ``flow.scope.namespace`` per layer; AdamW with a polynomial schedule, linear
warmup and gradient clipping), with small dimensions. Prints
``step: S, total_loss: T, mlm_loss: M, nsp_loss: N`` every ``--loss_print_every_n_iter``.
"""

import argparse
import math

import oneflow as flow

parser = argparse.ArgumentParser(description="tiny BERT pretraining")
parser.add_argument("--data_dir", type=str, required=True)
parser.add_argument("--data_part_num", type=int, default=1)
parser.add_argument("--batch_size_per_device", type=int, default=16)
parser.add_argument("--seq_length", type=int, default=16)
parser.add_argument("--max_predictions_per_seq", type=int, default=4)
parser.add_argument("--vocab_size", type=int, default=40)
parser.add_argument("--type_vocab_size", type=int, default=2)
parser.add_argument("--hidden_size", type=int, default=32)
parser.add_argument("--num_attention_heads", type=int, default=2)
parser.add_argument("--num_hidden_layers", type=int, default=1)
parser.add_argument("--intermediate_size", type=int, default=64)
parser.add_argument("--hidden_dropout_prob", type=float, default=0.0)
parser.add_argument("--learning_rate", type=float, default=3e-3)
parser.add_argument("--weight_decay_rate", type=float, default=0.01)
parser.add_argument("--warmup_steps", type=int, default=5)
parser.add_argument("--iter_num", type=int, default=60)
parser.add_argument("--loss_print_every_n_iter", type=int, default=10)
args = parser.parse_args()

INIT = flow.truncated_normal(0.02)


def decode(record, name, shape, dtype=flow.int32):
    return flow.data.OFRecordRawDecoder(record, name, shape=shape, dtype=dtype)


def dense(x, units, name, activation=None):
    """``x`` (rows, in) -> (rows, units): a kernel and a bias under ``name``."""
    with flow.scope.namespace(name):
        kernel = flow.get_variable("weight", shape=(x.shape[-1], units), initializer=INIT)
        bias = flow.get_variable("bias", shape=(units,), initializer=flow.zeros_initializer())
        y = flow.nn.bias_add(flow.matmul(x, kernel), bias)
        return activation(y) if activation else y


def layer_norm(x, name):
    return flow.layers.layer_norm(x, begin_norm_axis=-1, begin_params_axis=-1, name=name)


def attention(x, mask_bias, batch, name):
    """Multi-head self-attention on ``x`` (batch * seq, hidden)."""
    heads, seq = args.num_attention_heads, args.seq_length
    size = args.hidden_size // heads
    with flow.scope.namespace(name):

        def split(t):  # (batch*seq, hidden) -> (batch, heads, seq, size)
            return flow.transpose(flow.reshape(t, (batch, seq, heads, size)), perm=[0, 2, 1, 3])

        q = split(dense(x, args.hidden_size, "query"))
        k = split(dense(x, args.hidden_size, "key"))
        v = split(dense(x, args.hidden_size, "value"))
        scores = flow.matmul(q, k, transpose_b=True, alpha=1.0 / math.sqrt(size)) + mask_bias
        context = flow.matmul(flow.nn.softmax(scores), v)
        context = flow.reshape(
            flow.transpose(context, perm=[0, 2, 1, 3]), (batch * seq, args.hidden_size)
        )
        return dense(context, args.hidden_size, "output")


def encoder(ids, segments, mask, batch):
    seq, hidden = args.seq_length, args.hidden_size
    with flow.scope.namespace("bert/embeddings"):
        words = flow.get_variable(
            "word_embeddings", shape=(args.vocab_size, hidden), initializer=INIT
        )
        types = flow.get_variable(
            "token_type_embeddings", shape=(args.type_vocab_size, hidden), initializer=INIT
        )
        positions = flow.get_variable(
            "position_embeddings", shape=(1, seq, hidden), initializer=INIT
        )
        x = flow.gather(words, ids) + flow.gather(types, segments) + positions
        x = layer_norm(flow.reshape(x, (batch * seq, hidden)), "LayerNorm")
    # keys outside the mask get -10000 before the softmax
    mask_bias = flow.reshape((1.0 - flow.cast(mask, flow.float)) * -10000.0, (batch, 1, 1, seq))
    for i in range(args.num_hidden_layers):
        with flow.scope.namespace(f"bert/encoder/layer_{i}"):
            x = layer_norm(x + attention(x, mask_bias, batch, "attention"), "LayerNorm_1")
            h = dense(x, args.intermediate_size, "intermediate", flow.math.gelu)
            h = flow.nn.dropout(dense(h, hidden, "output"), rate=args.hidden_dropout_prob)
            x = layer_norm(x + h, "LayerNorm_2")
    return flow.reshape(x, (batch, seq, hidden)), words


def masked_lm_loss(sequence, words, positions, ids, weights):
    with flow.scope.namespace("cls-predictions"):
        picked = flow.gather(sequence, positions, batch_dims=1)  # (batch, preds, hidden)
        picked = flow.reshape(picked, (-1, args.hidden_size))
        h = layer_norm(dense(picked, args.hidden_size, "transform", flow.math.gelu), "LayerNorm")
        logits = flow.matmul(h, words, transpose_b=True)  # tied to the word embeddings
        bias = flow.get_variable(
            "output_bias", shape=(args.vocab_size,), initializer=flow.zeros_initializer()
        )
        logits = flow.nn.bias_add(logits, bias)
        per_token = flow.nn.sparse_softmax_cross_entropy_with_logits(
            flow.reshape(ids, (-1,)), logits
        )
        weights = flow.reshape(weights, (-1,))
        return flow.math.reduce_sum(per_token * weights) / (flow.math.reduce_sum(weights) + 1e-5)


def next_sentence_loss(sequence, labels, batch):
    with flow.scope.namespace("cls-seq_relationship"):
        first = flow.reshape(
            flow.slice(sequence, [None, 0, None], [None, 1, None]), (batch, args.hidden_size)
        )
        pooled = dense(first, args.hidden_size, "pooler", flow.math.tanh)
        logits = dense(pooled, 2, "output")
        return flow.math.reduce_mean(
            flow.nn.sparse_softmax_cross_entropy_with_logits(flow.reshape(labels, (-1,)), logits)
        )


def optimizer():
    schedule = flow.optimizer.PolynomialScheduler(
        args.learning_rate,
        args.iter_num,
        end_learning_rate=0.0,
        warmup=flow.optimizer.warmup.linear(args.warmup_steps, 0),
    )
    return flow.optimizer.AdamW(
        schedule,
        epsilon=1e-6,
        weight_decay=args.weight_decay_rate,
        weight_decay_excludes=["bias", "LayerNorm", "layer_norm"],
        grad_clipping=flow.optimizer.grad_clipping.by_global_norm(1.0),
    )


config = flow.FunctionConfig()
config.default_data_type(flow.float)


@flow.global_function(type="train", function_config=config)
def PretrainJob():
    batch, seq, preds = args.batch_size_per_device, args.seq_length, args.max_predictions_per_seq
    record = flow.data.ofrecord_reader(
        args.data_dir, batch_size=batch, data_part_num=args.data_part_num, random_shuffle=True
    )
    ids = decode(record, "input_ids", (seq,))
    sequence, words = encoder(
        ids, decode(record, "segment_ids", (seq,)), decode(record, "input_mask", (seq,)), batch
    )
    mlm = masked_lm_loss(
        sequence,
        words,
        decode(record, "masked_lm_positions", (preds,)),
        decode(record, "masked_lm_ids", (preds,)),
        decode(record, "masked_lm_weights", (preds,), flow.float),
    )
    nsp = next_sentence_loss(sequence, decode(record, "next_sentence_labels", (1,)), batch)
    total = mlm + nsp
    optimizer().minimize(total)
    return {"total_loss": total, "mlm_loss": mlm, "nsp_loss": nsp}


if __name__ == "__main__":
    flow.config.gpu_device_num(1)
    sums = {"total_loss": 0.0, "mlm_loss": 0.0, "nsp_loss": 0.0}
    for step in range(1, args.iter_num + 1):
        out = PretrainJob().get()
        for key in sums:
            sums[key] += float(out[key].numpy().mean())
        if step % args.loss_print_every_n_iter == 0:
            n = args.loss_print_every_n_iter
            print(f"step: {step}, " + ", ".join(f"{k}: {v / n:.6f}" for k, v in sums.items()))
            sums = dict.fromkeys(sums, 0.0)

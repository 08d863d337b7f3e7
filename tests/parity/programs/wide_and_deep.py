"""Wide & Deep click-through-rate model trained on OFRecord or OneRec files, evaluated by AUC.

This project's own program (not a copy): modelled on the API surface of OneFlow-Benchmark's
``ClickThroughRate/WideDeepLearning`` program (``--dataset_format ofrecord|onerec``,
``ofrecord_reader`` + ``OFRecordRawDecoder`` or ``onerec_reader`` + ``onerec_decoder`` for the
fields ``labels``, ``dense_fields``, ``wide_sparse_fields``, ``deep_sparse_fields``; embedding
tables by ``get_variable`` split by model, looked up with ``gather``; ``LazyAdam``; a train job
and an eval job sharing the variables). Prints ``iter I loss L`` and ``eval_auc A``.
"""

import argparse
import glob
import os

import numpy as np
import oneflow as flow

parser = argparse.ArgumentParser(description="tiny Wide & Deep")
parser.add_argument("--dataset_format", choices=("ofrecord", "onerec"), default="ofrecord")
parser.add_argument("--train_data_dir", type=str, required=True)
parser.add_argument("--train_data_part_num", type=int, default=1)
parser.add_argument("--eval_data_dir", type=str, required=True)
parser.add_argument("--eval_data_part_num", type=int, default=1)
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--num_dense_fields", type=int, default=13)
parser.add_argument("--num_wide_sparse_fields", type=int, default=2)
parser.add_argument("--num_deep_sparse_fields", type=int, default=26)
parser.add_argument("--wide_vocab_size", type=int, default=64)
parser.add_argument("--deep_vocab_size", type=int, default=64)
parser.add_argument("--deep_embedding_vec_size", type=int, default=4)
parser.add_argument("--hidden_units_num", type=int, default=2)
parser.add_argument("--hidden_size", type=int, default=16)
parser.add_argument("--deep_dropout_rate", type=float, default=0.0)
parser.add_argument("--learning_rate", type=float, default=0.003)
parser.add_argument("--max_iter", type=int, default=80)
parser.add_argument("--loss_print_every_n_iter", type=int, default=10)
parser.add_argument("--eval_batchs", type=int, default=4)
args = parser.parse_args()


def ofrecord_fields(data_dir, part_num, shuffle):
    record = flow.data.ofrecord_reader(
        data_dir,
        batch_size=args.batch_size,
        data_part_num=part_num,
        part_name_suffix_length=5,
        random_shuffle=shuffle,
        shuffle_after_epoch=shuffle,
    )

    def decode(name, width, dtype=flow.int32):
        return flow.data.OFRecordRawDecoder(record, name, shape=(width,), dtype=dtype)

    return decode


def onerec_fields(data_dir, shuffle):
    files = sorted(glob.glob(os.path.join(data_dir, "*.onerec")))
    record = flow.data.onerec_reader(
        files=files,
        batch_size=args.batch_size,
        random_shuffle=shuffle,
        shuffle_mode="batch",
        shuffle_buffer_size=8,
        shuffle_after_epoch=shuffle,
    )

    def decode(name, width, dtype=flow.int32):
        return flow.data.onerec_decoder(record, key=name, shape=(width,), dtype=dtype)

    return decode


def read(data_dir, part_num, shuffle):
    if args.dataset_format == "ofrecord":
        decode = ofrecord_fields(data_dir, part_num, shuffle)
    else:
        decode = onerec_fields(data_dir, shuffle)
    return (
        decode("labels", 1),
        decode("dense_fields", args.num_dense_fields, flow.float),
        decode("wide_sparse_fields", args.num_wide_sparse_fields),
        decode("deep_sparse_fields", args.num_deep_sparse_fields),
    )


def model(dense, wide_ids, deep_ids, training):
    wide_table = flow.get_variable(
        "wide_weight",
        shape=(args.wide_vocab_size, 1),
        initializer=flow.random_uniform_initializer(-0.05, 0.05),
        distribute=flow.distribute.split(0),
    )
    wide = flow.math.reduce_sum(flow.gather(wide_table, wide_ids), axis=[1])  # (batch, 1)
    deep_table = flow.get_variable(
        "deep_embedding",
        shape=(args.deep_vocab_size, args.deep_embedding_vec_size),
        initializer=flow.random_uniform_initializer(-0.05, 0.05),
        distribute=flow.distribute.split(1),
    )
    deep = flow.reshape(
        flow.gather(deep_table, deep_ids),
        (-1, args.num_deep_sparse_fields * args.deep_embedding_vec_size),
    )
    deep = flow.concat([deep, dense], axis=1)
    for i in range(args.hidden_units_num):
        deep = flow.layers.dense(
            deep,
            args.hidden_size,
            activation=flow.math.relu,
            kernel_initializer=flow.glorot_uniform_initializer(),
            bias_initializer=flow.constant_initializer(0.0),
            name=f"fc{i}",
        )
        if training and args.deep_dropout_rate > 0:
            deep = flow.nn.dropout(deep, rate=args.deep_dropout_rate)
    deep = flow.layers.dense(
        deep, 1, kernel_initializer=flow.glorot_uniform_initializer(), name="deep_scores"
    )
    return wide + deep


@flow.global_function(type="train")
def TrainJob():
    labels, dense, wide_ids, deep_ids = read(args.train_data_dir, args.train_data_part_num, True)
    logits = model(dense, wide_ids, deep_ids, training=True)
    loss = flow.math.reduce_mean(
        flow.nn.sigmoid_cross_entropy_with_logits(
            labels=flow.cast(labels, flow.float), logits=logits
        )
    )
    schedule = flow.optimizer.PiecewiseConstantScheduler([], [args.learning_rate])
    flow.optimizer.LazyAdam(schedule).minimize(loss)
    return loss


@flow.global_function(type="predict")
def EvalJob():
    labels, dense, wide_ids, deep_ids = read(args.eval_data_dir, args.eval_data_part_num, False)
    return flow.math.sigmoid(model(dense, wide_ids, deep_ids, training=False)), labels


def roc_auc(labels, scores):
    """Probability that a random positive scores above a random negative (ties count half)."""
    pos, neg = scores[labels == 1], scores[labels == 0]
    above = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return above / (len(pos) * len(neg))


if __name__ == "__main__":
    flow.config.gpu_device_num(1)
    total = 0.0
    for i in range(1, args.max_iter + 1):
        total += float(TrainJob().get().numpy().mean())
        if i % args.loss_print_every_n_iter == 0:
            print(f"iter {i} loss {total / args.loss_print_every_n_iter:.6f}")
            total = 0.0
    scores, labels = [], []
    for _ in range(args.eval_batchs):
        prediction, label = EvalJob().get()
        scores.append(prediction.numpy().reshape(-1))
        labels.append(label.numpy().reshape(-1))
    print(f"eval_auc {roc_auc(np.concatenate(labels), np.concatenate(scores)):.6f}")

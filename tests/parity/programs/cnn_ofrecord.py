"""A small image classifier trained, validated, evaluated and used for inference on OFRecord.

This project's own program (not a copy): modelled on the API surface of OneFlow-Benchmark's
``Classification/cnns`` scripts (an argparse config like ``of_cnn_train_val``'s, OFRecord
image decoding with random crops and mirroring, an optimizer helper with warmup, LR decay,
momentum/Adam and weight decay, checkpoints by ``flow.checkpoint``), at a size that trains
in seconds on a CPU. Run it with ``flowjob run cnn_ofrecord.py --mode ...``.

Printed lines (the test reads them):
``train: epoch E, iter I, loss: L, top_1: A``, ``validation: epoch E, top_1: A, top_k: K``,
``inference: LABEL PROB``.
"""

import argparse
import os

import numpy as np
import oneflow as flow
import oneflow.typing as tp


def str2bool(text):
    return text.lower() in ("1", "true", "yes")


def get_parser():
    parser = argparse.ArgumentParser(description="small OFRecord CNN")
    parser.add_argument(
        "--mode", choices=("train_val", "evaluate", "inference"), default="train_val"
    )
    parser.add_argument("--train_data_dir", type=str, default=None)
    parser.add_argument("--train_data_part_num", type=int, default=1)
    parser.add_argument("--val_data_dir", type=str, default=None)
    parser.add_argument("--val_data_part_num", type=int, default=1)
    parser.add_argument("--num_classes", type=int, default=2)
    parser.add_argument("--image_size", type=int, default=24)
    parser.add_argument("--resize_size", type=int, default=28)
    parser.add_argument("--batch_size_per_device", type=int, default=8)
    parser.add_argument("--val_batch_size_per_device", type=int, default=8)
    parser.add_argument("--gpu_num_per_node", type=int, default=1)
    parser.add_argument("--num_examples", type=int, default=64)
    parser.add_argument("--num_val_examples", type=int, default=16)
    parser.add_argument("--num_epochs", type=int, default=3)
    parser.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
    parser.add_argument("--learning_rate", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--wd", type=float, default=1e-4)
    parser.add_argument("--lr_decay", choices=("none", "cosine", "step"), default="cosine")
    parser.add_argument("--warmup_epochs", type=float, default=1)
    parser.add_argument("--top_k", type=int, default=2)
    parser.add_argument("--loss_print_every_n_iter", type=int, default=1)
    parser.add_argument("--channel_last", type=str2bool, default=False)
    parser.add_argument("--model_save_dir", type=str, default="./snapshots")
    parser.add_argument("--model_load_dir", type=str, default=None)
    parser.add_argument("--image_path", type=str, default=None)
    return parser


args = get_parser().parse_args()
MEAN, STD = [127.5] * 3, [127.5] * 3
train_batch = args.batch_size_per_device * args.gpu_num_per_node
val_batch = args.val_batch_size_per_device * args.gpu_num_per_node
iters_per_epoch = args.num_examples // train_batch
layout = "NHWC" if args.channel_last else "NCHW"


def set_up_optimizer(loss):
    """Warmup for ``warmup_epochs``, then cosine or step decay; SGD with momentum or Adam,
    weight decay on every variable except biases and batch-norm parameters."""
    total = iters_per_epoch * args.num_epochs
    warmup = None
    if args.warmup_epochs > 0:
        warmup = flow.optimizer.warmup.linear(int(args.warmup_epochs * iters_per_epoch), 0)
    if args.lr_decay == "cosine":
        schedule = flow.optimizer.CosineScheduler(args.learning_rate, total, warmup=warmup)
    elif args.lr_decay == "step":
        schedule = flow.optimizer.PiecewiseScalingScheduler(
            args.learning_rate, [max(1, total // 2)], 0.1, warmup=warmup
        )
    else:
        schedule = flow.optimizer.PiecewiseConstantScheduler(
            [], [args.learning_rate], warmup=warmup
        )
    if args.optimizer == "adam":
        opt = flow.optimizer.AdamW(
            schedule, weight_decay=args.wd, weight_decay_excludes=["bias", "gamma", "beta"]
        )
    else:
        opt = flow.optimizer.SGD(schedule, momentum=args.momentum or None)
    opt.minimize(loss)


def conv_bn_relu(x, filters, name, training):
    x = flow.layers.conv2d(
        x,
        filters,
        3,
        padding="SAME",
        data_format=layout,
        use_bias=False,
        kernel_initializer=flow.variance_scaling_initializer(
            2.0, "fan_in", "random_normal", data_format=layout
        ),
        kernel_regularizer=flow.regularizers.l2(args.wd) if args.optimizer == "sgd" else None,
        name=name + "_conv",
    )
    # momentum 0.9: the moving statistics settle within the few steps of a test run
    x = flow.layers.batch_normalization(
        x, axis=3 if args.channel_last else 1, momentum=0.9, training=training, name=name + "_bn"
    )
    return flow.nn.relu(x)


def small_cnn(images, training):
    with flow.scope.namespace("cnn"):
        x = conv_bn_relu(images, 8, "block1", training)
        x = flow.nn.max_pool2d(x, 2, 2, "VALID", data_format=layout)
        x = conv_bn_relu(x, 16, "block2", training)
        x = flow.nn.avg_pool2d(x, 2, 2, "VALID", data_format=layout)
        x = flow.reshape(x, (x.shape[0], -1))
        return flow.layers.dense(
            x, args.num_classes, name="fc", kernel_initializer=flow.glorot_uniform_initializer()
        )


def load_for_training():
    record = flow.data.ofrecord_reader(
        args.train_data_dir,
        batch_size=train_batch,
        data_part_num=args.train_data_part_num,
        part_name_suffix_length=5,
        random_shuffle=True,
        shuffle_after_epoch=True,
    )
    labels = flow.data.OFRecordRawDecoder(record, "class/label", shape=(), dtype=flow.int32)
    images = flow.data.OFRecordImageDecoderRandomCrop(
        record, "encoded", color_space="RGB", random_area=(0.6, 1.0)
    )
    images = flow.image.Resize(images, target_size=[args.image_size, args.image_size])[0]
    mirror = flow.random.CoinFlip(batch_size=train_batch)
    images = flow.image.CropMirrorNormalize(
        images,
        mirror_blob=mirror,
        color_space="RGB",
        output_layout=layout,
        mean=MEAN,
        std=STD,
        output_dtype=flow.float,
    )
    return labels, images


def load_for_validation():
    record = flow.data.ofrecord_reader(
        args.val_data_dir,
        batch_size=val_batch,
        data_part_num=args.val_data_part_num,
        part_name_suffix_length=5,
    )
    labels = flow.data.OFRecordRawDecoder(record, "class/label", shape=(), dtype=flow.int32)
    images = flow.data.OFRecordImageDecoder(record, "encoded", color_space="RGB")
    images = flow.image.Resize(images, target_size=[args.resize_size, args.resize_size])[0]
    images = flow.image.CropMirrorNormalize(
        images,
        color_space="RGB",
        output_layout=layout,
        crop_h=args.image_size,
        crop_w=args.image_size,
        mean=MEAN,
        std=STD,
        output_dtype=flow.float,
    )
    return labels, images


def train_config():
    config = flow.FunctionConfig()
    config.default_logical_view(flow.scope.consistent_view())
    config.default_data_type(flow.float)
    return config


@flow.global_function("train", train_config())
def TrainNet():
    labels, images = load_for_training()
    logits = small_cnn(images, training=True)
    loss = flow.math.reduce_mean(
        flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="softmax_loss")
    )
    set_up_optimizer(loss)
    return {"loss": loss, "predictions": flow.nn.softmax(logits), "labels": labels}


@flow.global_function("predict", train_config())
def InferenceNet():
    labels, images = load_for_validation()
    return {"predictions": flow.nn.softmax(small_cnn(images, training=False)), "labels": labels}


def top_k_accuracy(predictions, labels, k):
    best = np.argsort(-predictions, axis=1)[:, :k]
    return float(np.mean([label in row for label, row in zip(labels, best)]))


def validate(epoch):
    batches = max(1, args.num_val_examples // val_batch)
    outputs = [InferenceNet().get() for _ in range(batches)]
    predictions = np.concatenate([o["predictions"].numpy() for o in outputs])
    labels = np.concatenate([o["labels"].numpy() for o in outputs])
    top_1 = top_k_accuracy(predictions, labels, 1)
    top_k = top_k_accuracy(predictions, labels, args.top_k)
    print(f"validation: epoch {epoch}, top_1: {top_1:.6f}, top_k: {top_k:.6f}")


def train_val():
    for epoch in range(args.num_epochs):
        for i in range(iters_per_epoch):
            out = TrainNet().get()
            if (i + 1) % args.loss_print_every_n_iter == 0:
                accuracy = top_k_accuracy(out["predictions"].numpy(), out["labels"].numpy(), 1)
                loss = float(out["loss"].numpy().mean())
                print(f"train: epoch {epoch}, iter {i}, loss: {loss:.6f}, top_1: {accuracy:.6f}")
        if args.val_data_dir:
            validate(epoch)
        path = os.path.join(args.model_save_dir, f"snapshot_epoch_{epoch}")
        flow.checkpoint.save(path)


def evaluate():
    flow.load_variables(flow.checkpoint.get(args.model_load_dir))
    validate(0)


def inference():
    from PIL import Image

    image = Image.open(args.image_path).convert("RGB").resize((args.resize_size,) * 2)
    offset = (args.resize_size - args.image_size) // 2
    array = np.asarray(image, np.float32)[
        offset : offset + args.image_size, offset : offset + args.image_size
    ]
    array = ((array - 127.5) / 127.5)[np.newaxis]
    if not args.channel_last:
        array = array.transpose(0, 3, 1, 2)

    @flow.global_function("predict", train_config())
    def PredictJob(images: tp.Numpy.Placeholder(array.shape)) -> tp.Numpy:
        return flow.nn.softmax(small_cnn(images, training=False))

    flow.load_variables(flow.checkpoint.get(args.model_load_dir))
    probabilities = PredictJob(array)[0]
    label = int(np.argmax(probabilities))
    print(f"inference: {label} {float(probabilities[label]):.6f}")


if __name__ == "__main__":
    flow.config.gpu_device_num(args.gpu_num_per_node)
    {"train_val": train_val, "evaluate": evaluate, "inference": inference}[args.mode]()

"""The LeNet and MLP of OneFlow's docs, shared by the examples (`from models import lenet`)."""

import flowjob as flow


def lenet(data, train=False):
    """conv(32,5) - pool - conv(64,5) - pool - dense 512 - dropout (train only) - dense 10."""
    initializer = flow.truncated_normal_initializer(stddev=0.1)
    conv1 = flow.layers.conv2d(
        data,
        32,
        5,
        padding="SAME",
        activation=flow.nn.relu,
        kernel_initializer=initializer,
        name="conv1",
    )
    pool1 = flow.nn.max_pool2d(conv1, ksize=2, strides=2, padding="SAME", name="pool1")
    conv2 = flow.layers.conv2d(
        pool1,
        64,
        5,
        padding="SAME",
        activation=flow.nn.relu,
        kernel_initializer=initializer,
        name="conv2",
    )
    pool2 = flow.nn.max_pool2d(conv2, ksize=2, strides=2, padding="SAME", name="pool2")
    reshape = flow.reshape(pool2, [pool2.shape[0], -1])
    hidden = flow.layers.dense(
        reshape, 512, activation=flow.nn.relu, kernel_initializer=initializer, name="dense1"
    )
    if train:
        hidden = flow.nn.dropout(hidden, rate=0.5, name="dropout")
    return flow.layers.dense(hidden, 10, kernel_initializer=initializer, name="dense2")


def mlp(data):
    """reshape - dense 512 relu ("hidden") - dense 10 ("output")."""
    initializer = flow.truncated_normal_initializer(stddev=0.1)
    reshape = flow.reshape(data, [data.shape[0], -1])
    hidden = flow.layers.dense(
        reshape, 512, activation=flow.nn.relu, kernel_initializer=initializer, name="hidden"
    )
    return flow.layers.dense(hidden, 10, kernel_initializer=initializer, name="output")

"""OneFlow v0.4's ``oneflow.experimental`` eager API (tensors with autograd, ``nn.Module``
layers, ``optim.SGD``): the MLP 784-512-10 and ResNet-50 trained eagerly, against the same
models in PyTorch eager (issue 49's goal: at most 1.5x PyTorch's step time).

The models are the ones of ``_models`` and ``_resnet`` (same layers, shapes, data, loss and
optimizer), written with ``flow.experimental`` as a OneFlow v0.4 user wrote them: a
``Module`` subclass, ``nn.CrossEntropyLoss``, ``loss.backward()``, ``optim.SGD.step()`` and
``zero_grad()``, the loss read back with ``.numpy()`` every step as ``loss.item()`` is in
PyTorch.
"""

from __future__ import annotations

import time

from . import _harness as H
from ._models import LR, N_BATCHES, Variant, batches, numpy_params
from ._resnet import LR as RESNET_LR
from ._resnet import MODELS, _blocks, convs
from ._resnet import data as resnet_data
from ._sections import Section, goal, rate_cells, table

BATCH = {"mlp": 100, "resnet50": 8}


def experimental_variant(model: str, batch: int) -> Variant:
    import numpy as np

    import flowjob.experimental as flow

    flow.enable_eager_execution(True)
    nn = flow.nn
    if model == "mlp":
        net = nn.Sequential(nn.Flatten(1), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 10))
        params = numpy_params("mlp")
        for layer, name in ((net[1], "hidden"), (net[3], "output")):
            layer.weight.copy_(params[f"{name}-weight"])  # (out, in), as PyTorch's copy
            layer.bias.copy_(params[f"{name}-bias"])
        data, lr = batches(batch), LR
    else:
        net, data, lr = _ResNet(flow, model), resnet_data(model, batch), RESNET_LR
    net.train()
    loss_fn = nn.CrossEntropyLoss()
    opt = flow.optim.SGD(net.parameters(), lr=lr)
    inputs = [(flow.Tensor(x), flow.Tensor(y.astype(np.int64), dtype=flow.int64)) for x, y in data]
    losses = []

    def step(i):
        x, y = inputs[i % N_BATCHES]
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(float(loss.numpy().reshape(-1)[0]))  # shape (1,), as OneFlow gave

    return Variant(step, extra={"losses": losses})


def _ResNet(flow, model: str):  # noqa: N802 - builds a Module subclass of the given API
    nn = flow.nn

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleDict()
            for name, cin, cout, k, stride, groups, _ in convs(model):
                self.layers[name] = nn.Sequential(
                    nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
                    nn.BatchNorm2d(cout, eps=1e-5, momentum=0.1),
                )
            self.fc = nn.Linear(MODELS[model][3][-1][2], MODELS[model][1])
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(3, 2, 1)

        def forward(self, x):
            def conv(x, spec, relu):
                y = self.layers[spec[0]](x)
                return self.relu(y) if relu else y

            return _blocks(
                model,
                conv,
                self.pool,
                lambda y, s: self.relu(y + s),
                lambda x: self.fc(flow.mean(x, dim=[2, 3])),
                x,
            )

    return ResNet()


def experimental_section(quick: bool) -> Section:
    t0 = time.time()
    rounds = 3 if quick else 6
    rows, goals, notes = [], [], []
    for model in ("mlp", "resnet50"):
        batch = BATCH[model]
        variants = {
            "flowjob experimental": {"engine": "experimental", "model": model, "batch": batch},
            "PyTorch eager": {"engine": "torch", "model": model, "batch": batch},
        }
        workers = H.start_all(variants)
        try:
            steps = H.calibrate(workers, 1.0 if quick else 3.0)
            series = H.paired_rounds(workers, rounds, steps)
        finally:
            H.close_all(workers)
        for name, s in series.items():
            rows.append([model, str(batch), name, f"{1e3 / s.median:.4g}", *rate_cells(s)])
        vs_torch = H.ratio(series, "PyTorch eager", "flowjob experimental")  # step-time ratio
        notes.append(f"{model}: step time / PyTorch eager's {H.fmt_ratio(vs_torch)}")
        goals.append(
            goal(f"{model} experimental eager step time / PyTorch eager", vs_torch[0], "<=", 1.5)
        )
    md = [
        "Train step (forward, `loss.backward()`, `optim.SGD.step()`, `zero_grad()`, the loss "
        "read with `.numpy()`) written with `import oneflow.experimental as flow`: "
        "`nn.Module` layers, autograd through each op's `jax.vjp`, every op one compiled "
        f"program per shape (imperative/_dispatch.py). {rounds} rounds of alternating "
        "segments; the MLP at batch 100, ResNet-50 (the `_resnet` model: torchvision's "
        "architecture, as OneFlow v0.4's modules/resnet50_model.py) at batch 8.\n",
        table(["model", "batch", "variant", "ms per step", "steps/s", "range"], rows),
        "",
        "; ".join(notes),
    ]
    return Section("Experimental eager API (issue 49)", "\n".join(md), goals, time.time() - t0)

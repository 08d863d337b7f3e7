"""``flow.Model.fit`` in eager mode (``flow.optim`` optimizers) against a NumPy re-run of the
same SGD steps: losses, validation outputs, parameters, checkpoints and callback order.

The model is ``pred = x @ w + b`` with an MSE loss; its gradients have closed forms, so the
reference below repeats OneFlow v0.4's eager loop by hand: per step and optimizer, the loss
on that batch, gradients accumulated into every parameter (``zero_grad`` clears only the
optimizer's own ones), the optimizer's update, its ``zero_grad``.
"""

from __future__ import annotations

import doctest
import importlib
import os
import pkgutil

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("fresh_session")

B = 6
RNG = np.random.default_rng(3)
X = RNG.normal(size=(4, B, 3)).astype(np.float32)  # 4 distinct batches
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
X_VAL = RNG.normal(size=(B, 3)).astype(np.float32)
Y_VAL = (X_VAL @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
W0 = RNG.normal(size=(3, 1)).astype(np.float32)
B0 = np.array([0.1], np.float32)


def batch_index(step_idx: int, optimizer_idx: int) -> int:
    return (step_idx + optimizer_idx) % 4


def mse_and_grads(w, b, x, y):
    err = x @ w + b - y
    return np.mean(err**2), 2.0 / err.size * x.T @ err, 2.0 / err.size * err.sum(0)


def reference(steps, two_optimizers, w0=W0, b0=B0):
    """Losses per (step, optimizer); w, b and the validation MSE after each step; the
    gradient left in w at the end (the second optimizer's loss reaches w too)."""
    w, b = w0.astype(np.float64), b0.astype(np.float64)
    gw, gb, vw = np.zeros_like(w), np.zeros_like(b), np.zeros_like(w)
    losses, after = [], []
    for s in range(steps):
        for i in range(2 if two_optimizers else 1):
            k = batch_index(s, i)
            loss, dw, db = mse_and_grads(w, b, X[k].astype(np.float64), Y[k])
            losses.append(loss)
            gw, gb = gw + dw, gb + db
            if not two_optimizers:  # one SGD(lr=0.1) over w and b
                w, b, gw, gb = w - 0.1 * gw, b - 0.1 * gb, 0 * gw, 0 * gb
            elif i == 0:  # SGD(lr=0.1, momentum=0.9) over w
                vw = 0.9 * vw - 0.1 * gw
                w, gw = w + vw, 0 * gw
            else:  # SGD(lr=0.05) over b
                b, gb = b - 0.05 * gb, 0 * gb
        after.append((w.copy(), b.copy(), mse_and_grads(w, b, X_VAL, Y_VAL)[0]))
    return np.array(losses), after, gw


def make_classes(flow, two_optimizers=False):
    class Affine(flow.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = flow.nn.Parameter(flow.Tensor(W0))
            self.b = flow.nn.Parameter(flow.Tensor(B0))

        def forward(self, x):
            return flow.matmul(x, self.w) + self.b

    class Regression(flow.Model):
        def __init__(self):
            super().__init__()
            self.m = Affine()
            self.modes: list[tuple[bool, bool]] = []  # (training, grad enabled) in validation

        def forward(self, x):
            return self.m(x)

        def training_step(self, batch, optimizer_idx):
            x, y = batch
            return flow.mean((self(x) - y) ** 2), optimizer_idx

        def validation_step(self, batch):
            x, y = batch
            self.modes.append((self.training, flow.autograd.is_grad_enabled()))
            return flow.mean((self(x) - y) ** 2)

        def configure_optimizers(self):
            if not two_optimizers:
                return flow.optim.SGD(self.parameters(), lr=0.1)
            return [
                flow.optim.SGD([self.m.w], lr=0.1, momentum=0.9),
                flow.optim.SGD([{"params": [self.m.b], "lr": 0.05}]),
            ]

    class TrainData(flow.model.DataModule):
        def __init__(self):
            super().__init__()
            self.calls: list[tuple[int, int]] = []

        def forward(self, step_idx=0, optimizer_idx=0):
            self.calls.append((step_idx, optimizer_idx))
            k = batch_index(step_idx, optimizer_idx)
            return flow.Tensor(X[k]), flow.Tensor(Y[k])

    class ValData(flow.model.DataModule):
        def forward(self, step_idx=0, optimizer_idx=0):
            return flow.Tensor(X_VAL), flow.Tensor(Y_VAL)

    return Regression, TrainData, ValData


def make_recorder(flow, model_box, ckpt=None):
    class Recorder(flow.model.Callback):
        def __init__(self):
            self.events: list[tuple] = []

        def saved(self):
            if ckpt is None:
                return []
            folder, name = os.path.split(ckpt)
            return sorted(d for d in os.listdir(folder) if d.startswith(name + "-"))

        def on_training_step_end(self, outputs, step_idx, optimizer_idx):
            loss, idx = outputs
            assert idx == optimizer_idx
            self.events.append(
                ("train", step_idx, optimizer_idx, float(loss.numpy().item()), self.saved())
            )

        def on_validation_step_end(self, outputs, step_idx):
            m = model_box[0].m
            self.events.append(
                (
                    "val",
                    step_idx,
                    float(outputs.numpy().item()),
                    outputs.requires_grad,
                    m.w.numpy().copy(),
                    m.b.numpy().copy(),
                    self.saved(),
                )
            )

    return Recorder()


def configs(flow, train_data, val_data, interval):
    train = flow.model.TrainingConfig()
    train.config_data(train_data)
    val = flow.model.ValidationConfig()
    val.config_data(val_data)
    val.config_step_interval(interval)
    return train, val


def test_two_optimizers_train_in_turn_as_numpy_sgd(fresh_session):
    flow = fresh_session.experimental
    Regression, TrainData, ValData = make_classes(flow, two_optimizers=True)
    model, data = Regression(), TrainData()
    rec = make_recorder(flow, [model])
    train, val = configs(flow, data, ValData(), interval=2)
    model.fit(training_config=train, validation_config=val, callbacks=rec, max_steps=6)

    losses, after, left_in_w = reference(6, two_optimizers=True)
    assert data.calls == [(s, i) for s in range(6) for i in (0, 1)]
    expected_order = []
    for s in range(6):
        expected_order += [("train", s, 0), ("train", s, 1)]
        if (s + 1) % 2 == 0:
            expected_order.append(("val", s))
    got_order = [e[:3] if e[0] == "train" else e[:2] for e in rec.events]
    assert got_order == expected_order
    train_losses = [e[3] for e in rec.events if e[0] == "train"]
    np.testing.assert_allclose(train_losses, losses, rtol=1e-5, atol=1e-6)
    for e in (e for e in rec.events if e[0] == "val"):
        w, b, val_mse = after[e[1]]
        np.testing.assert_allclose(e[2], val_mse, rtol=1e-5, atol=1e-6)
        assert e[3] is False  # validation records no graph
        np.testing.assert_allclose(e[4], w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(e[5], b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.m.w.numpy(), after[-1][0], rtol=1e-5, atol=1e-6)
    # each optimizer's zero_grad clears its own parameters only, as in OneFlow v0.4: the last
    # loss's gradient stays in w, b's is cleared
    np.testing.assert_allclose(model.m.w.grad.numpy(), left_in_w, rtol=1e-5, atol=1e-6)
    assert not np.any(model.m.b.grad.numpy())


def test_validation_runs_without_grad_in_eval_mode_and_restores_the_mode(fresh_session):
    flow = fresh_session.experimental
    Regression, TrainData, ValData = make_classes(flow)
    model = Regression()
    train, val = configs(flow, TrainData(), ValData(), interval=1)
    model.fit(training_config=train, validation_config=val, max_steps=2)
    assert model.modes == [(False, False), (False, False)]
    assert model.training and model.m.training
    model.eval()
    model.fit(training_config=train, validation_config=val, max_steps=1)
    assert not model.training  # the caller's mode is kept


def test_checkpoints_every_interval_reload_and_resume(fresh_session, tmp_path):
    flow = fresh_session.experimental
    Regression, TrainData, ValData = make_classes(flow)
    ckpt = str(tmp_path / "ckpt")
    model = Regression()
    rec = make_recorder(flow, [model], ckpt)
    train, val = configs(flow, TrainData(), ValData(), interval=2)
    save = flow.model.CheckpointConfig()
    save.config_save(dirpath=ckpt, step_interval=2)
    model.fit(
        training_config=train,
        validation_config=val,
        checkpoint_config=save,
        callbacks=rec,
        max_steps=5,
    )
    assert sorted(os.listdir(tmp_path)) == ["ckpt-1", "ckpt-3"]
    assert sorted(os.listdir(f"{ckpt}-1")) == ["m.b", "m.w", "snapshot_done"]
    # a step's checkpoint is written after its validation callback, before the next step
    saved_at = {(e[0], e[1]): e[-1] for e in rec.events}
    assert saved_at[("val", 1)] == [] and saved_at[("train", 2)] == ["ckpt-1"]
    assert saved_at[("val", 3)] == ["ckpt-1"] and saved_at[("train", 4)] == ["ckpt-1", "ckpt-3"]

    _, after, _ = reference(5, two_optimizers=False)
    for step in (1, 3):
        fresh = Regression()
        result = fresh.load_state_dict(flow.load(f"{ckpt}-{step}"))
        assert not result.missing_keys and not result.unexpected_keys
        np.testing.assert_allclose(fresh.m.w.numpy(), after[step][0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(fresh.m.b.numpy(), after[step][1], rtol=1e-5, atol=1e-6)

    # config_load: a fresh model starts from step 3's values (plain SGD keeps no state)
    resumed = Regression()
    load = flow.model.CheckpointConfig()
    load.config_load(dirpath=f"{ckpt}-3")
    resumed.fit(training_config=train, checkpoint_config=load, max_steps=1)
    w3, b3, _ = after[3]
    _, again, _ = reference(1, two_optimizers=False, w0=w3, b0=b3)
    np.testing.assert_allclose(resumed.m.w.numpy(), again[0][0], rtol=1e-5, atol=1e-6)


def test_the_model_is_a_module_of_its_sub_modules(fresh_session):
    flow = fresh_session.experimental
    Regression, _, _ = make_classes(flow)
    model = Regression()
    assert isinstance(model, flow.nn.Module)
    assert [n for n, _ in model.named_parameters()] == ["m.w", "m.b"]
    assert sorted(model.state_dict()) == ["m.b", "m.w"]
    out = model(flow.Tensor(X_VAL)).numpy()
    np.testing.assert_allclose(out, X_VAL @ W0 + B0, rtol=1e-5, atol=1e-6)
    assert isinstance(flow.model.DataModule(), flow.nn.Module)


def test_numpy_batches_reach_training_step_unchanged(fresh_session):
    flow = fresh_session.experimental
    Regression, _, _ = make_classes(flow)
    seen = []

    class NumpyRegression(Regression):
        def training_step(self, batch, optimizer_idx):
            seen.append(batch)
            x, y = (flow.Tensor(a) for a in batch)
            return flow.mean((self(x) - y) ** 2)

    class Batches(flow.model.NumpyDataModule):
        def forward(self, step_idx=0, optimizer_idx=0):
            return X[step_idx % 4], Y[step_idx % 4]

    train = flow.model.TrainingConfig()
    train.config_data(Batches())
    model = NumpyRegression()
    model.fit(training_config=train, max_steps=2)
    assert len(seen) == 2 and all(isinstance(a, np.ndarray) for a in seen[1])
    np.testing.assert_array_equal(seen[1][0], X[1])
    _, after, _ = reference(2, two_optimizers=False)  # batch_index(s, 0) == s % 4
    np.testing.assert_allclose(model.m.w.numpy(), after[1][0], rtol=1e-5, atol=1e-6)


def test_validation_alone_runs_eagerly_under_eager_execution(fresh_session):
    flow = fresh_session.experimental
    fresh_session.enable_eager_execution(True)
    Regression, _, ValData = make_classes(flow)
    model = Regression()
    rec = make_recorder(flow, [model])
    val = flow.model.ValidationConfig()
    val.config_data(ValData())
    val.config_step_interval(1)
    model.fit(validation_config=val, callbacks=rec, max_steps=2)
    expected = mse_and_grads(W0.astype(np.float64), B0, X_VAL, Y_VAL)[0]
    assert [e[:2] for e in rec.events] == [("val", 0), ("val", 1)]
    np.testing.assert_allclose([e[2] for e in rec.events], [expected] * 2, rtol=1e-5)


def test_mixed_optimizers_and_a_loss_that_is_no_tensor_are_errors(fresh_session):
    flow = fresh_session.experimental
    Regression, TrainData, _ = make_classes(flow)

    class Mixed(Regression):
        def configure_optimizers(self):
            lazy = flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]))
            return [flow.optim.SGD(self.parameters(), lr=0.1), lazy]

    class NumpyLoss(Regression):
        def training_step(self, batch, optimizer_idx):
            return np.float32(1.0)

    train = flow.model.TrainingConfig()
    train.config_data(TrainData())
    with pytest.raises(flow.model.ModelError, match=r"Mixed.configure_optimizers.*mixing"):
        Mixed().fit(training_config=train, max_steps=1)
    with pytest.raises(flow.model.ModelError, match=r"as a flow.Tensor .* got float32") as err:
        NumpyLoss().fit(training_config=train, max_steps=1)
    assert "NumpyLoss.fit: step_idx 0 training failed" in err.value.__notes__


def _model_doctests() -> list[doctest.DocTest]:
    package = importlib.import_module("flowjob._src.model")
    names = [m.name for m in pkgutil.iter_modules(package.__path__, package.__name__ + ".")]
    found = []
    for name in names:
        module = importlib.import_module(name)
        found += [t for t in doctest.DocTestFinder().find(module, name, globs={}) if t.examples]
    return found


@pytest.mark.parametrize("test", _model_doctests(), ids=lambda t: t.name.split(".", 3)[-1])
def test_docstring_example_runs(test, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out: list[str] = []
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test, out=out.append)
    assert result.failed == 0, "".join(out)

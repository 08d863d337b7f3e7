"""flow.optim.lr_scheduler against closed-form rates (and PyTorch's schedulers where they agree),
and the rates reaching the optimizer's updates."""

from __future__ import annotations

import math

import numpy as np
import pytest

import flowjob.experimental as flow


def sgd(*lrs):
    groups = [{"params": [flow.nn.Parameter(flow.Tensor([1.0]))], "lr": lr} for lr in lrs]
    return flow.optim.SGD(groups, lr=1.0)


def rates(scheduler, steps):
    out = []
    for _ in range(steps):
        scheduler.step()
        out.append(list(scheduler.get_last_lr()))
    return out


def test_creating_a_scheduler_takes_step_zero():
    opt = sgd(0.5)
    scheduler = flow.optim.lr_scheduler.CosineScheduler(opt, steps=10)
    assert scheduler.last_step == 0 and scheduler.get_last_lr() == [0.5]
    assert opt.param_groups[0]["initial_lr"] == 0.5 and scheduler.base_lrs == [0.5]


def test_step_lr_decays_every_step_size_steps_per_group():
    opt = sgd(1.0, 0.2)
    got = rates(flow.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5), 10)
    for i, (a, b) in enumerate(got, start=1):
        assert a == pytest.approx(1.0 * 0.5 ** (i // 3))
        assert b == pytest.approx(0.2 * 0.5 ** (i // 3))
    assert [g["lr"] for g in opt.param_groups] == got[-1]


def test_step_lr_scales_the_rate_the_group_holds_now():
    opt = sgd(1.0)
    scheduler = flow.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    scheduler.step()
    opt.param_groups[0]["lr"] = 3.0  # changed from outside: StepLR keeps chaining from it
    scheduler.step()
    assert scheduler.get_last_lr() == [pytest.approx(0.3)]


def test_lambda_lr_one_function_per_group():
    opt = sgd(1.0, 2.0)
    lambdas = [lambda s: s // 3, lambda s: 0.95**s]
    got = rates(flow.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambdas), 8)
    for i, (a, b) in enumerate(got, start=1):
        assert a == pytest.approx(1.0 * (i // 3)) and b == pytest.approx(2.0 * 0.95**i)
    with pytest.raises(ValueError, match="expected 2 lr_lambdas"):
        flow.optim.lr_scheduler.LambdaLR(opt, lr_lambda=[lambda s: 1.0])


@pytest.mark.parametrize("alpha", [0.0, 0.3])
def test_cosine_scheduler_then_constant(alpha):
    got = rates(flow.optim.lr_scheduler.CosineScheduler(sgd(2.0), steps=5, alpha=alpha), 8)
    for i, (lr,) in enumerate(got, start=1):
        decay = 0.5 * (1 + math.cos(math.pi * min(i, 5) / 5))
        assert lr == pytest.approx(2.0 * ((1 - alpha) * decay + alpha))


def test_schedules_match_pytorch():
    torch = pytest.importorskip("torch")

    def torch_rates(make, steps):
        opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=2.0)
        scheduler = make(opt)
        out = []
        for _ in range(steps):
            opt.step()
            scheduler.step()
            out.append(scheduler.get_last_lr()[0])
        return out

    lr_scheduler = torch.optim.lr_scheduler
    want = {
        "step": torch_rates(lambda o: lr_scheduler.StepLR(o, step_size=4, gamma=0.3), 12),
        "lambda": torch_rates(lambda o: lr_scheduler.LambdaLR(o, lambda s: 1 / (1 + s)), 12),
        "cosine": torch_rates(lambda o: lr_scheduler.CosineAnnealingLR(o, 6, eta_min=0.5), 6),
    }
    ours = flow.optim.lr_scheduler
    got = {
        "step": rates(ours.StepLR(sgd(2.0), step_size=4, gamma=0.3), 12),
        "lambda": rates(ours.LambdaLR(sgd(2.0), lambda s: 1 / (1 + s)), 12),
        "cosine": rates(ours.CosineScheduler(sgd(2.0), steps=6, alpha=0.25), 6),
    }
    for name in want:
        np.testing.assert_allclose([r[0] for r in got[name]], want[name], rtol=1e-6, err_msg=name)


def test_the_scheduled_rate_drives_the_updates():
    w = flow.nn.Parameter(flow.Tensor([0.0]))
    opt = flow.optim.SGD([w], lr=1.0)
    scheduler = flow.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    expected = 0.0
    for _ in range(4):
        lr = opt.param_groups[0]["lr"]
        (w * 1.0).sum().backward()  # gradient 1: each step moves w by -lr
        opt.step()
        opt.zero_grad()
        scheduler.step()
        expected -= lr
        assert float(w.numpy()[0]) == pytest.approx(expected)
    assert expected == -(1 + 0.5 + 0.25 + 0.125)


def test_verbose_prints_each_rate(capsys):
    flow.optim.lr_scheduler.StepLR(sgd(1.0, 0.5), step_size=1, verbose=True)
    assert capsys.readouterr().out.splitlines() == [
        "Adjusting learning rate of param_groups[0] to 1.0",
        "Adjusting learning rate of param_groups[1] to 0.5",
    ]


def test_state_dict_and_resume():
    opt = sgd(1.0)
    scheduler = flow.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    rates(scheduler, 3)
    saved = scheduler.state_dict()
    assert "_optimizer" not in saved and saved["last_step"] == 3
    resumed = flow.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5, last_step=3)
    resumed.load_state_dict(saved)
    assert resumed.last_step == 3 and resumed.base_lrs == [1.0]
    with pytest.raises(KeyError, match="no 'initial_lr'"):
        flow.optim.lr_scheduler.StepLR(sgd(1.0), step_size=2, last_step=4)


def test_lambda_lr_state_keeps_callable_objects_attributes():
    class Factor:
        def __init__(self):
            self.k = 0.5

        def __call__(self, step):
            return self.k

    factor = Factor()
    scheduler = flow.optim.lr_scheduler.LambdaLR(sgd(1.0), factor)
    saved = scheduler.state_dict()
    factor.k = 0.1
    scheduler.load_state_dict(saved)
    assert saved["lr_lambdas"] == [{"k": 0.5}] and factor.k == 0.5
    plain = flow.optim.lr_scheduler.LambdaLR(sgd(1.0), lambda s: 1.0).state_dict()
    assert plain["lr_lambdas"] == [None]


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="optimizer must be a flow.optim optimizer"):
        flow.optim.lr_scheduler.StepLR(object(), step_size=1)
    with pytest.raises(ValueError, match="step_size must be > 0, got 0"):
        flow.optim.lr_scheduler.StepLR(sgd(1.0), step_size=0)
    with pytest.raises(ValueError, match="steps must be > 0"):
        flow.optim.lr_scheduler.CosineScheduler(sgd(1.0), steps=0)

"""flow.optim's optimizers over several steps against NumPy re-implementations of OneFlow v0.4's
update kernels (sgd/momentum/adam/rmsprop_update), and PyTorch where the formulas coincide."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob.experimental as flow
from flowjob._src.optim import _optimizer

RNG = np.random.default_rng(0)
W0 = {k: RNG.normal(size=shape).astype(np.float32) for k, shape in (("a", (3, 4)), ("b", (4,)))}
C = {k: RNG.uniform(0.5, 1.5, size=v.shape).astype(np.float32) for k, v in W0.items()}
D = {k: RNG.normal(size=v.shape).astype(np.float32) for k, v in W0.items()}
STEPS = 6


def grad_of(name, w):
    """d/dw of sum(c * w * w + d * w): the gradient depends on w, so errors compound."""
    return 2 * C[name] * w + D[name]


def flow_loss(params):
    return sum(
        (p * p * flow.Tensor(C[k])).sum() + (p * flow.Tensor(D[k])).sum() for k, p in params.items()
    )


def run_flow(make, steps=STEPS, groups=None):
    params = {k: flow.nn.Parameter(flow.Tensor(v)) for k, v in W0.items()}
    opt = make(list(params.values()) if groups is None else groups(params))
    for _ in range(steps):
        flow_loss(params).backward()
        opt.step()
        opt.zero_grad()
    return {k: p.numpy() for k, p in params.items()}, opt


def run_numpy(rule, slots, steps=STEPS):
    out = {}
    for name, w in W0.items():
        w = w.astype(np.float64)
        state = {s: np.zeros_like(w) for s in slots}
        for _ in range(steps):
            w, state = rule(w, grad_of(name, w), state)
        out[name] = w
    return out


def close(got, want, tol=1e-5):
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=tol, atol=tol, err_msg=k)


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_sgd_plain(scale):
    got, _ = run_flow(lambda p: flow.optim.SGD(p, lr=0.05, scale=scale))
    want = run_numpy(lambda w, g, s: (w - 0.05 * scale * g, s), [])
    close(got, want)


@pytest.mark.parametrize("scale", [1.0, 0.7])
def test_sgd_momentum_is_the_momentum_update_kernel(scale):
    def rule(w, g, s):
        v = 0.9 * s["v"] - 0.05 * (scale * g)
        return w + v, {"v": v}

    got, opt = run_flow(lambda p: flow.optim.SGD(p, lr=0.05, momentum=0.9, scale=scale))
    close(got, run_numpy(rule, ["v"]))
    (state,) = {tuple(s) for s in opt.state.values()}
    assert state == ("momentum_buf",)


@pytest.mark.parametrize("weight_decay", [0.0, 0.1])
def test_adam_adds_l2_to_the_gradient_without_bias_correction(weight_decay):
    b1, b2, eps, lr, scale = 0.8, 0.95, 1e-6, 0.02, 0.9

    def rule(w, g, s):
        g = g * scale + weight_decay * w
        m = b1 * s["m"] + (1 - b1) * g
        v = b2 * s["v"] + (1 - b2) * g * g
        return w - lr * m / (np.sqrt(v) + eps), {"m": m, "v": v}

    def make(p):
        return flow.optim.Adam(
            p, lr=lr, betas=(b1, b2), eps=eps, weight_decay=weight_decay, scale=scale
        )

    got, opt = run_flow(make)
    close(got, run_numpy(rule, ["m", "v"]))
    assert {tuple(s) for s in opt.state.values()} == {("exp_avg", "exp_avg_sq")}


def test_adamw_decays_the_weights_outside_the_moments():
    lr, wd, scale = 0.02, 0.3, 0.5

    def rule(w, g, s):
        g = g * scale
        m = 0.9 * s["m"] + 0.1 * g
        v = 0.999 * s["v"] + 0.001 * g * g
        return w - lr * (m / (np.sqrt(v) + 1e-8) + wd * w), {"m": m, "v": v}

    got, _ = run_flow(lambda p: flow.optim.AdamW(p, lr=lr, weight_decay=wd, scale=scale))
    close(got, run_numpy(rule, ["m", "v"]))


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop_puts_eps_under_the_root_and_ignores_weight_decay(centered):
    lr, alpha, eps, scale = 0.01, 0.9, 1e-4, 0.8

    def rule(w, g, s):
        g = g * scale
        ms = alpha * s["ms"] + (1 - alpha) * g * g
        mg = alpha * s["mg"] + (1 - alpha) * g
        denom = ms - mg * mg if centered else ms
        return w - lr * g / np.sqrt(denom + eps), {"ms": ms, "mg": mg}

    def make(p):
        return flow.optim.RMSprop(
            p, lr=lr, alpha=alpha, eps=eps, centered=centered, scale=scale, weight_decay=0.5
        )

    with pytest.warns(UserWarning, match="weight_decay has no effect"):
        got, opt = run_flow(make)
    close(got, run_numpy(rule, ["ms", "mg"]), tol=1e-4)
    names = ("square_avg", "grad_avg") if centered else ("square_avg",)
    assert {tuple(s) for s in opt.state.values()} == {names}


def test_groups_keep_their_own_options():
    def groups(p):
        return [
            {"params": [p["a"]], "lr": 0.1, "momentum": 0.5},
            {"params": [p["b"]], "scale": 2.0},
        ]

    got, opt = run_flow(lambda g: flow.optim.SGD(g, lr=0.01), groups=groups)

    def momentum(w, g, s):
        v = 0.5 * s["v"] - 0.1 * g
        return w + v, {"v": v}

    close({"a": got["a"]}, {"a": run_numpy(momentum, ["v"])["a"]})
    close({"b": got["b"]}, {"b": run_numpy(lambda w, g, s: (w - 0.01 * 2.0 * g, s), [])["b"]})
    first, second = opt.param_groups
    assert (first["lr"], first["momentum"], first["scale"]) == (0.1, 0.5, 1.0)
    assert (second["lr"], second["momentum"], second["scale"]) == (0.01, 0.0, 2.0)
    assert first.options is not second.options


def test_parameters_without_grad_are_skipped():
    a = flow.nn.Parameter(flow.Tensor([1.0, 2.0]))
    b = flow.nn.Parameter(flow.Tensor([3.0]))
    opt = flow.optim.Adam([a, b], lr=0.1)
    (a * a).sum().backward()
    opt.step()
    assert b.numpy().tolist() == [3.0]
    assert opt.state[b] == {} and set(opt.state[a]) == {"exp_avg", "exp_avg_sq"}
    assert not np.allclose(a.numpy(), [1.0, 2.0])


def test_a_step_updates_the_module_in_place():
    model = flow.nn.Linear(3, 2)
    before = model.weight.numpy()
    x = flow.Tensor(np.ones((4, 3), np.float32))
    opt = flow.optim.SGD(model.parameters(), lr=0.1)
    model(x).sum().backward()
    grad = model.weight.grad.numpy()
    opt.step()
    np.testing.assert_allclose(model.weight.numpy(), before - 0.1 * grad, rtol=1e-6)
    assert next(iter(model.parameters())) is model.weight


def test_closure_runs_with_grad_and_its_loss_is_returned():
    w = flow.nn.Parameter(flow.Tensor([2.0]))
    opt = flow.optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad(set_to_none=True)
        loss = (w * w).sum()
        loss.backward()
        return loss

    with flow.no_grad():  # even inside no_grad the closure records its graph
        loss = opt.step(closure)
    assert float(loss.numpy()[0]) == 4.0
    assert w.numpy().tolist() == [1.0]  # 2 - 0.25 * 4


def test_zero_grad_zeros_in_place_or_drops():
    w = flow.nn.Parameter(flow.Tensor([1.0]))
    opt = flow.optim.SGD([w], lr=0.1)
    opt.zero_grad()  # nothing to clear yet
    assert w.grad is None
    (w * 3.0).sum().backward()
    grad = w.grad
    opt.zero_grad()
    assert w.grad is grad and grad.numpy().tolist() == [0.0]
    opt.zero_grad(set_to_none=True)
    assert w.grad is None


def test_changing_lr_or_options_does_not_recompile():
    w = flow.nn.Parameter(flow.Tensor(np.ones((5,), np.float32)))
    opt = flow.optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    compiled = _optimizer._apply._cache_size()
    for lr in (0.05, 0.01, 0.3):
        opt.param_groups[0]["lr"] = lr
        opt.param_groups[0]["betas"] = (0.5, 0.6)
        opt.step()
    assert _optimizer._apply._cache_size() == compiled


def test_state_dict_round_trip_continues_identically():
    first, opt = run_flow(lambda p: flow.optim.Adam(p, lr=0.05), steps=3)
    saved = opt.state_dict()
    assert saved["param_groups"][0]["params"] == [0, 1] and saved["step"] == 3
    params = {k: flow.nn.Parameter(flow.Tensor(v)) for k, v in first.items()}
    resumed = flow.optim.Adam(list(params.values()), lr=0.9)
    resumed.load_state_dict(saved)
    assert resumed.param_groups[0]["lr"] == 0.05
    for _ in range(3):
        flow_loss(params).backward()
        resumed.step()
        resumed.zero_grad()
    straight, _ = run_flow(lambda p: flow.optim.Adam(p, lr=0.05), steps=6)
    close({k: p.numpy() for k, p in params.items()}, straight, tol=1e-6)


def test_add_param_group_takes_the_defaults():
    a, b = flow.nn.Parameter(flow.Tensor([1.0])), flow.nn.Parameter(flow.Tensor([1.0]))
    opt = flow.optim.SGD([a], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": b, "lr": 0.2})
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[1]["lr"] == 0.2
    with pytest.raises(ValueError, match="more than one group"):
        opt.add_param_group({"params": [a]})


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: flow.optim.SGD(p, lr=-1.0), "SGD: lr must be >= 0.0, got -1.0"),
        (lambda p: flow.optim.SGD(p, momentum=-0.1), "momentum must be >= 0"),
        (lambda p: flow.optim.Adam(p, betas=(0.9, 1.0)), r"betas\[1\] must be in \[0, 1\)"),
        (lambda p: flow.optim.Adam(p, amsgrad=True), "amsgrad=True is not supported"),
        (lambda p: flow.optim.AdamW(p, scale=0.0), "AdamW: scale must be > 0"),
        (lambda p: flow.optim.RMSprop(p, momentum=0.9), "momentum must be 0"),
        (lambda p: flow.optim.SGD([{"lr": 0.1}]), "needs a 'params' key"),
        (lambda p: flow.optim.SGD([]), "empty parameter list"),
    ],
)
def test_bad_options_are_named(make, message):
    with pytest.raises(ValueError, match=message):
        make([flow.nn.Parameter(flow.Tensor([1.0]))])


def test_non_leaf_and_non_tensor_parameters_are_refused():
    w = flow.nn.Parameter(flow.Tensor([1.0]))
    with pytest.raises(ValueError, match="leaf tensors"):
        flow.optim.SGD([w * 2.0])
    with pytest.raises(TypeError, match="must be tensors, got int"):
        flow.optim.SGD([1])
    with pytest.raises(TypeError, match="iterable of tensors or of dicts, got Parameter"):
        flow.optim.SGD(w)


# -- PyTorch, where its formulas are OneFlow's ---------------------------------------------------
def run_torch(make, steps=STEPS):
    torch = pytest.importorskip("torch")
    params = {k: torch.nn.Parameter(torch.tensor(v)) for k, v in W0.items()}
    opt = make(list(params.values()))
    for _ in range(steps):
        loss = sum(
            (p * p * torch.tensor(C[k])).sum() + (p * torch.tensor(D[k])).sum()
            for k, p in params.items()
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {k: p.detach().numpy() for k, p in params.items()}


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_sgd_matches_pytorch_at_a_constant_rate(momentum):
    # v0.4's v = m v - lr g equals PyTorch's -lr * buf (buf = m buf + g) while lr is fixed
    torch = pytest.importorskip("torch")
    want = run_torch(lambda p: torch.optim.SGD(p, lr=0.05, momentum=momentum))
    got, _ = run_flow(lambda p: flow.optim.SGD(p, lr=0.05, momentum=momentum))
    close(got, want)

"""flow.nn.Module and flow.nn.Parameter: registration, the module tree, state dicts."""

import numpy as np
import pytest

import flowjob as flow
from flowjob import nn


class Linear(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(flow.Tensor(n_out, n_in))
        self.bias = nn.Parameter(flow.Tensor(n_out))
        nn.init.xavier_uniform_(self.weight)
        nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, x):
        return x @ flow.Tensor(self.weight.numpy().T) + self.bias


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = Linear(4, 8)
        self.fc2 = Linear(8, 3)
        self.register_buffer("steps", flow.Tensor(1))
        self.register_buffer("scratch", flow.Tensor(2), persistent=False)

    def forward(self, x):
        h = self.fc1(x)
        return self.fc2(h * (h > 0))


def _numpy_forward(model, x):
    w1, b1 = model.fc1.weight.numpy(), model.fc1.bias.numpy()
    w2, b2 = model.fc2.weight.numpy(), model.fc2.bias.numpy()
    h = np.maximum(x @ w1.T + b1, 0)
    return h @ w2.T + b2


def test_parameter_shares_the_tensor_and_requires_grad():
    t = flow.Tensor(3)
    p = nn.Parameter(t)
    assert isinstance(p, flow.Tensor) and p.requires_grad
    assert not nn.Parameter(t, requires_grad=False).requires_grad
    p.fill_(2)
    np.testing.assert_array_equal(t.numpy(), [2, 2, 2])


def test_forward_through_call_matches_numpy():
    model = Mlp()
    x = np.random.default_rng(1).normal(size=(5, 4)).astype(np.float32)
    np.testing.assert_allclose(model(flow.tensor(x)).numpy(), _numpy_forward(model, x), rtol=1e-5)


def test_parameters_are_named_by_path_in_assignment_order():
    model = Mlp()
    names = [name for name, _ in model.named_parameters()]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [p.shape for p in model.parameters()] == [(8, 4), (8,), (3, 8), (3,)]
    assert [name for name, _ in model.named_parameters(recurse=False)] == []
    assert [name for name, _ in model.named_buffers()] == ["steps", "scratch"]
    assert [name for name, _ in model.named_children()] == ["fc1", "fc2"]
    assert [name for name, _ in model.named_modules()] == ["", "fc1", "fc2"]
    assert list(model.children()) == [model.fc1, model.fc2]


def test_a_shared_parameter_is_listed_once():
    model = Mlp()
    model.fc2.extra = model.fc1.weight
    assert len(list(model.parameters())) == 4


def test_state_dict_round_trip_into_another_model():
    source, target = Mlp(), Mlp()
    state = source.state_dict()
    assert list(state) == ["steps", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    # v0.4's state_dict holds the parameters and buffers themselves
    assert state["fc1.weight"] is source.fc1.weight and state["steps"] is source.steps
    result = target.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    x = np.ones((2, 4), np.float32)
    np.testing.assert_array_equal(target(flow.tensor(x)).numpy(), source(flow.tensor(x)).numpy())
    # loading copies: changing the source afterwards leaves the target alone
    nn.init.zeros_(source.fc1.weight)
    assert np.abs(target.fc1.weight.numpy()).sum() > 0


def test_load_state_dict_takes_numpy_arrays():
    model = Mlp()
    state = {k: np.full(v.shape, 0.25, np.float32) for k, v in model.state_dict().items()}
    model.load_state_dict(state)
    np.testing.assert_array_equal(model.fc2.bias.numpy(), [0.25] * 3)


def test_load_state_dict_reports_every_problem_before_copying():
    model = Mlp()
    before = model.fc1.bias.numpy()
    state = model.state_dict()
    state.pop("fc2.bias")
    state["fc3.weight"] = np.zeros(2)
    state["fc1.bias"] = np.zeros(9)
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(state)
    message = str(info.value)
    assert "Missing key(s) in state_dict: 'fc2.bias'" in message
    assert "Unexpected key(s) in state_dict: 'fc3.weight'" in message
    assert "size mismatch for fc1.bias" in message and "(9,)" in message
    np.testing.assert_array_equal(model.fc1.bias.numpy(), before)
    state["fc1.bias"] = np.zeros(8)
    result = model.load_state_dict(state, strict=False)
    assert result.missing_keys == [] and result.unexpected_keys == []
    np.testing.assert_array_equal(model.fc1.bias.numpy(), np.zeros(8))


def test_train_and_eval_reach_every_module():
    model = Mlp()
    assert model.eval() is model
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())


def test_forward_pre_hook_can_replace_the_arguments():
    model = Linear(2, 2)
    seen = []
    model.register_forward_pre_hook(lambda module, args: seen.append(module) or (args[0] * 0,))
    out = model(flow.tensor(np.ones((1, 2), np.float32)))
    assert seen == [model]
    np.testing.assert_allclose(out.numpy(), model.bias.numpy()[None], rtol=1e-6)


def test_registration_errors():
    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(flow.Tensor(1))

    with pytest.raises(AttributeError, match=r"super\(\).__init__\(\)"):
        Early()
    model = Linear(2, 2)
    with pytest.raises(TypeError, match="'weight'"):
        model.weight = flow.Tensor(2, 2)
    with pytest.raises(KeyError, match="'.'"):
        model.register_parameter("a.b", None)
    with pytest.raises(TypeError, match="not a Module"):
        model.add_module("x", 3)
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(1)


def test_deleting_and_replacing_members():
    model = Linear(2, 2)
    model.weight = None
    assert [n for n, _ in model.named_parameters()] == ["bias"]
    del model.bias
    assert list(model.parameters()) == []
    model.apply(lambda m: setattr(m, "tag", type(m).__name__))
    assert model.tag == "Linear"


def test_to_moves_every_parameter():
    model = Mlp().to("cpu")
    assert all(p.device == "cpu:0" and p.requires_grad for p in model.parameters())
    assert isinstance(model.fc1.weight, nn.Parameter)

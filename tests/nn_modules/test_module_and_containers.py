"""Module features OneFlow v0.4 programs use (state_dict entries, ``to``, hooks,
``zero_grad``, ``extra_repr``) and the containers."""

import copy
from collections import OrderedDict

import numpy as np
import pytest

import flowjob.experimental as flow


def _mlp():
    return flow.nn.Sequential(flow.nn.Linear(2, 4), flow.nn.ReLU(), flow.nn.Linear(4, 1))


def test_state_dict_holds_the_parameters_and_loads_array_like_values():
    net = _mlp()
    state = net.state_dict()
    assert list(state) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert state["0.weight"] is net[0].weight

    class Stored:  # flow.load's variable blobs: values behind numpy()
        def __init__(self, value):
            self.value = value

        def numpy(self):
            return self.value

    other = _mlp()
    other.load_state_dict({k: Stored(v.numpy()) for k, v in state.items()})
    x = flow.Tensor(np.random.default_rng(0).normal(size=(3, 2)))
    np.testing.assert_array_equal(other(x).numpy(), net(x).numpy())


def test_to_moves_parameters_gradients_and_buffers_keeping_leaves():
    m = flow.nn.BatchNorm1d(3)
    m.weight.grad = flow.Tensor(np.ones(3))
    assert m.to("cuda") is m
    for t in (m.weight, m.bias, m.running_mean, m.weight.grad):
        assert t.device == flow.device("cuda") and t.is_leaf
    assert isinstance(m.weight, flow.nn.Parameter) and m.weight.requires_grad
    assert not m.running_mean.requires_grad
    np.testing.assert_array_equal(m.weight.grad.numpy(), np.ones(3))
    y = m(flow.Tensor(np.ones((2, 3)), device="cuda"))
    assert y.device == flow.device("cuda")


def test_hooks_zero_grad_and_apply():
    m = flow.nn.Linear(2, 2)
    calls = []
    m.register_forward_pre_hook(lambda mod, args: calls.append("pre"))
    m.register_forward_hook(lambda mod, args, out: calls.append("post") or out * 0)
    out = m(flow.Tensor(np.ones((1, 2))))
    assert calls == ["pre", "post"] and np.all(out.numpy() == 0)
    m.weight.grad = flow.Tensor(np.ones((2, 2)))
    m.zero_grad()
    assert np.all(m.weight.grad.numpy() == 0)
    m.zero_grad(set_to_none=True)
    assert m.weight.grad is None
    names = []
    _mlp().apply(lambda mod: names.append(type(mod).__name__))
    assert names == ["Linear", "ReLU", "Linear", "Sequential"]


def test_a_submodule_may_shadow_a_method_name_as_in_v04():
    class Net(flow.nn.Module):
        def __init__(self):
            super().__init__()
            self.modules = flow.nn.ReLU()

    net = Net()  # registered as a child; the attribute still reads the method, as in v0.4
    assert [type(m).__name__ for m in net.children()] == ["ReLU"]
    assert [type(m).__name__ for m in net.modules()] == ["Net", "ReLU"]


def test_repr_shows_settings_and_children():
    text = repr(_mlp())
    assert "(0): Linear(in_features=2, out_features=4, bias=True)" in text
    assert "(1): ReLU()" in text
    assert repr(flow.nn.Softmax(dim=1)) == "Softmax(dim=1)"


def test_deepcopy_keeps_parameters_and_copies_values():
    net = _mlp()
    clone = copy.deepcopy(net)
    assert isinstance(clone[0].weight, flow.nn.Parameter) and clone[0].weight.requires_grad
    clone[0].weight.fill_(0)
    assert np.abs(net[0].weight.numpy()).sum() > 0


def test_sequential_indexing_and_ordered_dict():
    net = flow.nn.Sequential(OrderedDict([("fc", flow.nn.Linear(2, 3)), ("act", flow.nn.Tanh())]))
    assert list(net.state_dict()) == ["fc.weight", "fc.bias"] and net[1] is net.act
    assert isinstance(net[:1], flow.nn.Sequential) and len(net[:1]) == 1
    net[1] = flow.nn.Sigmoid()
    assert isinstance(net.act, flow.nn.Sigmoid)
    del net[0]
    assert len(net) == 1
    with pytest.raises(IndexError, match="out of range"):
        net[3]


def test_module_list_and_dict():
    layers = flow.nn.ModuleList([flow.nn.Linear(2, 2) for _ in range(3)])
    layers.append(flow.nn.ReLU())
    layers.insert(0, flow.nn.Tanh())
    assert [type(m).__name__ for m in layers] == ["Tanh", "Linear", "Linear", "Linear", "ReLU"]
    del layers[1]
    assert list(layers._modules) == ["0", "1", "2", "3"] and isinstance(layers[-1], flow.nn.ReLU)
    assert len(list(layers.parameters())) == 4
    with pytest.raises(NotImplementedError):
        layers(1)
    d = flow.nn.ModuleDict({"a": flow.nn.ReLU()})
    d.update([("b", flow.nn.Tanh())])
    assert list(d.keys()) == ["a", "b"] and "b" in d and isinstance(d.pop("a"), flow.nn.ReLU)
    assert len(d) == 1


def test_parameter_list_and_dict():
    ps = flow.nn.ParameterList([flow.nn.Parameter(flow.Tensor(2))])
    ps.append(flow.nn.Parameter(flow.Tensor(3)))
    ps += [flow.nn.Parameter(flow.Tensor(4))]
    assert [tuple(p.shape) for p in ps] == [(2,), (3,), (4,)] and ps[-1] is ps[2]
    pd = flow.nn.ParameterDict({"w": flow.nn.Parameter(flow.Tensor(2))})
    pd["b"] = flow.nn.Parameter(flow.Tensor(1))
    assert list(pd) == ["w", "b"] and list(pd.state_dict()) == ["w", "b"]
    with pytest.raises(RuntimeError, match="should not be called"):
        pd()

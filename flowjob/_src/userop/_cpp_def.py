"""Reads the op facts of a OneFlow custom-op definition file (``<name>_cpp_def.cpp``).

flowjob cannot compile C++, but the facts a Python-kernel op needs are spelled out in the
file's ``REGISTER_USER_OP("type")`` builder chains: inputs, outputs, attributes, and in the
simple cases which input an output's shape and dtype are copied from. A
``REGISTER_USER_OP_GRAD`` block names the backward op and how its inputs bind to the forward
op's inputs, outputs and output gradients. Only that fixed pattern is read: any other
construct in a chain or a gradient block raises ``CppDefError`` naming the file and line. An
inference function with statements other than the copies read here leaves the shapes (or
dtypes) of that op to a trial run of its kernel (see ``_custom_module``).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from pathlib import Path
from typing import Any

from ..errors import FlowJobError


class CppDefError(FlowJobError, ValueError):
    """A custom-op definition file uses a construct outside the pattern flowjob reads."""


class Source(enum.Enum):
    """Where a backward op's input comes from, as ``ctx->FwOp().<kind>(arg, 0)`` says."""

    INPUT = "input"
    OUTPUT = "output"
    OUTPUT_GRAD = "output_grad"


@dataclasses.dataclass
class OpDef:
    """One ``REGISTER_USER_OP`` chain. ``shape_from``/``dtype_from`` map an output to the
    input it copies; an output missing there is left to a trial run (``unread``: the lines of
    the inference statements that could not be read)."""

    op_type: str
    line: int
    inputs: list[str] = dataclasses.field(default_factory=list)
    outputs: list[str] = dataclasses.field(default_factory=list)
    attrs: dict[str, Any] = dataclasses.field(default_factory=dict)
    shape_from: dict[str, str] = dataclasses.field(default_factory=dict)
    dtype_from: dict[str, str] = dataclasses.field(default_factory=dict)
    unread: list[int] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class GradDef:
    """One ``REGISTER_USER_OP_GRAD`` block with a single backward op."""

    forward_type: str
    backward_type: str
    line: int
    binds: dict[str, tuple[Source, str]]  # backward input -> (source, forward arg)
    input_grads: dict[str, str]  # forward input -> backward output


@dataclasses.dataclass
class CppDefs:
    path: Path
    ops: dict[str, OpDef]
    grads: dict[str, GradDef]


_STRING = r'"(?:[^"\\]|\\.)*"'
_ARG = r'\(\s*"(\w+)"\s*\)'
# What an inference function may do: bind names, copy one arg's shape/dtype to another, check.
_ACCESS = r'ctx->(Shape|Dtype|TensorDesc)4ArgNameAndIndex\(\s*"(\w+)"\s*,\s*0\s*\)'
_BIND = re.compile(rf"(?:const\s+)?[\w:]+\s*\*\s*(\w+)\s*=\s*{_ACCESS}$")
_COPY = re.compile(r"\*\s*(\w+|" + _ACCESS + r")\s*=\s*\*\s*(\w+|" + _ACCESS + r")$")
_IGNORED = re.compile(r"(return\s+Maybe<void>::Ok\(\)|CHECK\w*\s*\(.*\))$", re.S)
_LAMBDA = re.compile(r"\[[^\]]*\]\s*\([^)]*\)\s*(->\s*[\w:<>]+\s*)?\{")
_IGNORED_METHODS = {  # how OneFlow splits or places an op: meaningless for one JAX program
    "SetGetSbpFn",
    "SetBatchAxisInferFn",
    "SetInputArgModifyFn",
    "SetOutputArgModifyFn",
}


def _blank_comments(text: str) -> str:
    """Comments replaced by spaces (newlines kept, so positions keep their line numbers)."""

    def blank(m: re.Match) -> str:
        found = m.group(0)
        return found if found.startswith('"') else re.sub(r"[^\n]", " ", found)

    return re.sub(rf"{_STRING}|//[^\n]*|/\*.*?\*/", blank, text, flags=re.S)


class _Reader:
    def __init__(self, path: Path, text: str) -> None:
        self.path, self.text = path, _blank_comments(text)

    def line(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def fail(self, pos: int, what: str) -> CppDefError:
        return CppDefError(
            f"{self.path}:{self.line(pos)}: {what}; flowjob reads REGISTER_USER_OP chains of "
            ".Input/.Output/.Attr/.Set*Fn and REGISTER_USER_OP_GRAD blocks with "
            "SetBackwardOpConfGenFn, and cannot compile C++ (README: user ops)"
        )

    def closing(self, pos: int) -> int:
        """Index just past the bracket that closes the one at ``pos``."""
        pairs = {"(": ")", "[": "]", "{": "}"}
        stack = [pairs[self.text[pos]]]
        i = pos + 1
        while i < len(self.text):
            c = self.text[i]
            if c == '"':
                i = re.compile(_STRING).match(self.text, i).end()
                continue
            if c in pairs:
                stack.append(pairs[c])
            elif c == stack[-1]:
                stack.pop()
                if not stack:
                    return i + 1
            i += 1
        raise self.fail(pos, f"unbalanced {self.text[pos]!r}")

    def skip_space(self, pos: int) -> int:
        return re.compile(r"\s*").match(self.text, pos).end()


def _literal(value: str) -> Any:
    value = value.strip()
    if re.fullmatch(_STRING, value):
        return bytes(value[1:-1], "utf-8").decode("unicode_escape")
    if value in ("true", "false"):
        return value == "true"
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    if re.fullmatch(r"-?(\d+\.\d*|\.\d+|\d+)([eE]-?\d+)?f?", value):
        return float(value.rstrip("f"))
    if value.startswith("{") and value.endswith("}"):
        inner = value[1:-1].strip()
        return [_literal(v) for v in inner.split(",")] if inner else []
    raise ValueError(value)


def _read_infer(r: _Reader, op: OpDef, body_start: int, body_end: int) -> None:
    """Fills ``op.shape_from`` and ``op.dtype_from`` from an inference function's body."""
    names: dict[str, tuple[str, str]] = {}  # local pointer -> (what, arg)
    found: dict[str, dict[str, str]] = {"shape": {}, "dtype": {}}
    pos = body_start
    for stmt in r.text[body_start:body_end].split(";"):
        at, pos = pos + len(stmt) - len(stmt.lstrip()), pos + len(stmt) + 1
        stmt = " ".join(stmt.split())
        if not stmt or _IGNORED.fullmatch(stmt):
            continue
        if m := _BIND.fullmatch(stmt):
            names[m.group(1)] = (m.group(2), m.group(3))
            continue
        m = _COPY.fullmatch(stmt)
        lhs = m and names.get(m.group(1), (m.group(2), m.group(3)))
        rhs = m and names.get(m.group(4), (m.group(5), m.group(6)))
        if m is None or "{" in stmt or None in (lhs[0], rhs[0]):
            # The function may change what the copies read so far set: trust none of it.
            op.unread.append(r.line(at))
            return
        for what in ("shape", "dtype"):
            # A TensorDesc copy carries both; Shape and Dtype copies carry their own.
            if {lhs[0], rhs[0]} <= {what.capitalize(), "TensorDesc"} and lhs[1] in op.outputs:
                found[what][lhs[1]] = found[what].get(rhs[1], rhs[1])
    op.shape_from.update(found["shape"])
    op.dtype_from.update(found["dtype"])


def _read_op(r: _Reader, op: OpDef, pos: int) -> int:
    """Reads the ``.Method(...)`` chain after ``REGISTER_USER_OP("type")``; returns the end."""
    method = re.compile(r"\.\s*(\w+)\s*(<[^()]*?>)?\s*\(")
    while True:
        pos = r.skip_space(pos)
        if r.text.startswith(";", pos):
            return pos + 1
        m = method.match(r.text, pos)
        if m is None:
            raise r.fail(pos, f"op {op.op_type!r}: expected '.Method(...)' or ';'")
        name, args_start = m.group(1), m.end() - 1
        args_end = r.closing(args_start)
        args = r.text[args_start + 1 : args_end - 1].strip()
        if name in ("Input", "Output", "OptionalInput", "OptionalOutput"):
            arg = re.fullmatch(r'"(\w+)"', args)
            if arg is None:
                raise r.fail(pos, f"op {op.op_type!r}: .{name} takes one name here, got ({args})")
            (op.inputs if "Input" in name else op.outputs).append(arg.group(1))
        elif name == "Attr":
            attr = re.fullmatch(r'"(\w+)"\s*(?:,\s*(.+))?', args, re.S)
            if attr is None or m.group(2) is None:
                raise r.fail(pos, f'op {op.op_type!r}: expected .Attr<type>("name"[, default])')
            try:
                op.attrs[attr.group(1)] = None if attr.group(2) is None else _literal(attr.group(2))
            except ValueError:
                raise r.fail(
                    pos, f"op {op.op_type!r}: attribute default {attr.group(2)!r} is not a literal"
                ) from None
        elif name in ("SetTensorDescInferFn", "SetDataTypeInferFn"):
            lam = _LAMBDA.match(r.text, r.skip_space(args_start + 1))
            if lam is None:
                raise r.fail(pos, f"op {op.op_type!r}: .{name} takes a lambda here")
            body = lam.end() - 1
            _read_infer(r, op, body + 1, r.closing(body) - 1)
        elif name not in _IGNORED_METHODS:
            raise r.fail(pos, f"op {op.op_type!r}: .{name} is not part of the pattern read")
        pos = args_end


def _spaced(pattern: str) -> re.Pattern:
    """``pattern`` with each space standing for optional whitespace."""
    return re.compile(pattern.replace(" ", r"\s*"), re.S)


_GRAD_NAME = _spaced(r'const auto (\w+) = ctx->FwOp \( \) \. op_name \( \) \+ "\w+" ;')
_GRAD_FUNC = _spaced(
    r"const auto & (\w+) = \[ [^\]]* \] \( user_op::BackwardOpBuilder & builder \) \{ "
    r'return builder \. OpTypeName \( "(\w+)" \)(.*?)\. Build \( \) ; \} ;'
)
_DEFINE = _spaced(r"ctx->DefineOp \( (\w+) , (\w+) \) ;")
_GETTER = _spaced(
    r"const auto & (\w+) = \[ [^\]]* \] \( \) -> const std::string & \{ "
    r'return ctx->GetOp \( (\w+) \) \. output \( "(\w+)" , 0 \) ; \} ;'
)
_GRAD_BIND = _spaced(
    r'ctx->FwOp \( \) \. InputGradBind \( user_op::OpArg \( "(\w+)" , 0 \) , (\w+) \) ;'
)
_INPUT_BIND = _spaced(
    r'\. InputBind \( "(\w+)" , ctx->FwOp \( \) \. (input|output|output_grad) \( "(\w+)" , 0 \) \)'
)
_OUTPUT = _spaced(r'\. Output \( "(\w+)" \)')


def _read_grad(r: _Reader, fw: str, pos: int) -> GradDef:
    m = _spaced(r" \. SetBackwardOpConfGenFn \( \[ [^\]]* \] \( [^)]* \) \{").match(r.text, pos)
    if m is None:
        raise r.fail(pos, f"REGISTER_USER_OP_GRAD({fw!r}): expected .SetBackwardOpConfGenFn")
    body, end = m.end(), r.closing(m.end() - 1)
    text = r.text[body : end - 1]
    used = [False] * len(text)

    def take(pattern: re.Pattern) -> list[re.Match]:
        found = list(pattern.finditer(text))
        for f in found:
            used[f.start() : f.end()] = [True] * (f.end() - f.start())
        return found

    take(_GRAD_NAME)
    funcs = {f.group(1): f for f in take(_GRAD_FUNC)}
    defines = {d.group(1): d.group(2) for d in take(_DEFINE)}
    getters = {g.group(1): (g.group(2), g.group(3)) for g in take(_GETTER)}
    grad_binds = take(_GRAD_BIND)
    left = next((i for i, c in enumerate(text) if not used[i] and not c.isspace()), None)
    if left is not None:
        raise r.fail(body + left, f"REGISTER_USER_OP_GRAD({fw!r}): statement not in the pattern")
    if len(funcs) != 1:
        raise r.fail(
            pos, f"REGISTER_USER_OP_GRAD({fw!r}): expected one backward op, found {len(funcs)}"
        )
    ((func_var, func),) = funcs.items()
    chain = func.group(3)
    binds = {b.group(1): (Source(b.group(2)), b.group(3)) for b in _INPUT_BIND.finditer(chain)}
    outputs = [o.group(1) for o in _OUTPUT.finditer(chain)]
    rest = _OUTPUT.sub("", _INPUT_BIND.sub("", chain)).strip()
    if rest:
        raise r.fail(
            body + func.start(3),
            f"REGISTER_USER_OP_GRAD({fw!r}): {rest!r} is not an .InputBind/.Output of the pattern",
        )
    input_grads = {}
    for bind in grad_binds:
        name_var, out = getters.get(bind.group(2), (None, None))
        if name_var is None or defines.get(name_var) != func_var or out not in outputs:
            raise r.fail(
                body + bind.start(),
                f"REGISTER_USER_OP_GRAD({fw!r}): the gradient of "
                f"{bind.group(1)!r} is not an output of the backward op",
            )
        input_grads[bind.group(1)] = out
    if _spaced(r" \) ;").match(r.text, end) is None:
        raise r.fail(end, f"REGISTER_USER_OP_GRAD({fw!r}): expected ');' after the function")
    return GradDef(fw, func.group(2), r.line(pos), binds, input_grads)


def read_cpp_defs(path: str | Path) -> CppDefs:
    """The ops and gradients ``path`` registers; raises ``CppDefError`` naming file:line."""
    path = Path(path)
    r = _Reader(path, path.read_text())
    ops: dict[str, OpDef] = {}
    grads: dict[str, GradDef] = {}
    for m in re.finditer(r"\bREGISTER_\w+", r.text):
        what, pos = m.group(0), m.end()
        head = re.compile(r'\s*\(\s*"(\w+)"\s*\)').match(r.text, pos)
        if what not in ("REGISTER_USER_OP", "REGISTER_USER_OP_GRAD") or head is None:
            raise r.fail(
                m.start(),
                f'{what} is not read (only REGISTER_USER_OP("type") '
                'and REGISTER_USER_OP_GRAD("type"))',
            )
        if what == "REGISTER_USER_OP":
            op = OpDef(head.group(1), r.line(m.start()))
            _read_op(r, op, head.end())
            ops[op.op_type] = op
        else:
            grad = _read_grad(r, head.group(1), head.end())
            grads[grad.forward_type] = grad
    for fw, grad in grads.items():
        for op_type in (fw, grad.backward_type):
            if op_type not in ops:
                raise CppDefError(
                    f"{path}:{grad.line}: REGISTER_USER_OP_GRAD({fw!r}) names op "
                    f"{op_type!r}, which the file does not register"
                )
        unknown = [a for a in grad.binds if a not in ops[grad.backward_type].inputs]
        if unknown:
            raise CppDefError(
                f"{path}:{grad.line}: {grad.backward_type!r} has no input(s) "
                f"{unknown}; its inputs are {ops[grad.backward_type].inputs}"
            )
    return CppDefs(path, ops, grads)

"""Every op type registered in OneFlow's ``oneflow/user/ops`` sources, with its arguments.

Many registrations sit in macros (``REGISTER_REDUCE_USER_OP("reduce_sum", ...)``) or are
generated over sequences (``OF_PP_FOR_EACH_TUPLE(M, MATH_UNARY_ELEMENTWISE_FUNC_SEQ)``), so
the files go through a small preprocessor first: comments out, lines joined, the
function-like macros of the folder expanded (``OF_PP_FOR_EACH_TUPLE`` over the
``OF_PP_MAKE_TUPLE_SEQ`` lists). Then each ``REGISTER_USER_OP(name)`` and
``REGISTER_CPU_ONLY_USER_OP(name)`` chain is read at its top level: ``Input``,
``OptionalInput``, ``InputWithMinimum``, the same for outputs, and ``Attr<type>(name[,
default])``. A name expression is the concatenation of its string literals
(``std::string("") + "abs" + "_grad"`` is ``abs_grad``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

_STRING = r'"(?:[^"\\]|\\.)*"'
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\([^)]*\))?[ \t]*(.*)$", re.M)
_DIRECTIVE = re.compile(r"^[ \t]*#.*$", re.M)
_REGISTER = re.compile(r"\b(REGISTER_USER_OP|REGISTER_CPU_ONLY_USER_OP)\s*\(")
_PAIRS = {"(": ")", "[": "]", "{": "}"}


@dataclasses.dataclass
class Arg:
    name: str
    optional: bool = False
    minimum: int = 1  # InputWithMinimum / OutputWithMinimum; 1 for a plain argument


@dataclasses.dataclass
class Attr:
    name: str
    type: str  # as written: "int32_t", "std::vector<int32_t>", "DataType"...
    default: str | None = None  # the C++ expression, when the registration gives one


@dataclasses.dataclass
class OpType:
    """One registered op type."""

    name: str
    file: str  # the .cpp file that registers it (relative to oneflow/user/ops)
    cpu_only: bool
    inputs: list[Arg] = dataclasses.field(default_factory=list)
    outputs: list[Arg] = dataclasses.field(default_factory=list)
    attrs: list[Attr] = dataclasses.field(default_factory=list)


def _blank(text: str) -> str:
    """Comments out (strings kept), line continuations joined."""

    def keep_strings(m: re.Match) -> str:
        found = m.group(0)
        return found if found.startswith('"') else " "

    text = re.sub(rf"{_STRING}|//[^\n]*|/\*.*?\*/", keep_strings, text, flags=re.S)
    return re.sub(r"\\[ \t]*\n", " ", text)


def _closing(text: str, pos: int) -> int:
    """Index just past the bracket closing the one at ``pos`` (strings skipped)."""
    stack = [_PAIRS[text[pos]]]
    i = pos + 1
    string = re.compile(_STRING)
    while i < len(text):
        c = text[i]
        if c == '"':
            i = string.match(text, i).end()
            continue
        if c in _PAIRS:
            stack.append(_PAIRS[c])
        elif c == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return len(text)


def _split_args(inner: str) -> list[str]:
    """A macro call's arguments: split at the commas outside brackets and strings."""
    args, depth, start, i = [], 0, 0, 0
    while i < len(inner):
        c = inner[i]
        if c == '"':
            i = re.compile(_STRING).match(inner, i).end()
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            args.append(inner[start:i].strip())
            start = i + 1
        i += 1
    args.append(inner[start:].strip())
    return args


class _Preprocessor:
    def __init__(self, texts: dict[str, str]) -> None:
        self.functions: dict[str, tuple[list[str], str]] = {}
        self.objects: dict[str, str] = {}
        for text in texts.values():
            for m in _DEFINE.finditer(text):
                name, params, body = m.group(1), m.group(2), m.group(3)
                if params is not None:
                    names = [p.strip() for p in params[1:-1].split(",") if p.strip()]
                    self.functions[name] = (names, body)
                else:
                    self.objects[name] = body

    def tuples(self, seq: str) -> Iterator[list[str]]:
        """The argument lists of a sequence macro's ``OF_PP_MAKE_TUPLE_SEQ(...)`` items."""
        body = self.objects.get(seq.strip(), seq)
        for m in re.finditer(r"\b(\w+)\b(\s*\()?", body):
            if m.group(1) == "OF_PP_MAKE_TUPLE_SEQ" and m.group(2):
                start = m.end() - 1
                yield _split_args(body[start + 1 : _closing(body, start) - 1])
            elif m.group(1) in self.objects and m.group(1) != seq.strip():
                yield from self.tuples(m.group(1))

    def expand(self, text: str, depth: int = 0) -> str:
        """``text`` with the folder's function-like macros (and the tuple loops) expanded."""
        if depth > 8:
            return text
        out, pos = [], 0
        call = re.compile(r"\b(\w+)\s*\(")
        while m := call.search(text, pos):
            name = m.group(1)
            if name != "OF_PP_FOR_EACH_TUPLE" and name not in self.functions:
                out.append(text[pos : m.end()])
                pos = m.end()
                continue
            start = m.end() - 1
            end = _closing(text, start)
            args = _split_args(text[start + 1 : end - 1])
            out.append(text[pos : m.start()])
            if name == "OF_PP_FOR_EACH_TUPLE":
                for item in self.tuples(args[1]):
                    out.append(self.expand(f"{args[0]}({', '.join(item)})", depth + 1) + ";\n")
            else:
                params, body = self.functions[name]
                for param, arg in zip(params, args):
                    body = re.sub(rf"\b{re.escape(param)}\b", lambda _m, a=arg: a, body)
                out.append(self.expand(body, depth + 1))
            pos = end
        out.append(text[pos:])
        return "".join(out)


def _name(expr: str) -> str:
    return "".join(s[1:-1] for s in re.findall(_STRING, expr))


def _read_chain(op: OpType, chain: str) -> None:
    """The top-level ``.Method(...)`` calls of a registration chain."""
    method = re.compile(r"\s*\.\s*(\w+)\s*(<.*?>)?\s*\(", re.S)
    pos = 0
    while m := method.match(chain, pos):
        start = m.end() - 1
        end = _closing(chain, start)
        args = _split_args(chain[start + 1 : end - 1])
        kind, pos = m.group(1), end
        if kind in ("Input", "OptionalInput", "InputWithMinimum"):
            target = op.inputs
        elif kind in ("Output", "OptionalOutput", "OutputWithMinimum"):
            target = op.outputs
        elif kind == "Attr":
            default = args[1] if len(args) > 1 else None
            op.attrs.append(Attr(_name(args[0]), (m.group(2) or "<>")[1:-1].strip(), default))
            continue
        else:
            continue
        minimum = int(args[1]) if kind.endswith("WithMinimum") else 1
        target.append(Arg(_name(args[0]), kind.startswith("Optional"), minimum))


def read_op_types(files: dict[str, str]) -> dict[str, OpType]:
    """``{type: OpType}`` of the registrations in ``files`` (``{path: text}`` of the folder)."""
    texts = {path: _blank(text) for path, text in files.items()}
    pre = _Preprocessor(texts)
    types: dict[str, OpType] = {}
    for path, text in sorted(texts.items()):
        if not path.endswith(".cpp"):
            continue
        body = pre.expand(_DIRECTIVE.sub(" ", text))
        for m in _REGISTER.finditer(body):
            start = m.end() - 1
            end = _closing(body, start)
            name = _name(body[start:end])
            if not name:
                continue
            stop = body.find(";", end)
            while stop != -1 and body.count("(", end, stop) != body.count(")", end, stop):
                stop = body.find(";", stop + 1)
            op = OpType(name, path.rsplit("/", 1)[-1], m.group(1) != "REGISTER_USER_OP")
            _read_chain(op, body[end : stop if stop != -1 else len(body)])
            types.setdefault(name, op)
    return types

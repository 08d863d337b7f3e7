"""The counts of the parity tables, and the section of ``docs/guides/migrating.md`` that shows
them (written by ``scripts/parity_tables.py``; ``tests/parity_tables`` checks the page)."""

from __future__ import annotations

import os
import textwrap

from ..api_coverage import DEFAULT_TAG
from . import eager, normalizers, op_types, signatures

START = "<!-- parity-tables:start (scripts/parity_tables.py writes this section) -->"
END = "<!-- parity-tables:end -->"


def section(clone: str | os.PathLike[str] | None = None, tag: str = DEFAULT_TAG) -> str:
    """The Markdown between ``START`` and ``END`` (both included)."""
    sig = signatures.counts(signatures.table(clone, tag))
    eager_rows = eager.counts(eager.table(clone, tag))
    ops = op_types.counts(op_types.table(clone, tag))
    helpers = normalizers.table(clone, tag)
    total_sig = sum(sig.values())
    total_ops = sum(ops.values())
    lines = [
        START,
        "## Parity tables: OneFlow v0.4.0's signatures and op types",
        "",
        f"Generated from a OneFlow {tag} clone (`FLOWJOB_ONEFLOW_SRC`) and checked by "
        "`tests/parity_tables`: every row passes or carries a reason from a checked-in list.",
        "",
        f"**Signatures** of the {total_sig} export paths of the legacy API (`@oneflow_export` "
        "functions and classes; parameter names, order, defaults, `*args`/`**kwargs`):",
        "",
        "| matched | fixed for issue 46 | known difference, with its reason | failing |",
        "| ---: | ---: | ---: | ---: |",
        f"| {sig['match']} | {sig['fixed']} | {sig['reason']} | {sig['fail']} |",
        "",
        f"**Signatures of the eager API** (`import oneflow.experimental as flow`): "
        f"{sum(eager_rows.values())} rows, the `@experimental_api` functions and classes and "
        "the other exports of `nn/modules`, `nn/optimizer` and `autograd` with their classes' "
        "public methods, the `Tensor` methods and properties (`register_tensor_op` and the "
        "`Tensor` class), `nn.Module`'s methods, and the legacy exports under `experimental.`:",
        "",
        "| matched | fixed for the eager table | known difference, with its reason | failing |",
        "| ---: | ---: | ---: | ---: |",
        f"| {eager_rows['match']} | {eager_rows['fixed']} | {eager_rows['reason']} "
        f"| {eager_rows['fail']} |",
        "",
        f"**Op types** (`REGISTER_USER_OP` in `oneflow/user/ops`): {total_ops}, of which "
        f"{ops['buildable']} build with `flow.user_op_builder(name).Op(type)` under OneFlow's "
        "argument and attribute names. The others, by reason:",
        "",
        "| reason | op types |",
        "| --- | ---: |",
    ]
    for key, text in op_types.REASONS.items():
        lines.append(f"| {text} | {ops[key]} |")
    lines += [
        "",
        f"**Argument helpers**: {len(helpers)} helpers normalize arguments in OneFlow's ops "
        f"(`_GetSequence`, `calc_pool_padding`, `_check_axis`...; "
        f"{sum(len(h.callers) for h in helpers)} calls from exported ops); each has a flowjob "
        "counterpart tested with the forms OneFlow accepted.",
        END,
    ]
    # prose wrapped at the page's 100 columns; table rows and headings stay whole
    return "\n".join(
        line if line.startswith(("|", "#", "<!--")) else textwrap.fill(line, 100) for line in lines
    )


def replace_section(page: str, new: str) -> str:
    """``page`` with its section replaced by ``new`` (appended when it has none)."""
    if START in page and END in page:
        head, rest = page.split(START, 1)
        return head + new + rest.split(END, 1)[1]
    return page.rstrip("\n") + "\n\n" + new + "\n"

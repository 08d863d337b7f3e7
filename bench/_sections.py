"""Shared types and table helpers of the benchmark sections."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from ._harness import Series


@dataclass
class Goal:
    what: str
    value: float
    target: str  # e.g. ">= 0.95"
    met: bool
    note: str = ""


@dataclass
class Section:
    title: str
    markdown: str
    goals: list[Goal] = field(default_factory=list)
    seconds: float = 0.0
    load: float = 0.0  # 1-minute load average when the section started
    name: str = ""  # its ``--only`` name (marks its block and goal rows in BENCHMARKS.md)


def marker(name: str) -> str:
    """The invisible tag of a section's block and goal rows (``--only`` replaces them)."""
    return f"<!-- bench:{name} -->"


def _meets(value: float, op: str, target: float) -> bool:
    return value >= target if op == ">=" else value <= target


def goal(what: str, value: float, op: str, target: float, note: str = "") -> Goal:
    return Goal(what, value, f"{op} {target:g}", _meets(value, op, target), note)


def shown(g: Goal) -> str:
    """``g``'s measured value with 3 significant digits, or more where 3 would round it onto
    the other side of its target: 1.199 against ">= 1.2" reads 1.199, not a 1.2 marked not
    met."""
    op, target = g.target.split()
    for digits in range(3, 10):
        text = f"{g.value:.{digits}g}"
        if _meets(float(text), op, float(target)) == g.met:
            return text
    return text


def table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def rate_cells(s: Series, unit: float = 1.0) -> list[str]:
    """median (min–max) and best, scaled by ``unit`` (e.g. the batch for samples/s)."""
    med = s.median * unit
    lo, hi = min(s.rates) * unit, max(s.rates) * unit
    return [f"{med:.4g}", f"{lo:.4g}–{hi:.4g}"]


def median(values: list[float]) -> float:
    return statistics.median(values)


def mb(x: float | None) -> str:
    return "–" if x is None else f"{x:.0f}"


PEAK = "matmul 2048² (JAX), the machine's reference"
PEAK_SPEC = {"engine": "matmul"}
PEAK_FLOPS = 2.0 * 2048**3


def gflops_cells(s: Series, flops: float, peak: Series | None) -> list[str]:
    """GFLOP/s (median over rounds) and its share of the matmul's rate in the same rounds."""
    rates = [r * flops / 1e9 for r in s.rates]
    if peak is None:
        return [f"{median(rates):.3g}", "–"]
    shares = [r / (p * PEAK_FLOPS / 1e9) for r, p in zip(rates, peak.rates)]
    return [f"{median(rates):.3g}", f"{100 * median(shares):.0f}%"]

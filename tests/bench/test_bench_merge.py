"""``python -m bench --only X`` into an existing report: X's block and goal rows are replaced
in place; the other sections, their goal rows and the notes stay."""

from __future__ import annotations

import os

from bench import __main__ as bench_main
from bench import _gpu, _merge, _report
from bench._sections import Section, goal

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FACTS = {
    "cpu": "Test CPU",
    "cores": 2,
    "memory": "1 GiB",
    "platform": "linux",
    "gpu": "none",
    "load": (1.0, 1.0, 1.0),
    "versions": {"python": "3"},
    "commit": "abc",
    "date": "2026-01-01 00:00",
    "xla_flags": "",
}


def _section(name, title, body, value):
    return Section(title, body, [goal(f"{name} goal", value, ">=", 1.0)], 1.0, 0.5, name)


def _rendered(sections, facts=FACTS, command="python -m bench"):
    return _report.render(sections, facts, (1.0, 1.0, 1.0), False, 60.0, command)


def _goal_cells(text, what):
    row = next(ln for ln in text.splitlines() if ln.startswith(f"| {what} |"))
    return [c.strip() for c in row.strip("|").split("|")]


def test_only_replaces_its_section_and_goal_rows_in_place():
    old = _rendered(
        [_section("a", "Section A", "old A", 2.0), _section("b", "Section B", "old B", 0.5)]
    )
    new = _merge.merge(old, [_section("b", "Section B", "new B", 3.0)], 2, "Sections b refreshed.")
    assert "old A" in new and "new B" in new and "old B" not in new
    assert _goal_cells(new, "a goal")[1:4] == ["2", ">= 1", "met"]
    assert _goal_cells(new, "b goal")[1:4] == ["3", ">= 1", "met"]
    assert new.count("| b goal |") == 1
    assert new.index("## Section A") < new.index("## Section B") < new.index("## Notes")
    assert "Sections b refreshed." in new
    # a section the file did not have goes before the notes, its goal row into the table
    added = _merge.merge(new, [_section("c", "Section C", "C", 0.1)], 2, "c.")
    assert added.index("## Section B") < added.index("## Section C") < added.index("## Notes")
    assert _goal_cells(added, "c goal")[3] == "**NOT met**"
    assert _goal_cells(added, "a goal")[1] == "2"


def test_a_report_without_markers_is_matched_by_heading_and_goal_text():
    with open(os.path.join(REPO, "BENCHMARKS.md")) as f:
        old = f.read()
    title = "Train step: flowjob vs JAX vs PyTorch"
    if f"## {title}" not in old:
        return  # the committed report was regenerated with markers: the first test covers it
    fresh = Section(title, "renewed", [goal("MLP train step flowjob / JAX", 1.5, ">=", 0.95)], 1)
    fresh.name = "train"
    new = _merge.merge(old, [fresh], 2, "train refreshed.")
    assert new.count(f"## {title}") == 1 and "renewed" in new
    assert _goal_cells(new, "MLP train step flowjob / JAX")[1] == "1.5"
    assert new.count("| MLP train step flowjob / JAX |") == 1
    assert "## First-call latency and the persistent compilation cache" in new


def test_gpu_section_skips_cleanly_without_a_gpu(monkeypatch):
    monkeypatch.setattr(_gpu, "gpu_name", lambda: None)
    s = _gpu.gpu_section(quick=True)
    assert s.markdown.startswith("**skipped**") and not s.goals


def test_from_takes_another_machines_section_with_its_facts():
    here = _rendered(
        [_section("a", "Section A", "A here", 2.0), _section("gpu", "GPU", "skipped", 0.0)]
    )
    there_facts = dict(FACTS, cpu="Other CPU", gpu="GPU 0: Test GPU (UUID: x)")
    there = _rendered(
        [_section("gpu", "GPU", "0.9 on the GPU", 0.9)], there_facts, "python -m bench --only gpu"
    )
    text = _merge.transplant(here, there, ["gpu"], "gpu.md")
    assert "A here" in text and "0.9 on the GPU" in text and "skipped" not in text
    block = text[text.index("## GPU") :]
    assert "Measured on another machine than the rest of this file (gpu.md)" in block
    assert "Other CPU" in block and "* GPU: GPU 0: Test GPU (UUID: x)\n" in block
    assert _goal_cells(text, "gpu goal")[1] == "0.9"
    assert _goal_cells(text, "a goal")[1] == "2"
    assert text.count("| gpu goal |") == 1


def test_a_full_run_keeps_what_only_another_machine_measured(monkeypatch, tmp_path):
    """A CPU machine's full run skips the GPU section; the file it rewrites keeps the GPU
    block taken on a GPU machine, once, with that machine's facts (its CPU model)."""
    there_facts = dict(FACTS, cpu="GPU box CPU", gpu="GPU 0: Test GPU (UUID: x)")
    there = _rendered(
        [_section("gpu", "GPU", "0.9 on the GPU", 0.9)], there_facts, "python -m bench --only gpu"
    )
    before = _rendered(
        [_section("a", "Section A", "A before", 2.0), _section("gpu", "GPU", "**skipped**", 0.0)]
    )
    before = _merge.transplant(before, there, ["gpu"], "gpu.md")
    out = tmp_path / "BENCHMARKS.md"
    out.write_text(before)
    skipped = Section("GPU", "**skipped**: no GPU here", [], 0.1, 0.5, "gpu")
    monkeypatch.setattr(
        bench_main,
        "SECTIONS",
        {"a": lambda quick: _section("a", "Section A", "A now", 3.0), "gpu": lambda quick: skipped},
    )
    monkeypatch.setattr(_report, "machine_facts", lambda: FACTS)
    assert bench_main.main(["--out", str(out)]) == 0
    text = out.read_text()
    assert "A now" in text and "A before" not in text
    assert "0.9 on the GPU" in text and "no GPU here" not in text
    block = text[text.index("## GPU") :]
    assert block.count("Measured on another machine than the rest of this file") == 1
    assert "GPU box CPU" in block
    assert _goal_cells(text, "gpu goal")[1] == "0.9" and _goal_cells(text, "a goal")[1] == "3"
    # a section skipped here and never measured anywhere stays skipped
    out.write_text(_rendered([_section("a", "Section A", "A", 2.0)]))
    assert bench_main.main(["--out", str(out)]) == 0
    assert "no GPU here" in out.read_text()

"""``python -m bench [--quick] [--only NAME ...] [--out PATH]``: runs the benchmark suite and
writes BENCHMARKS.md (the full run takes about 35 minutes, ``--quick`` about 6). With
``--only``, an existing output file keeps its other sections: those named are replaced in
place, with their goal rows."""

from __future__ import annotations

import argparse
import os
import sys
import time

from . import (
    _conv,
    _convnets,
    _dcgan,
    _eager,
    _experimental,
    _gpu,
    _live,
    _merge,
    _multiproc,
    _pipeline,
    _report,
    _runtime,
    _train,
    _userop,
)
from ._harness import REPO
from ._sections import Section, shown

SECTIONS = {
    "train": _train.train_section,
    "compile": _train.compile_section,
    "predict": _train.predict_section,
    "watch": _runtime.watch_section,
    "async": _runtime.async_section,
    "summary": _runtime.summary_section,
    "scaling": _runtime.scaling_section,
    "conv": _conv.conv_section,
    "grouped": _convnets.grouped_section,
    "resnet": _convnets.resnet_section,
    "dcgan": _dcgan.dcgan_section,
    "userop": _userop.userop_section,
    "eager": _eager.eager_section,
    "experimental": _experimental.experimental_section,
    "gpu": _gpu.gpu_section,
    "pipeline": _pipeline.pipeline_section,
    "board": _live.board_section,
    "watch_model": _live.watch_model_section,
    "multiprocess": _multiproc.multiprocess_section,
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer rounds and workloads")
    parser.add_argument("--only", nargs="+", choices=list(SECTIONS), help="run these sections")
    parser.add_argument("--out", default=os.path.join(REPO, "BENCHMARKS.md"))
    parser.add_argument(
        "--from",
        dest="source",
        metavar="FILE",
        help="take the --only sections from FILE (written by this command on another machine, "
        "e.g. a GPU one) instead of running them",
    )
    args = parser.parse_args(argv)
    if args.source:
        if not args.only:
            parser.error("--from needs --only: which sections to take")
        with open(args.out) as f, open(args.source) as g:
            text = _merge.transplant(f.read(), g.read(), args.only, os.path.basename(args.source))
        with open(args.out, "w") as f:
            f.write(text)
        print(f"[bench] {args.out}: {', '.join(args.only)} from {args.source}", file=sys.stderr)
        return 0
    start = _report.machine_facts()
    t0 = time.time()
    sections: list[Section] = []
    for name in args.only or list(SECTIONS):
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        load = os.getloadavg()[0]
        try:
            section = SECTIONS[name](args.quick)
        except Exception as e:  # noqa: BLE001 - one failing workload must not hide the rest
            section = Section(name, f"**failed**: `{type(e).__name__}: {e}`")
        section.load = load
        section.name = name
        print(f"[bench] {name}: {section.seconds:.0f} s", file=sys.stderr, flush=True)
        for g in section.goals:
            print(
                f"[bench]   {g.what}: {shown(g)} ({g.target}, {'met' if g.met else 'NOT met'})",
                file=sys.stderr,
            )
        sections.append(section)
    command = _report.python_command(argv)
    if args.only and os.path.exists(args.out):  # refresh those sections, keep the others
        with open(args.out) as f:
            old = f.read()
        load = ", ".join(f"{x:.2f}" for x in start["load"])
        stamp = (
            f"Sections {', '.join(args.only)} refreshed by `{command}` on {start['date']} "
            f"(commit {start['commit']}, load average at start {load})."
        )
        text = _merge.merge(old, sections, start["cores"], stamp)
    else:
        text = _report.render(
            sections, start, os.getloadavg(), args.quick, time.time() - t0, command
        )
        if os.path.exists(args.out):  # what this machine cannot measure, another one did
            with open(args.out) as f:
                old = f.read()
            kept = _merge.measured_elsewhere(old, sections)
            if kept:
                text = _merge.transplant(text, old, kept, f"the previous {args.out}")
                print(f"[bench] kept {', '.join(kept)} as measured before", file=sys.stderr)
    with open(args.out, "w") as f:
        f.write(text)
    print(f"[bench] wrote {args.out}", file=sys.stderr)
    return 1 if any(s.markdown.startswith("**failed**") for s in sections) else 0


if __name__ == "__main__":
    sys.exit(main())

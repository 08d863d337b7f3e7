"""Summary-writing throughput: flowjob's SummaryWriter vs ``torch.utils.tensorboard``.

Run by hand (not a test)::

    .venv/bin/python bench/bench_summary.py          # full: 100k scalars, 1,000 x 1M histograms
    .venv/bin/python bench/bench_summary.py --quick  # a few seconds

Workloads follow visualization.md 8: 100,000 scalars; 1,000 histograms of 1M float32 values;
100 RGB 256x256 images. Each timing covers the logging loop plus ``close()`` (not imports or
writer construction). torch is optional: without it only flowjob is timed and the ratios are
None. ``run(quick)`` returns the results as a dict; ratios are ``torch_seconds / flowjob_seconds``
(> 1 means flowjob is faster). On a shared machine expect +/-15% noise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

if __package__ in (None, ""):  # run as a script from anywhere
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from flowjob.summary import SummaryWriter  # noqa: E402


def _sizes(quick: bool) -> dict[str, int]:
    if quick:
        return {"scalars": 10_000, "histograms": 20, "histogram_size": 1_000_000, "images": 10}
    return {"scalars": 100_000, "histograms": 1_000, "histogram_size": 1_000_000, "images": 100}


def _torch_writer_cls():
    try:
        from torch.utils.tensorboard import SummaryWriter as TorchWriter
    except Exception as e:  # not installed (or broken): skip, say why
        return None, f"{type(e).__name__}: {e}"
    return TorchWriter, None


def _time(fn: Callable[[str], None]) -> tuple[float, int]:
    """Seconds spent in ``fn(logdir)`` and the bytes it left on disk."""
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        fn(d)
        seconds = time.perf_counter() - t0
        size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)
    return seconds, size


def _workloads(n: dict[str, int]):
    rng = np.random.default_rng(0)
    hist_data = [rng.normal(size=n["histogram_size"]).astype(np.float32) for _ in range(4)]
    images = rng.integers(0, 256, (4, 256, 256, 3), dtype=np.uint8)

    def scalars_flowjob(writer):
        for i in range(n["scalars"]):
            writer.scalar("loss", i * 0.001, i)

    def scalars_torch(writer):
        for i in range(n["scalars"]):
            writer.add_scalar("loss", i * 0.001, i)

    def hist_flowjob(writer):
        for i in range(n["histograms"]):
            writer.histogram("w", hist_data[i % 4], i)

    def hist_torch(writer):
        for i in range(n["histograms"]):
            writer.add_histogram("w", hist_data[i % 4], i)

    def img_flowjob(writer):
        for i in range(n["images"]):
            writer.image("img", images[i % 4], i)

    def img_torch(writer):
        for i in range(n["images"]):
            writer.add_image("img", images[i % 4], i, dataformats="HWC")

    return {
        "scalars": (scalars_flowjob, scalars_torch),
        "histograms": (hist_flowjob, hist_torch),
        "images": (img_flowjob, img_torch),
    }


def run(quick: bool = False) -> dict:
    """Times every workload with flowjob (and torch when installed); returns a result dict."""
    n = _sizes(quick)
    torch_cls, torch_missing = _torch_writer_cls()
    results: dict = {"sizes": n, "torch": torch_missing is None, "workloads": {}}
    if torch_missing:
        results["torch_skipped"] = torch_missing
    for name, (ours, theirs) in _workloads(n).items():
        entry: dict = {}

        def with_ours(d, body=ours):
            w = SummaryWriter(d, flush_secs=2.0)
            body(w)
            w.close()

        entry["flowjob_s"], entry["flowjob_bytes"] = _time(with_ours)
        if torch_cls is not None:

            def with_torch(d, body=theirs):
                w = torch_cls(d, flush_secs=120)  # its defaults: max_queue=10, flush 120 s
                body(w)
                w.close()

            entry["torch_s"], entry["torch_bytes"] = _time(with_torch)
            entry["ratio"] = entry["torch_s"] / entry["flowjob_s"]
        else:
            entry["torch_s"] = entry["torch_bytes"] = entry["ratio"] = None
        count = n[name]
        entry["flowjob_per_s"] = count / entry["flowjob_s"]
        results["workloads"][name] = entry
    return results


def _print(results: dict) -> None:
    if not results["torch"]:
        print(
            f"torch.utils.tensorboard not available, timing flowjob only "
            f"({results['torch_skipped']})"
        )
    print(
        f"{'workload':<12}{'count':>9}{'flowjob s':>11}{'torch s':>10}{'ratio':>8}"
        f"{'flowjob/s':>12}{'flowjob MB':>12}{'torch MB':>10}"
    )
    for name, e in results["workloads"].items():

        def fmt(x, spec):
            return format(x, spec) if x is not None else "-"

        print(
            f"{name:<12}{results['sizes'][name]:>9}{e['flowjob_s']:>11.3f}"
            f"{fmt(e['torch_s'], '.3f'):>10}{fmt(e['ratio'], '.2f'):>8}"
            f"{e['flowjob_per_s']:>12.0f}{e['flowjob_bytes'] / 1e6:>12.2f}"
            f"{fmt(e['torch_bytes'] and e['torch_bytes'] / 1e6, '.2f'):>10}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a few seconds)")
    parser.add_argument("--json", action="store_true", help="print the result dict as JSON")
    args = parser.parse_args(argv)
    results = run(args.quick)
    print(json.dumps(results, indent=2)) if args.json else _print(results)


if __name__ == "__main__":
    main()

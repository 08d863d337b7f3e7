#!/usr/bin/env bash
# The GPU checks of issue 36, in one run on a machine with an NVIDIA GPU: which GPUs JAX sees,
# the runtime / ops / summary tests, the demo (its accuracy against the CPU figure in the
# README) and the GPU bench section. Needs a .venv with the gpu extra (pip install -e ".[gpu,test,bench]").
# Everything it prints also goes to ${OUT:-gpu-check}/ (one log per step).
set -u
out="${OUT:-gpu-check}"
mkdir -p "$out"
py="${PY:-.venv/bin/python}"
# Test and bench processes share the GPU: each takes memory as it needs it, not 75% up front.
export XLA_PYTHON_CLIENT_PREALLOCATE=false
step() {  # step NAME COMMAND...: runs it, keeps its output and exit status, goes on
    local name="$1"
    shift
    echo "== $name: $*" | tee -a "$out/summary.txt"
    local t0=$SECONDS
    timeout "${STEP_TIMEOUT:-3600}" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    echo "== $name: exit $rc in $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
    tail -5 "$out/$name.log"
}
step doctor "$py" -c "import sys, flowjob_cli; sys.exit(flowjob_cli.main(['doctor']))"
step tests "$py" -m pytest -q -p no:cacheprovider ${PYTEST_ARGS:-} tests/runtime tests/ops tests/summary
step demo "$py" examples/mnist_demo.py --logdir "${TMPDIR:-/tmp}/flowjob-gpu-demo-logs"
step bench "$py" -m bench --only gpu --out "$out/BENCHMARKS-gpu.md"

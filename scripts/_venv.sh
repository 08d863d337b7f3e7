# Sourced by the quick-start scripts: creates .venv (once) and installs flowjob with EXTRAS into
# it, again only when pyproject.toml or EXTRAS change: a stamp in .venv records what was
# installed, so later runs start at once (no pip, no setuptools banner).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
  echo "flowjob: creating .venv ..."
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
fi
_stamp=".venv/.flowjob-installed$(printf '%s' "${EXTRAS:-}" | tr -c 'A-Za-z0-9' '-')"
_want="$(.venv/bin/python -c 'import hashlib, sys
data = b"".join(open(p, "rb").read() for p in sys.argv[2:])
print(hashlib.sha256(data + sys.argv[1].encode()).hexdigest())' \
  "${EXTRAS:-}" pyproject.toml kernels/onednn/pyproject.toml kernels/onednn/setup.py \
  kernels/onednn/src/conv_ffi.cc)"
if [ "$(cat "$_stamp" 2>/dev/null || true)" != "$_want" ]; then
  echo "flowjob: installing flowjob${EXTRAS:-} and its dependencies into .venv" \
       "(the first time takes a few minutes; pip shows its progress) ..."
  .venv/bin/python -m pip install --progress-bar on -e ".${EXTRAS:-}"
  # The optional oneDNN convolutions (flowjob/_src/kernels): needs a C++ compiler; without them
  # flowjob uses XLA's convolutions. FLOWJOB_ONEDNN=0 skips the build.
  if [ "${FLOWJOB_ONEDNN:-1}" != 0 ] && ! command -v c++ > /dev/null; then
    echo "flowjob: no C++ compiler (c++): oneDNN kernels not built; using XLA's convolutions."
  elif [ "${FLOWJOB_ONEDNN:-1}" != 0 ]; then
    echo "flowjob: building the optional oneDNN convolution kernels ..."
    if .venv/bin/python -m pip install -q -e ".[kernels]" > .venv/onednn-build.log 2>&1 &&
       .venv/bin/python -m pip install -q --no-build-isolation ./kernels/onednn \
         >> .venv/onednn-build.log 2>&1; then
      echo "flowjob: oneDNN kernels installed."
    else
      echo "flowjob: oneDNN kernels not built (see .venv/onednn-build.log); using XLA's convolutions."
    fi
  fi
  echo "$_want" > "$_stamp"
  echo "flowjob: installed."
fi
unset _stamp _want

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
print(hashlib.sha256(open("pyproject.toml", "rb").read() + sys.argv[1].encode()).hexdigest())' \
  "${EXTRAS:-}")"
if [ "$(cat "$_stamp" 2>/dev/null || true)" != "$_want" ]; then
  echo "flowjob: installing flowjob${EXTRAS:-} and its dependencies into .venv" \
       "(the first time takes a few minutes; pip shows its progress) ..."
  .venv/bin/python -m pip install --progress-bar on -e ".${EXTRAS:-}"
  echo "$_want" > "$_stamp"
  echo "flowjob: installed."
fi
unset _stamp _want

#!/usr/bin/env bash
# Builds the documentation site (mkdocs.yml, docs/) into site/ with `mkdocs build --strict`;
# `bash scripts/docs.sh serve` serves it on http://127.0.0.1:8000 and rebuilds on every edit.
EXTRAS="[docs]" source "$(dirname "$0")/_venv.sh"
export NO_MKDOCS_2_WARNING=1
if [ "${1:-}" = build ]; then shift; fi
if [ "${1:-}" = serve ]; then
  exec .venv/bin/mkdocs serve --strict "${@:2}"
fi
exec .venv/bin/mkdocs build --strict "$@"

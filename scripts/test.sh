#!/usr/bin/env bash
# Installs flowjob with its test dependencies into .venv, checks style, runs every test.
EXTRAS="[test]" source "$(dirname "$0")/_venv.sh"
.venv/bin/ruff check flowjob flowjob_cli tests bench examples kernels
.venv/bin/ruff format --check flowjob flowjob_cli tests bench examples kernels README.md docs
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"

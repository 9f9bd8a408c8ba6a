#!/usr/bin/env bash
# Install everything the tests need, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --disable-pip-version-check -e ".[test]"
python -m pytest "$@"

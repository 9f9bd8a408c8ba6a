#!/usr/bin/env bash
# Build the documentation site into docs/_build/html, every warning an error.
#   bash scripts/docs.sh               run the tutorials and show their outputs (the full site)
#   bash scripts/docs.sh --no-execute  the same site without running them (fast; what the test builds)
# Extra arguments go to sphinx-build. Needs the `docs` extra: pip install -e ".[docs]".
set -euo pipefail
cd "$(dirname "$0")/.."
mode=cache  # jupyter-cache runs a notebook again only when it changed (docs/_build/.jupyter_cache)
args=()
for arg in "$@"; do
    case "$arg" in
        --execute) mode=cache ;;
        --no-execute) mode=off ;;
        *) args+=("$arg") ;;
    esac
done
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"  # Mesa warns when it is unset (GPU examples)
python -m sphinx -b html -W --keep-going -D nb_execution_mode="$mode" \
    docs docs/_build/html "${args[@]+"${args[@]}"}"
echo "docs/_build/html/index.html"

#!/usr/bin/env bash
# Build the documentation site into docs/_build/html, every warning an error.
#   bash scripts/docs.sh               run the tutorials and show their outputs (the full site)
#   bash scripts/docs.sh --no-execute  the same site without running them (fast; what the test builds)
#   --out DIR                          build into DIR instead (tests/test_docs.py: a temp folder)
# Extra arguments go to sphinx-build. Needs the `docs` extra: pip install -e ".[docs]".
set -euo pipefail
cd "$(dirname "$0")/.."
mode=cache  # jupyter-cache runs a notebook again only when it changed (docs/_build/.jupyter_cache)
out=docs/_build/html
args=()
while (($#)); do
    case "$1" in
        --execute) mode=cache ;;
        --no-execute) mode=off ;;
        --out) out="$2"; shift ;;
        *) args+=("$1") ;;
    esac
    shift
done
# the site documents and runs this checkout's tistudio, also in the notebooks' kernels (which
# start in a temporary folder), whichever copy pip's install points to
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"  # Mesa warns when it is unset (GPU examples)
# nobody closes tutorial 08's GUI windows here: each `while gui.running` loop stops after 30
# frames, as in tests/notebooks/test_notebooks.py
export TISTUDIO_GUI_MAX_FRAMES="${TISTUDIO_GUI_MAX_FRAMES:-30}"
python -m sphinx -b html -W --keep-going -D nb_execution_mode="$mode" \
    docs "$out" "${args[@]+"${args[@]}"}"
echo "$out/index.html"

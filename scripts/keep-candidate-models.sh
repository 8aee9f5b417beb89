#!/usr/bin/env bash
# Keep the candidate models of scripts/train-on-device.sh only when every gate of issue 36
# holds (measure/keep_gates.py): checks their report, measures what it lacks here (the real
# photos of --realval, read only; `dominocam bench` at 1280x720 on 2 threads), and only then
# copies them into models/ with their cards (python -m dominotrain.keep; docs/training.md).
#
#   bash scripts/keep-candidate-models.sh CANDIDATES --realval ../shared/realval [--dry-run]
#
# Exit status 0: kept (or, with --dry-run, would be kept); 1: a gate does not hold, models/
# unchanged; 2: bad input.
set -euo pipefail
cd "$(dirname "$0")/.."
candidates=${1:?usage: bash scripts/keep-candidate-models.sh CANDIDATES [--realval DIR] [--dry-run]}
shift
python=${PYTHON:-python3}
if [ -x .venv/bin/python ] && [ -z "${PYTHON:-}" ]; then
    python=.venv/bin/python
fi
export PYTHONPATH="$PWD:$PWD/datasets:$PWD/models${PYTHONPATH:+:$PYTHONPATH}"
exec "$python" -m dominotrain.keep --candidates "$candidates" "$@"

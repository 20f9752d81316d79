#!/usr/bin/env bash
# Sets up .venv (Python 3.11, pinned requirements) once, then runs one job:
#   bash scripts/run.sh demo   - the Blender demo: terrain, displacement, baked textures, .blend
#   bash scripts/run.sh test   - lint, format check, type check, the whole pytest suite
set -euo pipefail
cd "$(dirname "$0")/.."
job="${1:-}"
shift || true

find_python() {
    for candidate in "${PYTHON:-}" python3.11 python3; do
        if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    echo "error: Python 3.11 is required (Blender 4.2-5.0 embed 3.11); set PYTHON=/path/to/python3.11" >&2
    return 1
}

setup() {
    local stamp=.venv/.requirements.lock
    if [ -x .venv/bin/python ] && cmp -s requirements.lock "$stamp"; then
        return 0
    fi
    local python
    python="$(find_python)"
    if ! "$python" -m venv .venv 2>/dev/null; then
        if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
            echo "venv is missing; installing Debian's python3-venv" >&2
            apt-get update -qq && apt-get install -y -qq python3-venv python3.11-venv >/dev/null 2>&1 ||
                apt-get install -y -qq python3-venv >/dev/null
            "$python" -m venv .venv
        else
            echo "error: '$python -m venv' failed; install your distribution's python3-venv package" >&2
            exit 1
        fi
    fi
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -r requirements.lock
    .venv/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
    cp requirements.lock "$stamp"
}

case "$job" in
demo)
    setup
    exec .venv/bin/python scripts/demo.py "$@"
    ;;
test)
    setup
    .venv/bin/ruff check .
    .venv/bin/ruff format --check .
    exec .venv/bin/python -m pytest -n 2 "$@"
    ;;
*)
    echo "usage: bash scripts/run.sh {demo|test} [args...]" >&2
    exit 2
    ;;
esac

#!/usr/bin/env bash
# Sets up the pinned virtual environments once, then runs one job:
#   bash scripts/run.sh demo   - the Blender demo: terrain, displacement, baked textures, .blend (.venv)
#   bash scripts/run.sh presets - render the shipped terrain presets' pictures into docs/images/presets (.venv)
#   bash scripts/run.sh test   - ruff, then the whole pytest suite twice: on Blender 5.0 (.venv: Python 3.11,
#                                numpy 1.26, requirements.lock) and on Blender 5.2 LTS (.venv-py313: Python 3.13,
#                                numpy 2.3, requirements-py313.lock); the runs also install the built zips into
#                                Blender 4.2 LTS, 4.5 LTS and 5.1 (.venv-bpy4.2, .venv-bpy4.5, .venv-bpy5.1: just bpy
#                                and numpy).
# Python 3.11: $PYTHON, python3.11 or python3. Python 3.13: $PYTHON313, python3.13, else the relocatable CPython at
# ../shared/python/python3.13-debian12-x86_64.tar.xz (unpacked once into build/); without it the 3.13 run is skipped
# with a line saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
job="${1:-}"
shift || true

SHARED_PYTHON313=../shared/python/python3.13-debian12-x86_64.tar.xz

runs_version() { # runs_version CANDIDATE 3.11: the candidate runs and is that Python version
    [ -n "$1" ] && command -v "$1" >/dev/null 2>&1 &&
        "$1" -c "import sys; sys.exit(f'{sys.version_info[0]}.{sys.version_info[1]}' != '$2')" 2>/dev/null
}

find_python() {
    for candidate in "${PYTHON:-}" python3.11 python3; do
        if runs_version "$candidate" 3.11; then
            echo "$candidate"
            return 0
        fi
    done
    echo "error: Python 3.11 is required (Blender 4.2-5.0 embed 3.11); set PYTHON=/path/to/python3.11" >&2
    return 1
}

find_python313() { # prints a working Python 3.13, or nothing
    for candidate in "${PYTHON313:-}" python3.13; do
        if runs_version "$candidate" 3.13; then
            echo "$candidate"
            return 0
        fi
    done
    local unpacked=build/py313slim/bin/python3.13
    if [ ! -x "$unpacked" ] && [ -f "$SHARED_PYTHON313" ]; then
        echo "unpacking $SHARED_PYTHON313 into build/" >&2
        mkdir -p build && tar -xJf "$SHARED_PYTHON313" -C build
    fi
    if runs_version "$unpacked" 3.13; then
        echo "$unpacked"
    fi
}

make_venv() { # make_venv PYTHON DIR
    if ! "$1" -m venv "$2" 2>/dev/null; then
        if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
            echo "venv is missing; installing Debian's python3-venv" >&2
            apt-get update -qq && apt-get install -y -qq python3-venv python3.11-venv >/dev/null 2>&1 ||
                apt-get install -y -qq python3-venv >/dev/null
            "$1" -m venv "$2"
        else
            echo "error: '$1 -m venv' failed; install your distribution's python3-venv package" >&2
            exit 1
        fi
    fi
}

setup() { # setup DIR LOCK PYTHON [--deps-from-lock-only]: DIR from LOCK, redone when LOCK changes
    local dir=$1 lock=$2 python=$3 mode=${4:-}
    local stamp="$dir/.requirements.lock"
    if [ -x "$dir/bin/python" ] && cmp -s "$lock" "$stamp"; then
        return 0
    fi
    echo "setting up $dir from $lock" >&2
    rm -rf "$dir"
    make_venv "$python" "$dir"
    "$dir/bin/python" -m pip install --quiet --upgrade pip
    # --no-compile: no bytecode for every file of every wheel at install (bpy's own scripts are thousands);
    # Python writes it for the modules that are imported, when they are. About a third of each bpy install.
    if [ "$mode" = --deps-from-lock-only ]; then
        "$dir/bin/python" -m pip install --quiet --no-compile --no-deps -r "$lock"
    else
        "$dir/bin/python" -m pip install --quiet --no-compile -r "$lock"
        "$dir/bin/python" -m pip install --quiet --no-compile --no-deps --no-build-isolation -e .
    fi
    cp "$lock" "$stamp"
}

case "$job" in
demo)
    setup .venv requirements.lock "$(find_python)"
    exec .venv/bin/python scripts/demo.py "$@"
    ;;
presets)
    setup .venv requirements.lock "$(find_python)"
    exec .venv/bin/python scripts/render_presets.py "$@"
    ;;
test)
    python311="$(find_python)"
    python313="$(find_python313)"
    # Two venvs at a time (pip is mostly one core: unpacking the bpy wheels); `wait PID` fails the script with
    # the first setup that failed.
    setup .venv requirements.lock "$python311" &
    first=$!
    if [ -n "$python313" ]; then
        setup .venv-py313 requirements-py313.lock "$python313" &
        second=$!
        wait "$first" && wait "$second"
        setup .venv-bpy5.1 tests/blender/requirements-bpy5.1.lock "$python313" --deps-from-lock-only &
        first=$!
    fi
    others=()
    for version in 4.2 4.5; do
        setup ".venv-bpy$version" "tests/blender/requirements-bpy$version.lock" "$python311" --deps-from-lock-only
        others+=("$PWD/.venv-bpy$version/bin/python")
    done
    wait "$first"
    .venv/bin/ruff check .
    .venv/bin/ruff format --check .

    # One Numba cache for every process of a run (the pytest workers, the documents' copies of the checkout,
    # Blender and the scripts it starts): noise_core names its cache folders by the package's import name, not by
    # where the files are (noise_core/_cache.py), so each copy loads what another compiled. New for each run:
    # tests that look for a kernel's first compile need a cache that has not seen it.
    export NUMBA_CACHE_DIR
    NUMBA_CACHE_DIR="$(mktemp -d "${TMPDIR:-/tmp}/noisewright-numba-cache.XXXXXX")"
    trap 'rm -rf "$NUMBA_CACHE_DIR"' EXIT
    # Numba's OpenMP threads sleep when a kernel ends instead of spinning for the next one: with two pytest
    # workers (and the Blender processes they start) on two cores, the spinning took the CPU the other process
    # was waiting for (the erosion and terrain tests, warm: 30-39 s -> 22-24 s of wall time). Scheduling only.
    export OMP_WAIT_POLICY=PASSIVE

    # --dist worksteal: each worker starts on its own half of the tests in order (files stay together, so a file's
    # Numba kernels compile in one worker, and the Blender tests, first in the order, start Blender and compile
    # the staged add-on's kernels in one worker), and takes tests from the other's end when it runs out.
    echo "=== pytest on Python 3.11, Blender 5.0 (bpy 5.0.1, numpy 1.26); zip installs into Blender 4.2, 4.5, 5.0 ==="
    status311=0
    NOISEWRIGHT_OTHER_BLENDERS="$(IFS=:; echo "${others[*]}")" .venv/bin/python -m pytest -n 2 --dist worksteal "$@" || status311=$?
    status313=0
    if [ -n "$python313" ]; then
        echo "=== pytest on Python 3.13, Blender 5.2 LTS (bpy 5.2.3, numpy 2.3); zip installs into Blender 5.1, 5.2 ==="
        # Tests marked once_per_run compute the same on either Python: the presets' realism builds, the documents'
        # snippets and the demo, the sweeps over every kernel variant (whose bits the golden digests pin on both
        # Pythons), erosion of the real tiles. After a passing 3.11 run they are skipped here, saying so.
        once=""
        if [ "$status311" = 0 ]; then once="the Python 3.11 run before this one"; fi
        NOISEWRIGHT_OTHER_BLENDERS="$PWD/.venv-bpy5.1/bin/python" NOISEWRIGHT_ONCE_PER_RUN_DONE="$once" \
            .venv-py313/bin/python -m pytest -n 2 --dist worksteal "$@" || status313=$?
    else
        echo "=== pytest on Python 3.13, Blender 5.1 and 5.2 LTS: SKIPPED (no Python 3.13 found) ==="
    fi

    result() { if [ "$1" = 0 ]; then echo passed; else echo "FAILED (pytest exit $1)"; fi; }
    echo "=== summary ==="
    echo "Python 3.11 / Blender 4.2, 4.5, 5.0: $(result "$status311")"
    if [ -n "$python313" ]; then
        echo "Python 3.13 / Blender 5.1, 5.2 LTS: $(result "$status313")"
    else
        echo "Python 3.13 / Blender 5.1, 5.2 LTS: SKIPPED - no Python 3.13 (set PYTHON313, put python3.13 on PATH," \
            "or provide $SHARED_PYTHON313)"
    fi
    [ "$status311" = 0 ] && [ "$status313" = 0 ]
    ;;
*)
    echo "usage: bash scripts/run.sh {demo|presets|test} [args...]" >&2
    exit 2
    ;;
esac

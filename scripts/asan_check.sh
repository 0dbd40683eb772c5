#!/usr/bin/env bash
# Run tests against an AddressSanitizer build of ddzfast's core.
#
#   scripts/asan_check.sh [pytest arguments...]
#       (default: tests/test_fuzz*.py, tests/test_large_hands.py (the whole
#       decks of every rule set) and the vector environment's threads at the
#       interpreter's exit, on one pytest-xdist worker a CPU when
#       pytest-xdist is installed)
#
# Builds the extension with -fsanitize=address -fno-omit-frame-pointer -O1 -g
# in a temporary copy of the source (the in-place build of this checkout is not
# touched), then runs pytest from this checkout with PYTHONPATH pointing at the
# temporary build, the compiler's libasan preloaded (the Python interpreter is
# not built with ASan) and ASAN_OPTIONS=detect_leaks=0 (the interpreter itself
# leaks by design). Exits non-zero when the build fails, a test fails, or any
# process (subprocesses of the tests included) wrote an ASan report.
#
# Needs gcc (or CC set to a compiler with -fsanitize=address and
# -print-file-name) and the Python (3.11 or later) of the active virtual
# environment, `python`, with pytest; pyproject.toml's build requirements are
# installed into it.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cc="${CC:-gcc}"
if [ "$#" -eq 0 ]; then
    set -- "$root"/tests/test_fuzz*.py "$root"/tests/test_large_hands.py \
        "$root/tests/test_vector_env.py::test_a_threaded_env_alive_at_exit_ends_cleanly"
    # the fuzz groups are processes of their own, each minutes long under
    # ASan: they run side by side
    if python -c "import xdist" 2>/dev/null; then
        set -- -n auto "$@"
    fi
fi

libasan="$("$cc" -print-file-name=libasan.so)"
if [ ! -e "$libasan" ]; then
    echo "asan_check: $cc has no libasan.so (got '$libasan')" >&2
    exit 2
fi
# the build needs pyproject.toml's build requirements (Cython, a setuptools
# that reads its license expression), which an editable install keeps in its
# isolated build environment only
build_requires="$(python -c 'import sys, tomllib; print(" ".join(tomllib.load(open(sys.argv[1], "rb"))["build-system"]["requires"]))' "$root/pyproject.toml")"
# (unquoted: one argument a requirement)
python -m pip install -q $build_requires

work="$(mktemp -d "${TMPDIR:-/tmp}/ddzfast-asan.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# a copy of what the build reads; no compiled or generated file comes along
mkdir -p "$work/src"
cp -r "$root/src/ddzfast" "$work/src/"
cp "$root/setup.py" "$root/pyproject.toml" "$work/"
# (README and LICENSE: pyproject.toml's readme and license-files)
for f in README.md LICENSE; do
    if [ -e "$root/$f" ]; then cp "$root/$f" "$work/"; fi
done
rm -f "$work"/src/ddzfast/_*.so "$work"/src/ddzfast/_*.pyd "$work"/src/ddzfast/_*.c

start=$(date +%s)
echo "asan_check: building the core with AddressSanitizer in $work"
(
    cd "$work"
    # DDZFAST_CFLAGS come after setup.py's -O3, so -O1 is what counts;
    # LDFLAGS reach the link of the shared object
    CC="$cc" DDZFAST_CFLAGS="-fsanitize=address -fno-omit-frame-pointer -O1 -g" \
        LDFLAGS="-fsanitize=address" \
        python setup.py -q build_ext --inplace >"$work/build.log" 2>&1
) || { cat "$work/build.log" >&2; echo "asan_check: build failed" >&2; exit 2; }
echo "asan_check: built in $(( $(date +%s) - start )) s"

export PYTHONPATH="$work/src${PYTHONPATH:+:$PYTHONPATH}"
export LD_PRELOAD="$libasan${LD_PRELOAD:+:$LD_PRELOAD}"
# log_path: every report of every process lands in a file we can look for;
# PYTHONMALLOC=malloc lets ASan see the interpreter's own allocations too
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1:log_path=$work/asan"
export PYTHONMALLOC=malloc

# every compiled module (setup.py's MODULES) must come from the ASan build
for module in $(sed -n 's/^MODULES = (\(.*\))$/\1/p' "$root/setup.py" | tr -d '",'); do
    where="$(cd "$root" && python -c "import ddzfast.$module as m; print(m.__file__)")"
    case "$where" in
        "$work"/*) ;;
        *) echo "asan_check: tests would import $where, not the ASan build" >&2; exit 2 ;;
    esac
done

status=0
( cd "$root" && python -m pytest -q -p no:cacheprovider "$@" ) || status=$?

reports=$(ls "$work"/asan.* 2>/dev/null || true)
if [ -n "$reports" ]; then
    echo "asan_check: AddressSanitizer reports:" >&2
    for f in $reports; do
        echo "==== $f" >&2
        cat "$f" >&2
    done
    status=1
fi
echo "asan_check: $( [ "$status" -eq 0 ] && echo passed || echo FAILED ) in $(( $(date +%s) - start )) s"
exit "$status"

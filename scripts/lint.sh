#!/usr/bin/env bash
# Style checks; exits 1 on any finding, and runs every linter even after one fails:
#   clang-format --dry-run --Werror  every tracked C++ file
#   clang-tidy (.clang-tidy)         every project C++ file in the compile database; one
#                                    that passed with the same inputs is not checked again
#                                    (scripts/tidy_cached.py; --all checks every file anew)
#   ruff format --check, ruff check  every tracked Python file, with .venv/bin/ruff
# clang-tidy reads build/compile_commands.json (COMPILESCOPE_BUILD_DIR to pick another):
# run scripts/build.sh first. A full clang-tidy pass costs about 12 s of CPU per
# file (~180 files), a pass over unchanged files about a second.
# usage: scripts/lint.sh [--all]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${COMPILESCOPE_BUILD_DIR:-$root/build}"
all=0
[ "${1:-}" = "--all" ] && all=1
cd "$root" || exit 2

pick() { # the first of the given programs that exists
  local p
  for p in "$@"; do
    command -v "$p" >/dev/null && { echo "$p"; return 0; }
  done
  return 1
}

failed=()
step() { # name command...: runs one linter, timed, and remembers a failure
  local name=$1 t0=$SECONDS
  shift
  echo "== lint: $name"
  if "$@"; then
    echo "== lint: $name passed ($((SECONDS - t0)) s)"
  else
    echo "== lint: $name FAILED ($((SECONDS - t0)) s)"
    failed+=("$name")
  fi
}

clang_format() {
  local cf
  cf=$(pick clang-format-14 clang-format) || { echo "clang-format is not installed"; return 1; }
  local files
  mapfile -t files < <(git ls-files -- '*.cpp' '*.h')
  "$cf" --dry-run --Werror "${files[@]}"
}

clang_tidy() {
  local ct
  ct=$(pick clang-tidy-14 clang-tidy) || { echo "clang-tidy is not installed"; return 1; }
  if [ ! -f "$build/compile_commands.json" ]; then
    echo "no $build/compile_commands.json: run scripts/build.sh first"
    return 1
  fi
  local args=()
  [ "$all" = 1 ] && args+=(--all)
  python3 "$root/scripts/tidy_cached.py" "$(command -v "$ct")" "$build" "$root" "${args[@]}"
}

ruff_checks() {
  local ruff="$root/.venv/bin/ruff"
  if [ ! -x "$ruff" ]; then
    echo "ruff is not installed: $ruff is missing (pip install ruff into .venv; pyproject.toml configures it)"
    return 1
  fi
  local files rc=0
  mapfile -t files < <(git ls-files -- '*.py')
  "$ruff" format --check --force-exclude "${files[@]}" || rc=1
  "$ruff" check --force-exclude --output-format concise "${files[@]}" || rc=1
  return $rc
}

start=$SECONDS
step clang-format clang_format
step clang-tidy clang_tidy
step ruff ruff_checks
if [ "${#failed[@]}" -gt 0 ]; then
  echo "lint: FAILED: ${failed[*]} ($((SECONDS - start)) s)"
  exit 1
fi
echo "lint: all clean ($((SECONDS - start)) s)"

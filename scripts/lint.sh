#!/usr/bin/env bash
# Style checks; exits 1 on any finding, and runs every linter even after one fails:
#   clang-format --dry-run --Werror  every tracked C++ file
#   clang-tidy (.clang-tidy)         the C++ files changed since the merge base with main
#                                    (all of them with --all, or when .clang-tidy changed)
#   ruff format --check, ruff check  every tracked Python file, with .venv/bin/ruff
# clang-tidy reads build/compile_commands.json (COMPILESCOPE_BUILD_DIR to pick another):
# run scripts/build.sh first. COMPILESCOPE_LINT_BASE names the branch to diff
# against (default main, else origin/main). A full clang-tidy pass costs about
# 12 s of CPU per file (~170 files): that is why the default is the changed files.
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

# The .cpp files in the compile database to check: all, or those changed since
# the merge base (a changed header brings in the .cpp next to it).
tidy_files() {
  python3 - "$build/compile_commands.json" "$root" "$all" "$@" <<'PY'
import json, os, sys
db, root, everything, changed = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4:]
ours = ("core/", "widgets/", "app/", "tests/", "benchmarks/", "probe/cupti/")
files = sorted({os.path.relpath(e["file"], root) for e in json.load(open(db))})
files = [f for f in files if f.startswith(ours)]
if not everything:
    wanted = {os.path.splitext(c)[0] for c in changed}
    files = [f for f in files if os.path.splitext(f)[0] in wanted]
if files:
    print("\n".join(files))
PY
}

clang_tidy() {
  local ct
  ct=$(pick clang-tidy-14 clang-tidy) || { echo "clang-tidy is not installed"; return 1; }
  if [ ! -f "$build/compile_commands.json" ]; then
    echo "no $build/compile_commands.json: run scripts/build.sh first"
    return 1
  fi
  local changed=()
  if [ "$all" = 0 ]; then
    local base="${COMPILESCOPE_LINT_BASE:-}"
    if [ -z "$base" ]; then
      for base in main origin/main ""; do
        git rev-parse -q --verify "$base^{commit}" >/dev/null && break
      done
    fi
    local mb
    if [ -z "$base" ] || ! mb=$(git merge-base HEAD "$base"); then
      echo "no main branch to diff against: checking every file"
      all=1
    else
      # Committed, staged and unstaged changes; a new .clang-tidy checks everything.
      mapfile -t changed < <(git diff --name-only --diff-filter=d "$mb" -- '*.cpp' '*.h' .clang-tidy)
      if printf '%s\n' "${changed[@]}" | grep -qx .clang-tidy; then
        echo ".clang-tidy changed since $base: checking every file"
        all=1
      fi
    fi
  fi
  local files
  mapfile -t files < <(tidy_files "${changed[@]}")
  if [ "${#files[@]}" = 0 ]; then
    echo "no C++ file changed since the merge base with $base"
    return 0
  fi
  echo "${#files[@]} files"
  local jobs
  jobs=$(nproc)
  local run
  if run=$(pick run-clang-tidy-14 run-clang-tidy); then
    # run-clang-tidy takes regexes; each file, anchored and escaped, is one.
    local regexes=() f
    for f in "${files[@]}"; do regexes+=("^$(printf '%s' "$root/$f" | sed 's/[.[\*^$+?(){}|]/\\&/g')\$"); done
    local out
    out=$(mktemp)
    "$run" -clang-tidy-binary "$(command -v "$ct")" -p "$build" -j "$jobs" -quiet "${regexes[@]}" >"$out" 2>&1
    local rc=$?
    # Only the findings, not the "N warnings generated" chatter.
    sed 's/\x1b\[[0-9;]*m//g' "$out" |
      grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Use -system-headers'
    rm -f "$out"
    return $rc
  fi
  local rc=0
  for f in "${files[@]}"; do
    "$ct" -p "$build" --quiet "$f" || rc=1
  done
  return $rc
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

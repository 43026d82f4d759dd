#!/usr/bin/env bash
# Coverage-guided fuzzing: builds the fuzz preset (clang, libFuzzer, ASan and
# UBSan, build-fuzz/) and runs every target in tests/fuzz for SECONDS each.
# Each target starts from its seeds in tests/fuzz/corpus/NAME/, copied to a
# scratch directory so what libFuzzer finds does not pile up in git. Exits 1
# on any crash, leak, sanitizer report, timeout or out-of-memory, and prints
# where the input that caused it was saved: fix the bug, then commit that
# input to tests/fuzz/corpus/NAME/ as a regression seed.
# usage: scripts/fuzz.sh [SECONDS] [NAME...]   (default 60 s, every target)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(event_parser report_reader report_html graph_text trace_import)
fi

cmake --preset fuzz > /dev/null
cmake --build --preset fuzz --parallel "$(nproc)" --target fuzz_targets

scratch="$(mktemp -d "${TMPDIR:-/tmp}/compilescope-fuzz.XXXXXX")"
status=0
for name in "${targets[@]}"; do
  corpus="$scratch/corpus/$name"
  crashes="$scratch/crashes/$name"
  log="$scratch/$name.log"
  mkdir -p "$corpus" "$crashes"
  cp "$root/tests/fuzz/corpus/$name/"* "$corpus/"
  echo "== fuzz_$name for ${seconds} s"
  # -timeout: an input that takes longer is a hang. Slow units (slow-unit-*) are
  # saved but not a failure.
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$root/build-fuzz/tests/fuzz/fuzz_$name" "$corpus" -max_total_time="$seconds" \
    -rss_limit_mb=2048 -timeout=30 -detect_leaks=1 -print_final_stats=1 \
    -artifact_prefix="$crashes/" > "$log" 2>&1 &&
    ! ls "$crashes" | grep -qE '^(crash|leak|timeout|oom)-'; then
    # libFuzzer's last status line: coverage, features, corpus, executions per second
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
    echo "== fuzz_$name passed: ${done_line:-$(tail -1 "$log")}"
  else
    status=1
    tail -n 60 "$log"
    echo "== fuzz_$name FAILED; full log: $log"
    for input in "$crashes"/*; do
      [ -e "$input" ] && echo "== input that failed: $input"
    done
  fi
done
if [ $status -eq 0 ]; then
  rm -rf "$scratch"
else
  echo "== fuzzing failed; logs and inputs kept in $scratch"
fi
exit $status

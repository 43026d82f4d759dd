#!/usr/bin/env bash
# Takes screenshots of the GUI under Xvfb (a real X server, not the offscreen
# platform) after a run on a model, one per tab given. For looking, not testing.
# usage: scripts/screenshots.sh OUT_DIR MODEL [MODES] [TAB...]
# MODEL may be a report (.json): it is opened instead of run.
# SIZE=1280x800 sets the window size (the smallest screen the GUI must fit).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?output folder}"; model="${2:?model}"; modes="${3:-eager,default}"; shift 3 || shift $#
tabs=("$@"); [ ${#tabs[@]} -gt 0 ] || tabs=(Latency)
mkdir -p "$out"
app="${COMPILESCOPE_BUILD_DIR:-$root/build}/app/compilescope"
size=(); [ -z "${SIZE:-}" ] || size=(--size "$SIZE")
run=(--run --modes "$modes" --warmup 3 --iters 50); [[ "$model" != *.json ]] || run=()
for tab in "${tabs[@]}"; do
  xvfb-run -a -s "-screen 0 1400x900x24" "$app" "$model" "${run[@]}" "${size[@]}" \
    --tab "$tab" --screenshot "$out/$tab.png"
  echo "$out/$tab.png"
done

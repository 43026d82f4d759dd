#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build,
# then open the GUI on the demo model (the gallery MLP) — or, with no display,
# run the same job headless and print where the reports are.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/packaging/install-deps.sh"
build="${COMPILESCOPE_BUILD_DIR:-$root/build}"
# Only what the demo runs: the GUI, the CLI and the CUPTI collector where this
# machine configures them. The tests build in scripts/test.sh.
"$root/scripts/build.sh" compilescope-cli
available="$(cmake --build "$build" --target help)"
extra=()
for target in compilescope compilescope_cupti; do
  grep -q "^\.\.\. $target\$" <<<"$available" && extra+=("$target")
done
[ ${#extra[@]} -eq 0 ] || "$root/scripts/build.sh" "${extra[@]}"
model="$root/resources/models/mlp.py"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec "$build/app/compilescope" "$model" --run "$@"
fi
echo "compilescope: no display; running the demo headless"
mkdir -p "$root/out"
"$build/app/compilescope-cli" run "$model" --settings eager,default --warmup 5 --iters 100 \
  --json "$root/out/demo-report.json" --html "$root/out/demo-report.html" "$@"

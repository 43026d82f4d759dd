#!/usr/bin/env bash
# Builds the .deb from a stripped Release build (build-release/), checks its
# dependencies and layout, unpacks it into a temporary root with dpkg -x and
# runs the packaged compilescope-cli with the packaged probe on a packaged
# gallery model, then starts the packaged GUI offscreen on that report.
# Exits non-zero on the first failed check. Usage: scripts/package-test.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rel="${COMPILESCOPE_RELEASE_DIR:-$root/build-release}"
python="${COMPILESCOPE_PYTHON:-$root/.venv/bin/python}"

fail() {
  echo "package test: FAIL: $*" >&2
  exit 1
}

# The same options as the release preset: GUI on, tests and benchmarks off,
# CUPTI on when the CUDA Toolkit is found.
if [ ! -f "$rel/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$rel" -DCMAKE_BUILD_TYPE=Release -DCOMPILESCOPE_BUILD_GUI=ON \
    -DCOMPILESCOPE_BUILD_TESTS=OFF -DCOMPILESCOPE_BUILD_BENCHMARKS=OFF > /dev/null
fi
cmake --build "$rel" --parallel "$(nproc)"
rm -f "$rel"/compilescope_*.deb
(cd "$rel" && cpack -G DEB > cpack.log) || { cat "$rel/cpack.log" >&2; fail "cpack"; }
debs=("$rel"/compilescope_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "expected one compilescope_*.deb in $rel"
deb="${debs[0]}"

# Dependencies: python3 by name, the rest from dpkg-shlibdeps.
depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
for dep in python3 libqt6widgets6 libqt6svg6 libqcustomplot2.1-qt6 libgvc6 libcgraph6; do
  grep -qE "(^|, )$dep( |,|$)" <<< "$depends" || fail "Depends lacks $dep"
done

# Layout: everything under /usr, the launcher and icon where desktops look.
contents="$(dpkg-deb -c "$deb" | awk '{print $6}')"
outside="$(grep -vE '^\./(usr(/.*)?)?$' <<< "$contents" || true)"
[ -z "$outside" ] || fail "files outside /usr: $outside"
for f in usr/bin/compilescope usr/bin/compilescope-cli \
  usr/share/applications/compilescope.desktop \
  usr/share/icons/hicolor/scalable/apps/compilescope.svg \
  usr/share/compilescope/probe/compilescope_probe/__init__.py \
  usr/share/compilescope/probe/compilescope_probe/protocol.json \
  usr/share/compilescope/probe/aoti_runner/CMakeLists.txt \
  usr/share/compilescope/probe/aoti_runner/protocol.cmake \
  usr/share/compilescope/probe/aoti_runner/runner.cpp \
  usr/share/compilescope/models/mlp.py; do
  grep -qx "\./$f" <<< "$contents" || fail "package lacks /$f"
done
if grep -q __pycache__ <<< "$contents"; then fail "package holds __pycache__"; fi
# The AOTInductor runner, where the build made one (it needs torch), beside the collector.
runner_rel=""
if [ -x "$rel/probe/aoti_runner/compilescope-aoti-runner" ]; then
  runner_rel="$(grep -E '^\./usr/lib(/[^/]+)?/compilescope/compilescope-aoti-runner$' <<< "$contents" || true)"
  [ -n "$runner_rel" ] || fail "package lacks compilescope-aoti-runner beside the CUPTI collector"
fi

unpacked="$(mktemp -d)"
trap 'rm -rf "$unpacked"' EXIT
dpkg -x "$deb" "$unpacked/root"
prefix="$unpacked/root/usr"
desktop-file-validate "$prefix/share/applications/compilescope.desktop" || fail "desktop-file-validate"

# Stripped: no symbol table, no debug info in any packaged ELF file.
while IFS= read -r -d '' f; do
  if head -c 4 "$f" | grep -q ELF; then
    if readelf -S "$f" | grep -qE '\.(symtab|debug_info)'; then fail "not stripped: $f"; fi
  fi
done < <(find "$prefix" -type f -print0)

# The packaged runner starts and names its torch (its RPATH finds the libtorch it was built with).
if [ -n "$runner_rel" ]; then
  "$unpacked/root/${runner_rel#./}" --version | grep -q '"runner"' || fail "compilescope-aoti-runner --version"
fi

# Mark the packaged probe, so the report shows which probe ran: the packaged
# binary must use its own, not the source tree's it was built from.
init="$prefix/share/compilescope/probe/compilescope_probe/__init__.py"
version="$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$init")"
[ -n "$version" ] || fail "no __version__ in the packaged probe"
marker="$version+packaged"
sed -i "s/^__version__ = .*/__version__ = \"$marker\"/" "$init"

report="$unpacked/report.json"
"$prefix/bin/compilescope-cli" run "$prefix/share/compilescope/models/mlp.py" \
  --settings eager --device cpu --iters 5 --warmup 1 --python "$python" \
  --json "$report" > "$unpacked/cli.log" 2>&1 || { cat "$unpacked/cli.log" >&2; fail "compilescope-cli run"; }
"$python" - "$report" "$marker" "$prefix/share/compilescope/models/mlp.py" <<'EOF' || fail "report check"
import json, sys
report, marker, model = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
runs = report["runs"]
assert len(runs) == 1, f"{len(runs)} runs"
run = runs[0]
assert run["status"] == "ok", run["status"]
assert run["probe"]["probe_version"] == marker, f"probe {run['probe']['probe_version']}, want {marker}"
assert len(run["latency"]["samples_ns"]) == 5, "measured calls: " + str(len(run["latency"]["samples_ns"]))
assert report["model"]["file"] == model, report["model"]["file"]
EOF

# The GUI starts offscreen, opens the report, saves a screenshot and quits,
# with settings of its own: the user's recent files and interpreter stay theirs.
shot="$unpacked/gui.png"
XDG_CONFIG_HOME="$unpacked/config" QT_QPA_PLATFORM=offscreen timeout 60 "$prefix/bin/compilescope" "$report" --screenshot "$shot" \
  > "$unpacked/gui.log" 2>&1 || { cat "$unpacked/gui.log" >&2; fail "GUI did not start and quit"; }
[ "$(head -c 4 "$shot" | tail -c 3)" = "PNG" ] || fail "no screenshot from the GUI"
if grep -qiE 'error|cannot|could not|failed' "$unpacked/gui.log"; then
  cat "$unpacked/gui.log" >&2
  fail "the GUI printed an error"
fi

echo "package test: ok: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB," \
  "installed $(dpkg-deb -f "$deb" Installed-Size) KiB"

#!/usr/bin/env bash
# Builds compilescope's report (JSON, HTML, and screenshots when tabs are
# given) from probe event streams saved on another machine: the GPU machine
# has no Qt, so scripts/gpu-check.sh brings its streams back and this replays
# them through compilescope-cli (scripts/replay_probe stands in for the probe).
#
# usage: scripts/report-from-streams.sh STREAMS MODEL SETTINGS OUT_PREFIX [TAB...]
#   STREAMS   gpu-check's streams.tar.gz, the folder it unpacks to, or its streams/
#   MODEL     the model file the streams were recorded on (its name picks the
#             streams: MODEL-MODE-cupti.jsonl), e.g. resources/models/convnet.py
#   SETTINGS  e.g. eager,default,reduce-overhead,max-autotune-no-cudagraphs
#   OUT_PREFIX  writes OUT_PREFIX.json, OUT_PREFIX.html, and OUT_PREFIX-TAB.png
#             per TAB (Memory, Kernels, Compare, ...) under Xvfb
# COMPILESCOPE_REPLAY_VARIANT=nocupti replays the runs without the collector.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
streams="${1:?streams}"; model="${2:?model file}"; settings="${3:?settings}"; out="${4:?output prefix}"
shift 4
cli="${COMPILESCOPE_BUILD_DIR:-$root/build}/app/compilescope-cli"
[ -x "$cli" ] || { echo "no $cli: run scripts/build.sh first" >&2; exit 2; }
[ -f "$model" ] || { echo "no model file $model: give the file the streams were recorded on" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -f "$streams" ]; then
    tar -xf "$streams" -C "$work" || { echo "$streams is not a tar archive of gpu-check streams" >&2; exit 2; }
    streams="$work"
fi
[ -d "$streams/streams" ] && streams="$streams/streams"
ls "$streams"/*.jsonl >/dev/null 2>&1 || { echo "no .jsonl event streams in $streams" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
COMPILESCOPE_PROBE_ROOT="$root/scripts/replay_probe" COMPILESCOPE_REPLAY_DIR="$(cd "$streams" && pwd)" \
    "$cli" compare "$model" --settings "$settings" --device cuda \
    --json "$out.json" --html "$out.html" || rc=$? # a failed setting still has its report
for tab in "$@"; do
    shots=$(mktemp -d "$work/shots.XXXX")
    SIZE="${SIZE:-1280x800}" bash "$root/scripts/screenshots.sh" "$shots" "$out.json" x "$tab" >/dev/null
    mv "$shots/$tab.png" "$out-$tab.png"
    echo "$out-$tab.png"
done
exit "${rc:-0}"

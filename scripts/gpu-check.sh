#!/usr/bin/env bash
# gpu-check.sh: the CUPTI collector checked on a real GPU, in one command.
#
#   scripts/gpu-check.sh [OUT_DIR]        (default: $OUT, else ./gpu-check-out)
#
# Builds libcompilescope_cupti.so (cmake, or plain g++ when cmake is absent),
# runs the probe on the gallery MLP and conv net under eager, default,
# reduce-overhead and max-autotune-no-cudagraphs, each once with the collector
# and once with --no-cupti (plus the conv net's default once more with
# expandable segments), and checks:
#   1. kernel records > 0 in every setting;
#   2. launches per iteration lower under reduce-overhead than under default;
#   3. CUPTI's peak device bytes >= torch's peak reserved - 1 MiB, per phase;
#   4. the collector's overhead on median latency under 3% (the goal is 1%:
#      the summary says which settings reach it);
#   5. no activity records dropped, max-autotune's autotuning included;
#   6. GPU records on the probe's clock: a whole number of kernels per
#      measured call (a clock off by a fraction of a phase splits calls);
#   7. check 3 again for the conv net under default with
#      PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (variant "expandable",
#      on the warm cache: torch maps memory with cuMemCreate/cuMemMap there);
#   8. the whole check under 8 minutes.
# Then, while the budget lasts, torchvision's ResNet-50 at batch 16 under the
# four modes (variant "showcase", not checked), for reports made elsewhere.
# Writes OUT_DIR/summary.txt (what it printed), OUT_DIR/streams.tar.gz (every
# event stream, probe stderr, the build log). Exit 0 when every check passes,
# 1 when one fails, 2 when there is no GPU or the collector does not build.
#
# Needs: bash, python3 with a CUDA build of torch (PYTHON=... to pick another),
# g++ and CUPTI (the nvidia wheel torch uses, or the CUDA Toolkit's). No Qt,
# no network. Knobs: GPU_CHECK_ITERS (50), GPU_CHECK_WARMUP (5),
# GPU_CHECK_RUN_TIMEOUT (s, 240), GPU_CHECK_BUDGET (s, 420: no run starts
# after it), CUPTI_ROOT (folder with include/cupti.h and lib/libcupti.so*),
# GPU_CHECK_STREAMS (a folder holding runs.tsv and streams/ from an earlier
# run, e.g. streams.tar.gz unpacked: only the checks run, no GPU needed),
# GPU_CHECK_BUILD_ONLY=1 (only build and self-test the collector),
# GPU_CHECK_BUILD_DIR (default build-cupti in the repo), GPU_CHECK_NO_CMAKE=1
# (build with g++ even where cmake exists).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT_DIR=${1:-${OUT:-./gpu-check-out}}
PYTHON=${PYTHON:-python3}
ITERS=${GPU_CHECK_ITERS:-50}
WARMUP=${GPU_CHECK_WARMUP:-5}
RUN_TIMEOUT=${GPU_CHECK_RUN_TIMEOUT:-240}
BUDGET=${GPU_CHECK_BUDGET:-420}
START=$(date +%s)

mkdir -p "$OUT_DIR" || { echo "FAIL: cannot create $OUT_DIR"; exit 2; }
OUT_DIR=$(cd "$OUT_DIR" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
mkdir -p "$WORK/streams" "$WORK/cache"
SUMMARY="$OUT_DIR/summary.txt"
: >"$SUMMARY"

say() { echo "$*" | tee -a "$SUMMARY"; }

bundle() {
    if command -v gzip >/dev/null; then
        tar -czf "$OUT_DIR/streams.tar.gz" -C "$WORK" streams runs.tsv build.log
    else
        tar -cf "$OUT_DIR/streams.tar" -C "$WORK" streams runs.tsv build.log
    fi
}

cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
touch "$WORK/runs.tsv" "$WORK/build.log"

# -- 1. Build the collector ----------------------------------------------------------
SRC="$REPO/probe/cupti"
BUILD=${GPU_CHECK_BUILD_DIR:-$REPO/build-cupti}
LIB="$BUILD/libcompilescope_cupti.so"

find_cupti_root() {
    # The CUPTI torch loads: the nvidia wheel next to torch (same soname, same version).
    [ -n "${CUPTI_ROOT:-}" ] && return
    CUPTI_ROOT=$("$PYTHON" - 2>/dev/null <<'EOF'
import glob, os, sys, torch
major = (torch.version.cuda or "").split(".")[0]
for root in sys.path:
    for sub in ([f"nvidia/cu{major}"] if major else []) + ["nvidia/cuda_cupti"]:
        d = os.path.join(root, sub)
        if os.path.isfile(os.path.join(d, "include", "cupti.h")) and \
                glob.glob(os.path.join(d, "lib", "libcupti.so*")):
            print(d)
            raise SystemExit
EOF
)
}

build_with_gxx() {
    local inc libdir libfile cuda_home=${CUDA_HOME:-/usr/local/cuda}
    if [ -n "${CUPTI_ROOT:-}" ]; then
        inc="-isystem $CUPTI_ROOT/include"
        libdir="$CUPTI_ROOT/lib"
    else
        inc="-isystem $cuda_home/include -isystem $cuda_home/extras/CUPTI/include"
        libdir=""
        for d in "$cuda_home/lib64" "$cuda_home/lib" "$cuda_home/extras/CUPTI/lib64"; do
            ls "$d"/libcupti.so* >/dev/null 2>&1 && { libdir=$d; break; }
        done
        [ -n "$libdir" ] || { echo "no libcupti.so* under $cuda_home"; return 1; }
    fi
    if [ -e "$libdir/libcupti.so" ]; then libfile=libcupti.so; else
        libfile=$(cd "$libdir" && ls libcupti.so.* | sort | head -1)
    fi
    local flags="-std=c++20 -O2 -g -fPIC -Wall -Wextra -Wpedantic -fvisibility=hidden -I$REPO $inc"
    local f objs=()
    for f in collector name_table record_convert record_store tests/convert_selftest; do
        # shellcheck disable=SC2086
        g++ $flags -c "$SRC/$f.cpp" -o "$BUILD/${f##*/}.o" || return 1
        objs+=("$BUILD/${f##*/}.o")
    done
    g++ -shared -o "$LIB" "${objs[@]:0:4}" -L"$libdir" -l:"$libfile" -Wl,-rpath,"$libdir" \
        -Wl,--no-undefined -ldl -pthread &&
    g++ -o "$BUILD/compilescope_cupti_selftest" "${objs[@]:1:4}" -pthread
}

build_collector() {  # returns 0 with $LIB built and self-tested, else 2
    find_cupti_root
    mkdir -p "$BUILD"
    rm -f "$LIB"
    {
        echo "CUPTI_ROOT=${CUPTI_ROOT:-the CUDA Toolkit}"
        if command -v cmake >/dev/null && [ -z "${GPU_CHECK_NO_CMAKE:-}" ]; then
            echo "building with $(cmake --version | head -1)"
            cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOMPILESCOPE_CUPTI_TESTS=ON \
                ${CUPTI_ROOT:+-DCOMPILESCOPE_CUPTI_ROOT="$CUPTI_ROOT"} && cmake --build "$BUILD" -j 8
        else
            echo "cmake not found: building with g++ directly"
            build_with_gxx
        fi
    } >"$WORK/build.log" 2>&1
    if [ ! -f "$LIB" ]; then
        say "FAIL: the collector did not build; the end of the build log:"
        tail -25 "$WORK/build.log" | tee -a "$SUMMARY"
        return 2
    fi
    say "collector: $LIB (CUPTI from ${CUPTI_ROOT:-the CUDA Toolkit}); $(grep -c 'warning:' "$WORK/build.log") compiler warnings"
    if SELFTEST=$("$BUILD/compilescope_cupti_selftest" 2>&1); then
        say "PASS collector self-test: $SELFTEST"
    else
        say "FAIL collector self-test: $SELFTEST"
        return 2
    fi
}

say "gpu-check: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), repo $REPO"
if [ -n "${GPU_CHECK_STREAMS:-}" ]; then
    # Re-check streams saved earlier (runs.tsv + streams/): no GPU, no runs.
    cp "$GPU_CHECK_STREAMS/runs.tsv" "$WORK/runs.tsv" && cp -r "$GPU_CHECK_STREAMS/streams/." "$WORK/streams/" ||
        { say "FAIL: $GPU_CHECK_STREAMS has no runs.tsv and streams/"; exit 2; }
    say "checking the streams saved in $GPU_CHECK_STREAMS"
elif [ -n "${GPU_CHECK_BUILD_ONLY:-}" ]; then
    build_collector
    rc=$?
    bundle
    exit $rc
else

# -- 0. Is there a GPU? ------------------------------------------------------------
GPU_INFO=$("$PYTHON" - 2>&1 <<'EOF'
import sys
try:
    import torch
except Exception as e:
    print(f"torch cannot be imported by {sys.executable}: {e}")
    sys.exit(3)
if not torch.cuda.is_available():
    print(f"torch {torch.__version__} (built for CUDA {torch.version.cuda}) in {sys.executable} "
          "sees no CUDA GPU: torch.cuda.is_available() is False")
    sys.exit(2)
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, "
      f"{torch.cuda.device_count()} GPU(s), cuda:0 = {torch.cuda.get_device_name(0)}")
EOF
)
GPU_RC=$?
if [ $GPU_RC -ne 0 ]; then
    say "FAIL: no CUDA GPU to check on. $GPU_INFO"
    say "gpu-check needs a machine with an NVIDIA GPU, its driver and a CUDA build of torch."
    bundle
    exit 2
fi
say "$GPU_INFO"
command -v nvidia-smi >/dev/null && say "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
say "PYTORCH_CUDA_ALLOC_CONF=${PYTORCH_CUDA_ALLOC_CONF:-<unset>}"
build_collector || { bundle; exit 2; }

# -- 2. Run the probe ----------------------------------------------------------------
# Each setting runs cold with the collector, then again with --no-cupti on the
# same (now warm) compile cache: steady state is the same code, and the second
# run costs little. max-autotune goes last: it is the slow one.
SETTINGS="mlp:eager mlp:default mlp:reduce-overhead convnet:eager convnet:default
convnet:reduce-overhead mlp:max-autotune-no-cudagraphs convnet:max-autotune-no-cudagraphs"

run_probe() {  # model mode variant extra-args...
    local model=$1 mode=$2 variant=$3
    shift 3
    local name="$model-$mode-$variant" t0 rc limit=$RUN_TIMEOUT file="resources/models/$model.py"
    local alloc=${PYTORCH_CUDA_ALLOC_CONF:-}
    [ "$variant" != expandable ] || alloc="expandable_segments:True${alloc:+,$alloc}"
    [ -f "$REPO/$file" ] || file="scripts/gpu_models/$model.py"
    local now=$(($(date +%s) - START))
    # Showcase runs come after the checks and must end by BUDGET + 60 s.
    [ "$variant" != showcase ] || limit=$((BUDGET + 60 - now < RUN_TIMEOUT ? BUDGET + 60 - now : RUN_TIMEOUT))
    if [ "$now" -ge "$BUDGET" ] || [ "$limit" -lt 30 ]; then
        printf '%s\t%s\t%s\tskipped\t0\t%s\n' "$model" "$mode" "$variant" "$name" >>"$WORK/runs.tsv"
        say "  $name: skipped, ${now}s used of the ${BUDGET}s budget"
        return
    fi
    t0=$(date +%s)
    (cd "$REPO" && env ${alloc:+"PYTORCH_CUDA_ALLOC_CONF=$alloc"} \
        PYTHONPATH="$REPO/probe${PYTHONPATH:+:$PYTHONPATH}" \
        COMPILESCOPE_CUPTI_LIB="$LIB" timeout -k 10 "$limit" \
        "$PYTHON" -m compilescope_probe --model "$file" --mode "$mode" \
        --device cuda --warmup "$WARMUP" --iters "$ITERS" --cache-dir "$WORK/cache/$model-$mode" "$@" \
        >"$WORK/streams/$name.jsonl" 2>"$WORK/streams/$name.stderr.txt")
    rc=$?
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$model" "$mode" "$variant" "$rc" "$(($(date +%s) - t0))" "$name" \
        >>"$WORK/runs.tsv"
    say "  $name: exit $rc in $(($(date +%s) - t0))s"
}

say "running the probe (warmup $WARMUP, iters $ITERS):"
for setting in $SETTINGS; do
    model=${setting%%:*}
    mode=${setting#*:}
    run_probe "$model" "$mode" cupti
    run_probe "$model" "$mode" nocupti --no-cupti --warm-cache
    # Expandable segments before max-autotune, so the budget never skips it.
    [ "$setting" != convnet:default ] || run_probe "$model" "$mode" expandable --warm-cache
done
# Not checked: streams for the reports and screenshots made from them on a
# machine with Qt (scripts/report-from-streams.sh), while the budget lasts.
if "$PYTHON" -c "import torchvision" 2>/dev/null; then
    for mode in eager default reduce-overhead max-autotune-no-cudagraphs; do
        run_probe resnet50_batch16 "$mode" showcase
    done
else
    say "  resnet50_batch16: skipped, torchvision is not installed in $PYTHON"
fi
fi
ELAPSED=$(($(date +%s) - START))

# -- 3. Check ------------------------------------------------------------------------
# scripts/gpu_check_summary.py: standard library only, like the rest here.
"$PYTHON" "$REPO/scripts/gpu_check_summary.py" "$WORK" "$ELAPSED" >>"$SUMMARY.tmp" 2>&1
CHECK_RC=$?
tee -a "$SUMMARY" <"$SUMMARY.tmp"
rm -f "$SUMMARY.tmp"
bundle
say "streams: $OUT_DIR/streams.tar*; summary: $SUMMARY; total $(($(date +%s) - START))s"
if [ $CHECK_RC -eq 0 ]; then say "gpu-check: ALL PASS"; else say "gpu-check: FAILED"; fi
exit $CHECK_RC

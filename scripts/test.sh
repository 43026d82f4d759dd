#!/usr/bin/env bash
# Builds and runs every test: the linters (scripts/lint.sh), GoogleTest (core),
# Qt Test offscreen (runner, widgets), pytest (probe), end-to-end CLI runs on
# CPU, the core tests again under AddressSanitizer/UBSan (the asan preset), and
# every libFuzzer target for 60 s (scripts/fuzz.sh).
# Installs what is missing first. A lint finding fails the run like a test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/packaging/install-deps.sh"
"$root/scripts/build.sh"
build="${COMPILESCOPE_BUILD_DIR:-$root/build}"
export QT_QPA_PLATFORM=offscreen
status=0
# Lint needs the build's compile_commands.json; it runs before the tests.
"$root/scripts/lint.sh" || status=1
ctest --test-dir "$build" --output-on-failure --timeout 1500 -j "$(nproc)" || status=1

# Sanitizers on the pure C++ core and the runner (no GUI: fast to build).
asan="$root/build-asan"
(cd "$root" && cmake --preset asan > /dev/null &&
  cmake --build --preset asan --parallel "$(nproc)" --target core_tests runner_tests)
echo "== core and runner tests under AddressSanitizer/UBSan"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  "$asan/tests/core_tests" --gtest_brief=1 || status=1
ASAN_OPTIONS=detect_leaks=0 "$asan/tests/runner_tests" -silent || status=1

# Coverage-guided fuzzing of the parsers and the HTML writer (clang, build-fuzz/).
echo "== fuzzing: every target in tests/fuzz for 60 s"
"$root/scripts/fuzz.sh" 60 || status=1

# The .deb, packed (stripped) from the build above rather than a third full
# build in build-release/, which CI's time cannot afford; unpacked with dpkg -x,
# its CLI runs a gallery model with its own probe, its GUI starts offscreen.
echo "== the .deb package"
COMPILESCOPE_RELEASE_DIR="$build" "$root/scripts/package-test.sh" || status=1

exit $status

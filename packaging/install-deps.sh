#!/usr/bin/env bash
# Installs what compilescope needs on Debian 12: system packages (apt) and the
# project venv with PyPI's torch. Idempotent: a second run installs nothing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${COMPILESCOPE_VENV:-$root/.venv}"

apt_packages=(
  build-essential cmake pkg-config ccache
  qt6-base-dev qt6-svg-dev libgl-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  libgraphviz-dev graphviz
  libssl-dev zlib1g-dev
  nlohmann-json3-dev
  libgtest-dev libbenchmark-dev
  python3 python3-venv python3-dev
  xvfb xauth chromium fonts-dejavu-core
  # scripts/fuzz.sh: clang with libFuzzer (its runtime is libclang-rt-14-dev)
  clang libclang-rt-14-dev
  # scripts/package-test.sh: CPack's dpkg-shlibdeps and file, desktop-file-validate
  dpkg-dev file desktop-file-utils
  # Remote targets: the CLI and GUI drive the system ssh. The tests start their own
  # sshd on 127.0.0.1 (tests/support/sshd_fixture.py) with a config of their own; the
  # machine's sshd configuration is never touched, nor is its service needed (the
  # package's postinst may try to start it; without an init system that does nothing).
  openssh-client openssh-server
)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "compilescope: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The venv uses Debian's python3 so Inductor's C++ backend finds Python.h.
if [ ! -x "$venv/bin/python" ]; then
  echo "compilescope: creating $venv"
  /usr/bin/python3 -m venv "$venv"
fi
# torchvision: the `torchvision:NAME` model specs (small next to torch).
# ruff: lint and format of the Python (pyproject.toml); a CLI, so asked for its version.
py_requirements=(torch torchvision numpy pytest jsonschema ruff)
if ! "$venv/bin/python" -c "import torch, torchvision, numpy, pytest, jsonschema" 2>/dev/null ||
  ! "$venv/bin/ruff" --version >/dev/null 2>&1; then
  echo "compilescope: installing ${py_requirements[*]} into $venv (torch is large; once only)"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q "${py_requirements[@]}"
fi

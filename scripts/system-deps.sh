#!/bin/sh
# Install the Debian packages the test suite drives, when they are missing and apt-get is usable
# (as root, or through sudo without a password): tmux (real-terminal tests), perf (linux-perf),
# valgrind (profiler backends), Eigen's and xsimd's headers (the C++ library rungs) and, on x86-64, the aarch64 cross compiler (the ARM peak kernels'
# and clock chains' generated code is checked on any host). Otherwise print what is missing and why: the tests that need
# them are skipped with the reason. Never fails: `make test` goes on either way.
missing=""
pairs="tmux:tmux perf:linux-perf valgrind:valgrind"
[ "$(uname -m)" = x86_64 ] && pairs="$pairs aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu"
for pair in $pairs; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
done
# headers: Eigen for the C++ library rungs (cpp_eigen, cpp_eigen_native)
[ -f /usr/include/eigen3/Eigen/Dense ] || missing="$missing libeigen3-dev"
# and xsimd for the explicit-SIMD-library rung (cpp_xsimd_ikj)
[ -f /usr/include/xsimd/xsimd.hpp ] || missing="$missing libxsimd-dev"
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "note: missing$missing and no apt-get here (install them with your package manager); the tests that need them will be skipped"
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  as_root="sudo -n"
else
  echo "note: missing$missing (not root and no password-less sudo: install with sudo apt-get install$missing); the tests that need them will be skipped"
  exit 0
fi
echo "installing Debian packages:$missing"
($as_root apt-get update -qq && $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing) >/dev/null 2>&1 \
  || echo "warning: could not install$missing; the tests that need them will be skipped"
exit 0

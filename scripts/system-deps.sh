#!/bin/sh
# Install the Debian packages the test suite drives, when they are missing and apt-get is usable
# (root): tmux (real-terminal tests), perf (linux-perf) and valgrind (profiler backends).
# Elsewhere, print what is missing: those tests are skipped with the reason.
missing=""
for pair in tmux:tmux perf:linux-perf valgrind:valgrind; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian packages:$missing"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing) >/dev/null 2>&1 \
    || echo "warning: could not install$missing; the tests that need them will be skipped"
else
  echo "note: missing$missing (install with apt-get as root); the tests that need them will be skipped"
fi
exit 0

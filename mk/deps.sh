#!/bin/sh
# Checks the Debian packages mxsim needs; installs the missing ones when run as
# root, otherwise prints the exact command.  Called by `make deps`.
set -e
missing=""
need() { # need PACKAGE FILE-THAT-PROVES-IT
  [ -e "$2" ] || missing="$missing $1"
}
need g++               /usr/bin/g++
# the test and bench scripts (mk/*.py, mk/bench_quant.sh; verilator depends on it too)
need python3           /usr/bin/python3
need verilator         /usr/bin/verilator
need libsystemc-dev    /usr/include/systemc.h
need libyaml-cpp-dev   /usr/include/yaml-cpp/yaml.h
need libinih-dev       /usr/include/ini.h
need libgtest-dev      /usr/include/gtest/gtest.h
need yosys             /usr/bin/yosys
need gnuplot-nox       /usr/bin/gnuplot
# mxsim sweep: reads reports back (sim/sweep_out.c); its Slurm test (mk/slurm_test.sh)
# and its HTML report check (mk/sweep.mk)
need libjansson-dev    /usr/include/jansson.h
need slurm-wlm         /usr/sbin/slurmctld
need munge             /usr/sbin/munged
need chromium          /usr/bin/chromium
# the Python bridge (sim/python/mxsim, mk/python.mk): numpy for the ctypes
# layer, PyTorch for mxsim.torch, scikit-learn for its bundled digits set
need python3-numpy     /usr/lib/python3/dist-packages/numpy/__init__.py
need python3-torch     /usr/lib/python3/dist-packages/torch/__init__.py
need python3-sklearn   /usr/lib/python3/dist-packages/sklearn/__init__.py
# `mxsim trace --from-torch` is checked on torchvision's ResNet-50
need python3-torchvision /usr/lib/python3/dist-packages/torchvision/__init__.py
# the fuzz harnesses (mk/fuzz.mk): clang 14 and its libFuzzer/sanitizer
# runtimes, which the clang package only recommends (not installed here)
need clang             /usr/bin/clang
need libclang-rt-14-dev /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
[ -z "$missing" ] && exit 0
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
  echo "deps: installing$missing"
  sh -c "$cmd"
else
  echo "deps: missing$missing; run as root:" >&2
  echo "  $cmd" >&2
  exit 1
fi

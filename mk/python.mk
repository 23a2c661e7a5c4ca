# mk/python.mk — the Python bridge (issue 12): build/libmxcore.so for the
# ctypes package sim/python/mxsim, `make install`, the Python tests.
#
# libmxcore.so holds the same core sources as libmxcore.a, compiled -fPIC in
# $(BUILD)/pic/, plus the thin C ABI sim/mxsim_capi.c and the config loader it
# needs (sim/config_yaml.cpp, sim/dram_config.cpp: yaml-cpp and inih, so the
# .so links those; the core itself stays C11, libc + libm).
PIC_SRC  := $(CORE_SRC) sim/mxsim_capi.c sim/version.c sim/config_yaml.cpp sim/dram_config.cpp
PIC_OBJ  := $(patsubst %.c,$(BUILD)/pic/%.o,$(filter %.c,$(PIC_SRC))) \
            $(patsubst %.cpp,$(BUILD)/pic/%.o,$(filter %.cpp,$(PIC_SRC)))
PYDIR    := sim/python
# the Debian python3 (its dist-packages hold python3-numpy/torch/sklearn; a
# pyenv or venv python3 earlier on PATH would not see them)
PYTHON   ?= /usr/bin/python3
PREFIX   ?= /usr/local
# where `make install` puts the package: a directory on Debian python3's
# sys.path for PREFIX /usr/local (the default) and /usr
PYVER    := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3)
PYSITE   ?= $(PREFIX)/lib/python$(PYVER)/dist-packages

all: $(BUILD)/libmxcore.so

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@

$(BUILD)/pic/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -fPIC -c $< -o $@

$(BUILD)/pic/sim/version.o: sim/version.c $(BUILD)/git-version
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -DMXSIM_GIT=\"$$(cat $(BUILD)/git-version)\" -c $< -o $@

$(BUILD)/libmxcore.so: $(PIC_OBJ)
	$(CXX) -shared $(LDFLAGS) -Wl,--no-undefined -Wl,-soname,libmxcore.so -o $@ $(PIC_OBJ) $(SIM_LIBS)

-include $(shell find $(BUILD)/pic -name '*.d' 2>/dev/null)

# `make install`: the CLI, the libraries, the header of the C ABI and the
# package, the package finding the .so next to itself (mxsim/_lib) and the
# shipped configs in mxsim/_share/configs (config="mxsf" works installed);
# the configs (energy tables, DRAM presets, sweeps) and traces in
# PREFIX/share/mxsim/, where the installed binary finds relative table paths
# that are not next to a config (mx_data_find in sim/config_yaml.cpp: from
# the binary's own location, so any PREFIX or DESTDIR works unrebuilt).
.PHONY: install
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/mxsim $(DESTDIR)$(PYSITE)/mxsim/_lib
	install -m 755 $(BUILD)/mxsim $(DESTDIR)$(PREFIX)/bin/mxsim
	install -m 644 $(BUILD)/libmxcore.a $(DESTDIR)$(PREFIX)/lib/libmxcore.a
	install -m 755 $(BUILD)/libmxcore.so $(DESTDIR)$(PREFIX)/lib/libmxcore.so
	install -m 644 sim/mxsim_capi.h $(DESTDIR)$(PREFIX)/include/mxsim/mxsim_capi.h
	install -m 644 $(PYDIR)/mxsim/*.py $(DESTDIR)$(PYSITE)/mxsim/
	install -m 755 $(BUILD)/libmxcore.so $(DESTDIR)$(PYSITE)/mxsim/_lib/libmxcore.so
	rm -rf $(DESTDIR)$(PYSITE)/mxsim/_share && mkdir -p $(DESTDIR)$(PYSITE)/mxsim/_share
	cp -R configs $(DESTDIR)$(PYSITE)/mxsim/_share/configs
	rm -rf $(DESTDIR)$(PREFIX)/share/mxsim && install -d $(DESTDIR)$(PREFIX)/share/mxsim
	cp -R configs traces $(DESTDIR)$(PREFIX)/share/mxsim/
	@echo "installed: $(DESTDIR)$(PREFIX)/bin/mxsim, $(DESTDIR)$(PREFIX)/lib/libmxcore.{a,so}, $(DESTDIR)$(PREFIX)/share/mxsim/{configs,traces}, $(DESTDIR)$(PYSITE)/mxsim"

# test-install: `make install` under a DESTDIR; the installed binary, run
# from another directory, finds a config's relative energy table and DRAM
# preset (and a sweep file's base and trace) in PREFIX/share/mxsim
# (mk/install_test.sh).
.PHONY: test-install
test-install: all
	@rm -rf $(BUILD)/install_root && $(MAKE) --no-print-directory install BUILD=$(BUILD) DESTDIR=$(abspath $(BUILD))/install_root PREFIX=/opt/mxsim >/dev/null
	@sh mk/install_test.sh $(BUILD)/mxsim $(BUILD)/install_root $(BUILD)/install_test
test-extra:: test-install

# The bridge's tests (tests/python/test_bridge.py): bit-equality of converted
# layers with `mxsim run --mode functional --data --dump`, quantization axes
# against `mxsim quant`, bad input; `mxsim trace --from-torch`
# (tests/python/test_trace.py): hand-derived GEMMs of a BERT-like model,
# torchvision ResNet-50 against traces/resnet50_train.csv.  A normal (not ASan) build: python3 cannot
# load an ASan library without LD_PRELOAD.
.PHONY: test-python
test-python: all
	MXSIM_BIN=$(abspath $(BUILD)/mxsim) MXSIM_LIB=$(abspath $(BUILD)/libmxcore.so) $(PYTHON) tests/python/test_bridge.py
	MXSIM_BIN=$(abspath $(BUILD)/mxsim) MXSIM_LIB=$(abspath $(BUILD)/libmxcore.so) $(PYTHON) tests/python/test_trace.py
	MXSIM_BIN=$(abspath $(BUILD)/mxsim) MXSIM_LIB=$(abspath $(BUILD)/libmxcore.so) PYTHONPATH=$(PYDIR) \
	  $(PYTHON) -m mxsim.accuracy --smoke
test-extra:: test-python

# The accuracy study (not in make test): every GEMM of training through the
# datapath, 6 formats x 3 seeds x 2 models; table, loss plots (gnuplot SVG)
# and energy per training step in $(BUILD)/accuracy/ (docs/PYTHON.md).
.PHONY: accuracy
accuracy: deps all
	MXSIM_BIN=$(abspath $(BUILD)/mxsim) MXSIM_LIB=$(abspath $(BUILD)/libmxcore.so) PYTHONPATH=$(PYDIR) \
	  $(PYTHON) -m mxsim.accuracy --out $(BUILD)/accuracy

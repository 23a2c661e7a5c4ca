# mxsim — top-level build.  `make run` and `make test` are the whole set-up on a
# fresh Debian machine: both depend on `deps`, which installs what is missing.
#
# Source discovery is by folder so that adding a file needs no Makefile edit:
#   models/**/*.c  -> build/libmxcore.a   (C11, libc + libm only)
#   sim/*.c sim/*.cpp -> build/mxsim      (thin C/C++ layer over the C API)
#   tests/*.cpp    -> build/tests/mxsim_tests (GoogleTest)
# Larger sub-systems (Verilator co-simulation, SystemC) add their rules in mk/*.mk.

BUILD   ?= build
CC      ?= gcc
CXX     ?= g++
SAN     ?=
OPT     ?= -O2
WARN    := -Wall -Wextra -Werror
INCS    := -Imodels -Isim
SANOPTS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SANFLAGS := $(if $(SAN),$(SANOPTS))
# -ffp-contract=off: no fused multiply-add, in the core (ISO C mode already
# implies it for gcc) and in the C++ tests' own reference arithmetic, so bits
# do not depend on -march (see models/util/mx_fp_env.h).
FPFLAGS := -ffp-contract=off
CFLAGS  := -std=c11 $(OPT) -g $(WARN) $(FPFLAGS) $(INCS) -DMXSIM_SRC_DIR=\"$(CURDIR)\" -D_POSIX_C_SOURCE=200809L -MMD -MP $(SANFLAGS) $(EXTRA_CFLAGS)
CXXFLAGS := -std=c++17 $(OPT) -g $(WARN) $(FPFLAGS) $(INCS) -DMXSIM_SRC_DIR=\"$(CURDIR)\" -MMD -MP $(SANFLAGS) $(EXTRA_CXXFLAGS)
LDFLAGS := $(SANFLAGS)

CORE_SRC := $(sort $(shell find models -name '*.c'))
SIM_C    := $(sort $(wildcard sim/*.c))
SIM_CXX  := $(sort $(wildcard sim/*.cpp))
TEST_SRC := $(sort $(wildcard tests/*.cpp))
# the slow, obviously correct references the tests compare against (not in libmxcore)
TEST_REF := $(sort $(wildcard tests/ref/*.c))

CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
SIM_OBJ  := $(SIM_C:%.c=$(BUILD)/obj/%.o) $(SIM_CXX:%.cpp=$(BUILD)/obj/%.o)
TEST_OBJ := $(TEST_SRC:%.cpp=$(BUILD)/obj/%.o) $(TEST_REF:%.c=$(BUILD)/obj/%.o)
# The CLI's objects without main(), so tests can call command entry points.
SIM_LIB_OBJ := $(filter-out $(BUILD)/obj/sim/mxsim_main.o,$(SIM_OBJ))

SIM_LIBS := -lyaml-cpp -linih -ljansson -lm -lpthread

.PHONY: all run test test-fast test-san bench lint clean deps area cosim
.DEFAULT_GOAL := all

all: $(BUILD)/mxsim $(BUILD)/libmxcore.a

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# The commit built, for mxsim_version() (sim/version.c): the stamp file is
# rewritten only when `git describe` changes, so nothing else rebuilds.
$(BUILD)/git-version: FORCE
	@mkdir -p $(dir $@)
	@v=$$(git describe --always --dirty 2>/dev/null || echo unknown); \
	  [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" > $@
$(BUILD)/obj/sim/version.o: sim/version.c $(BUILD)/git-version
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DMXSIM_GIT=\"$$(cat $(BUILD)/git-version)\" -c $< -o $@
.PHONY: FORCE
FORCE:

$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(BUILD)/libmxcore.a: $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# ar keeps members by file name: two models/**/NAME.c would make a library
# that links by accident of order; and the test references stay out of it.
.PHONY: test-lib-members
test-lib-members: $(BUILD)/libmxcore.a
	@d=$$(ar t $< | sort | uniq -d); [ -z "$$d" ] || { echo "libmxcore.a: members of one name: $$d"; exit 1; }
	@! ar t $< | grep -q ref_dot || { echo "libmxcore.a holds the test reference mx_ref_dot"; exit 1; }
	@echo "libmxcore.a: $$(ar t $< | wc -l) members, no two of one name, no test reference"
test-extra:: test-lib-members

$(BUILD)/mxsim: $(SIM_OBJ) $(BUILD)/libmxcore.a
	$(CXX) $(LDFLAGS) -o $@ $(SIM_OBJ) $(BUILD)/libmxcore.a $(SIM_LIBS)

$(BUILD)/tests/mxsim_tests: $(TEST_OBJ) $(SIM_LIB_OBJ) $(BUILD)/libmxcore.a
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) -o $@ $(TEST_OBJ) $(SIM_LIB_OBJ) $(BUILD)/libmxcore.a -lgtest -lgtest_main $(SIM_LIBS)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# ---- dependencies ---------------------------------------------------------
deps:
	@sh mk/deps.sh

# ---- main job -------------------------------------------------------------
run: deps all
	$(BUILD)/mxsim run -c configs/mxsf.yaml --compare configs/bf16.yaml -t traces/bert_base_train.csv -o $(BUILD)/run -q --engine cycle

# ---- tests: once normally, once under ASan+UBSan ---------------------------
# MXSIM_BIN lets the CLI tests find the binary of the same build flavour.
# GTEST_SHARDS shards, two at a time (mk/gtest_shards.sh); 1: one process.
# The slowest test runs as a job of its own beside the shards (GTEST_ALONE).
GTEST_SHARDS ?= 8
GTEST_ALONE ?= Validation.DocMatchesRegenerated
test-fast: all $(BUILD)/tests/mxsim_tests
	GTEST_ALONE=$(GTEST_ALONE) MXSIM_BIN=$(abspath $(BUILD)/mxsim) sh mk/gtest_shards.sh $(BUILD)/tests/mxsim_tests $(GTEST_SHARDS) 2 --gtest_brief=1

test-san:
	$(MAKE) BUILD=build/san SAN=1 OPT=-O1 test-fast

test: deps
	$(MAKE) test-fast
	$(MAKE) test-san
	$(MAKE) test-extra

# Sub-systems hook their own regressions (e.g. co-simulation) into test-extra.
test-extra:: all

bench: deps all $(BUILD)/bench/mxsim_bench
	$(BUILD)/bench/mxsim_bench
	@echo "bench_cycle_engine"
	@sh mk/bench_cycle.sh $(BUILD)/mxsim

BENCH_SRC := $(sort $(wildcard bench/*.c))
$(BUILD)/bench/mxsim_bench: $(BENCH_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/libmxcore.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

lint::
	@echo "C/C++ built with $(WARN); see mk/*.mk for RTL lint"

clean:
	rm -rf build

-include $(wildcard mk/*.mk)

# Whole-array figures join the PE ones: array co-simulation speed in `make
# bench` (builds a 16x16 Verilated array once, several minutes), the 2x2 array
# in `make area`.
bench: bench-systemc
area: area-array

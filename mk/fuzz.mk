# mk/fuzz.mk — libFuzzer harnesses of the input readers (tests/fuzz/*.c,
# docs/FUZZ.md).  Included by the Makefile.
#
#   make fuzz [FUZZ_SECS=600] [FUZZ_JOBS=2] [FUZZ_ONLY="npy trace"]
#       each harness FUZZ_SECS seconds (FUZZ_JOBS at a time), keeping its
#       corpus in build/fuzz/corpus/NAME and going on after a finding; prints
#       execs, coverage and findings per harness; fails if anything was found.
#   make fuzz-test (part of `make test`, via test-extra)
#       replays tests/fuzz/regress/NAME/* once, then each harness 30 s from the
#       seed corpus with a fixed seed; fails on any crash, timeout (> 1 s per
#       input), leak or OOM (> 2 GB RSS).
#
# The project's sources (models/**, sim/* but main) are compiled again by clang
# with coverage instrumentation (-fsanitize=fuzzer-no-link) and ASan+UBSan
# into build/fuzz/obj and linked into build/fuzz/fuzz_NAME.

FUZZ_CC       ?= clang
FUZZ_CXX      ?= clang++
FUZZ_SECS     ?= 600
FUZZ_JOBS     ?= 2
FUZZ_TEST_SECS ?= 30
FUZZ_DIR      := $(BUILD)/fuzz
FUZZ_NAMES    := npy trace config scalesim dram_config dram_trace
FUZZ_ONLY     ?= $(FUZZ_NAMES)
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_COMMON   := -O1 -g $(WARN) $(INCS) -Itests/fuzz -DMXSIM_SRC_DIR=\"$(CURDIR)\" -MMD -MP \
                 -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_CFLAGS   := -std=c11 -D_POSIX_C_SOURCE=200809L $(FUZZ_COMMON)
FUZZ_CXXFLAGS := -std=c++17 $(FUZZ_COMMON)

# the readers under test and what they link (not every command: the others
# are not fuzzed, and clang's -Wall differs from gcc's)
FUZZ_SIM_SRC  := sim/npy.c sim/cmd_import_scalesim.c sim/cmd_dram.c sim/cli_getopt.c sim/json_out.c sim/version.c \
                 sim/config_yaml.cpp sim/dram_config.cpp
FUZZ_LIB_SRC  := $(CORE_SRC) $(FUZZ_SIM_SRC)
FUZZ_LIB_OBJ  := $(addprefix $(FUZZ_DIR)/obj/,$(addsuffix .o,$(basename $(FUZZ_LIB_SRC))))
FUZZ_BINS     := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)

.PHONY: fuzz fuzz-build fuzz-test fuzz-run
fuzz-build: $(FUZZ_BINS)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -c $< -o $@

$(FUZZ_DIR)/libmxfuzz.a: $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_%.o $(FUZZ_DIR)/obj/tests/fuzz/fuzz_util.o $(FUZZ_DIR)/libmxfuzz.a
	$(FUZZ_CXX) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(SIM_LIBS)

FUZZ_MAIN_OBJ := $(FUZZ_NAMES:%=$(FUZZ_DIR)/obj/tests/fuzz/fuzz_%.o) $(FUZZ_DIR)/obj/tests/fuzz/fuzz_util.o
.SECONDARY: $(FUZZ_MAIN_OBJ)

-include $(shell find $(FUZZ_DIR)/obj -name '*.d' 2>/dev/null)

fuzz: deps
	+$(MAKE) fuzz-run
fuzz-run: $(FUZZ_ONLY:%=$(FUZZ_DIR)/fuzz_%)
	@sh tests/fuzz/run.sh fuzz $(FUZZ_SECS) $(FUZZ_JOBS) $(FUZZ_DIR) $(FUZZ_ONLY)

fuzz-test: $(FUZZ_BINS)
	@sh tests/fuzz/run.sh test $(FUZZ_TEST_SECS) 2 $(FUZZ_DIR) $(FUZZ_NAMES)

test-extra:: fuzz-test

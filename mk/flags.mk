# mk/flags.mk — bit-exactness must not depend on compiler flags (issue 10).
# Included by the Makefile; both checks run in `make test` (test-extra).
#
# test-fp-env: every core file (models/**/*.c) must refuse to compile under
#   -Ofast (fast-math) and under x87 excess precision (-mfpmath=387,
#   FLT_EVAL_METHOD 2) with the #error of models/util/mx_fp_env.h, and must
#   compile under -O3 -march=native (so the refusal is that #error and
#   nothing else).  Preprocessing is enough for #error: a second or two.
# test-o3: the whole GoogleTest suite (its bit-exact suites compare formats,
#   blocks, BDR, scaled, packing, the datapath units, PE and functional engine
#   with independent references; ~5 s) built with OPT="-O3 -march=native" in
#   $(BUILD)/o3 and run against that build's mxsim must pass, and
#   `mxsim quant` must write byte-identical outputs (values and codes) with
#   the -O2 and the -O3 -march=native builds.

O3_DIR    := $(BUILD)/o3
O3_FILTER ?= *
O3_QUANT  := mxfp8_e4m3 mxfp4 mxsf mx6 bf16 fp8_e5m2
# GCC 12's flow warnings at -O3 give false positives the -O2 build (which
# keeps them as errors) does not: -Wstringop-overflow inside libstdc++'s
# vector::insert inlined into tests/cli_helpers.h npy_bytes ("writing 1 byte
# into a region of size 0", GCC bug 106199 and relatives), and
# -Wmaybe-uninitialized on out-parameters set by a callee that returned 0
# (sim/npy.c npy_parse_f32's hlen/count/need).  Off in this build only.
O3_C_NOWARN   := -Wno-maybe-uninitialized
O3_CXX_NOWARN := -Wno-stringop-overflow -Wno-maybe-uninitialized -ffp-contract=off
# -ffp-contract=off for C++: GCC contracts a*b+c into FMA by default in C++
# (and GNU C), off only in ISO C mode, so under -march=native the tests' own
# C++ reference sums (e.g. tests/test_func_fast.cpp's r += A*B) change bits
# (FuncFast.GemmEqualsPeDotLoopAnyThreads fails).  The C core is compiled
# -std=c11, contraction off, and gets no such flag here: that is what this
# build checks.
FP_ENV_PP := -std=c11 -D_POSIX_C_SOURCE=200809L -Imodels -Isim -E -o /dev/null

.PHONY: test-fp-env test-o3

test-fp-env:
	@mkdir -p $(BUILD)
	@fail=0; for f in $(CORE_SRC); do \
	  for bad in -Ofast -mfpmath=387; do \
	    if $(CC) $(FP_ENV_PP) -O2 $$bad $$f > $(BUILD)/fp_env.log 2>&1; then \
	      echo "test-fp-env: $$f compiles with $$bad (must be refused)"; fail=1; \
	    elif ! grep -q 'error: #error "mxsim core: .*mx_fp_env.h' $(BUILD)/fp_env.log; then \
	      echo "test-fp-env: $$f fails with $$bad, but not by mx_fp_env.h's #error:"; cat $(BUILD)/fp_env.log; fail=1; \
	    fi; \
	  done; \
	  if ! $(CC) $(FP_ENV_PP) -O3 -march=native $$f; then echo "test-fp-env: $$f: -O3 -march=native refused"; fail=1; fi; \
	done; rm -f $(BUILD)/fp_env.log; \
	[ $$fail = 0 ] && echo "test-fp-env: PASS (-Ofast and -mfpmath=387 refused by every core file, -O3 -march=native accepted)"; \
	exit $$fail

test-o3: all
	+$(MAKE) BUILD=$(O3_DIR) OPT="-O3 -march=native" EXTRA_CFLAGS="$(O3_C_NOWARN)" EXTRA_CXXFLAGS="$(O3_CXX_NOWARN)" $(O3_DIR)/mxsim $(O3_DIR)/tests/mxsim_tests
	MXSIM_BIN=$(abspath $(O3_DIR)/mxsim) sh mk/gtest_shards.sh $(O3_DIR)/tests/mxsim_tests $(GTEST_SHARDS) 2 --gtest_brief=1 --gtest_filter='$(O3_FILTER)'
	@mkdir -p $(O3_DIR)/quant && fail=0; for f in $(O3_QUANT); do \
	  for b in $(BUILD) $(O3_DIR); do \
	    $$b/mxsim quant --format $$f tests/golden/microxcaling/input.npy $(O3_DIR)/quant/$$f.$$(basename $$b).npy \
	      --codes $(O3_DIR)/quant/$$f.$$(basename $$b).codes.npy || fail=1; \
	  done; \
	  cmp $(O3_DIR)/quant/$$f.$$(basename $(BUILD)).npy $(O3_DIR)/quant/$$f.o3.npy && \
	  cmp $(O3_DIR)/quant/$$f.$$(basename $(BUILD)).codes.npy $(O3_DIR)/quant/$$f.o3.codes.npy || fail=1; \
	done; [ $$fail = 0 ] && echo "test-o3: PASS (GoogleTest suite at -O3 -march=native; mxsim quant byte-identical: $(O3_QUANT))"; exit $$fail

test-extra:: test-fp-env test-o3

# mk/cosim_array.mk — whole-GEMM co-simulation of rtl/mx_array_ctrl.sv (the
# descriptor-driven controller + mx_array + re-quantizing output stage):
# build/mxsim-cosim-array (`make cosim-array`, part of `make test`), the
# array benchmark (`make bench-array`, 4x4, 8x8 and 16x16 at L = 8) and the
# array's synthesis (`make area-array`, yosys generic cells, 2x2 L = 2).
# One Verilator build per array size (-G parameters), by generic pattern rules
# (any RxCxL, also run by `mxsim cosim --level array` on demand), cached
# under build/cosim_array/vl_RxCxL (vlb_RxCxL: bench, no tracing); the
# regression uses 4x4 L = 4, cosim-array-any 2x3 L = 2.  Changing CA_VLFLAGS
# or CA_VLOPT does not rebuild cached sizes: rm -rf build/cosim_array.

ifndef CA_DIR  # included by the Makefile and by mk/systemc.mk (whichever comes first)
CA_DIR    := $(BUILD)/cosim_array
CA_VL     := $(or $(VERILATOR),verilator)
CA_VLROOT := $(shell $(CA_VL) --getenv VERILATOR_ROOT 2>/dev/null)
CA_RTL    := rtl/mx_pkg.sv rtl/mx_decode.sv rtl/mx_mul.sv rtl/mx_align.sv rtl/mx_addtree.sv \
             rtl/mx_fp32_round.sv rtl/mx_fp32_add.sv rtl/mx_accum.sv rtl/mx_pe.sv rtl/mx_skew.sv \
             rtl/mx_array.sv rtl/mx_requant.sv rtl/mx_array_ctrl.sv
CA_VLT    := mk/cosim_array.vlt
CA_VLINC  := -isystem $(CA_VLROOT)/include -isystem $(CA_VLROOT)/include/vltstd
CA_VLDEF  := -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_COVERAGE=0 -DVM_SC=0
CA_VLCXX  := -std=c++17 -O1 $(CA_VLINC) $(CA_VLDEF)
CA_RT_OBJ := $(CA_DIR)/rt/verilated.o $(CA_DIR)/rt/verilated_fst_c.o $(CA_DIR)/rt/verilated_threads.o
# the sim layer's objects: config (sim/config_yaml.cpp loads memory.dram files
# through sim/dram_config.cpp, libinih), operand files; mk/systemc.mk links the same
CA_SIM_OBJ := $(BUILD)/obj/sim/config_yaml.o $(BUILD)/obj/sim/dram_config.o $(BUILD)/obj/sim/operand_data.o \
              $(BUILD)/obj/sim/npy.o
CA_LIBS   := -lyaml-cpp -linih -lz -lpthread -lm

.PHONY: cosim-array lint-array area-array

# Any size, on demand (`mxsim cosim --level array` runs `make` with these
# targets; docs/DECISIONS.md "Array co-simulation of any configuration"): the
# stem RxCxL of a pattern target is the array's rows, columns and lanes;
# RxCxLxTRxTC adds the re-quantization tile of rqu.block: tile (mx_array_ctrl
# TR, TC; RxCxL has the R x C fold tile).
#   $(CA_DIR)/vl_RxCxL/          Verilated model with FST tracing (co-simulation)
#   $(CA_DIR)/mxsim-cosim-array-RxCxL         harness for that size
#   $(CA_DIR)/vlb_RxCxL/, $(CA_DIR)/mxsim-cosim-array-bench-RxCxL: no tracing (bench)
# The same Verilator flags for both (CA_VLFLAGS) and mk/cosim_array.vlt (the
# PE's input ports public, so that all R x C PEs can share one copy of its
# code), then mk/vl_share_code.py (shares the copies Verilator still makes per
# instance, docs/SYSTEMC.md "Array co-simulation speed"); C++ of the model at
# -O2 (the shared code is small: -O2 1.09x -Os at 8x8, -O3 no better).
ca_dim     = $(word $(2),$(subst x, ,$(1)))
# -G parameters / -D macros of the stem's tile (none for RxCxL)
ca_tile_g  = $(if $(call ca_dim,$(1),4),-GTR=$(call ca_dim,$(1),4) -GTC=$(call ca_dim,$(1),5))
ca_tile_d  = $(if $(call ca_dim,$(1),4),-DARR_TR=$(call ca_dim,$(1),4) -DARR_TC=$(call ca_dim,$(1),5))
CA_VLFLAGS ?= -Wall -Irtl --x-assign fast --x-initial fast --top-module mx_array_ctrl -GALIGN_W=32
CA_VLOPT   ?= OPT_FAST=-O2 OPT_SLOW=-O0 OPT_GLOBAL=-O1
# 0: leave each instance's copy of its code (mk/vl_share_code.py; to measure it)
CA_SHARE_CODE ?= 1
# $(call ca_verilate,DIR,STEM,MODE,PREFIX): MODE "--cc [--trace-fst]" (the
# harness: input-combinational skip patched in, mk/vl_skip_ico.sh) or "--sc"
# (the SystemC RTL back-end, mk/systemc.mk: Verilator's own schedule)
define ca_verilate
	@rm -rf $(1); mkdir -p $(1)
	$(CA_VL) $(3) $(CA_VLFLAGS) --prefix $(4) -GR=$(call ca_dim,$(2),1) -GC=$(call ca_dim,$(2),2) -GLANES=$(call ca_dim,$(2),3) \
	  $(call ca_tile_g,$(2)) -Mdir $(1) $(CA_VLT) $(CA_RTL)
	$(if $(filter --cc,$(3)),sh mk/vl_skip_ico.sh $(1))
	$(if $(filter 1,$(CA_SHARE_CODE)),python3 mk/vl_share_code.py $(1) $(4))
	+$(MAKE) -s -C $(1) -f $(4).mk $(4)__ALL.a $(CA_VLOPT)
endef
# $(call ca_harness_cxx,VLDIR,STEM,NOTRACE)
define ca_harness_cxx
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g $(WARN) -Imodels -Isim -Isim/cosim_array $(CA_VLINC) -isystem $(1) \
	  $(CA_VLDEF) $(3) -DARR_R=$(call ca_dim,$(2),1) -DARR_C=$(call ca_dim,$(2),2) -DARR_L=$(call ca_dim,$(2),3) $(call ca_tile_d,$(2)) \
	  -MMD -MP $(SANFLAGS) -c $< -o $@
endef

# what a generated model depends on besides the RTL: the .vlt and the two scripts that edit Verilator's output
CA_VLGEN := $(CA_VLT) mk/vl_skip_ico.sh mk/vl_share_code.py
$(CA_DIR)/vl_%/Vmx_array_ctrl__ALL.a: $(CA_RTL) $(CA_VLGEN)
	$(call ca_verilate,$(CA_DIR)/vl_$*,$*,--cc --trace-fst,Vmx_array_ctrl)
$(CA_DIR)/vlb_%/Vmx_array_ctrl__ALL.a: $(CA_RTL) $(CA_VLGEN)
	$(call ca_verilate,$(CA_DIR)/vlb_$*,$*,--cc,Vmx_array_ctrl)

$(CA_DIR)/obj_%/cosim_array_main.o: sim/cosim_array/cosim_array_main.cpp $(CA_DIR)/vl_%/Vmx_array_ctrl__ALL.a
	$(call ca_harness_cxx,$(CA_DIR)/vl_$*,$*,)
$(CA_DIR)/obj_%/array_model.o: sim/cosim_array/array_model.cpp
	$(call ca_harness_cxx,$(CA_DIR)/vl_$*,$*,)
$(CA_DIR)/objb_%/cosim_array_main.o: sim/cosim_array/cosim_array_main.cpp $(CA_DIR)/vlb_%/Vmx_array_ctrl__ALL.a
	$(call ca_harness_cxx,$(CA_DIR)/vlb_$*,$*,-DCA_NO_TRACE)
$(CA_DIR)/objb_%/array_model.o: sim/cosim_array/array_model.cpp
	$(call ca_harness_cxx,$(CA_DIR)/vlb_$*,$*,-DCA_NO_TRACE)

$(CA_DIR)/common/mx_sc_gemm.o: sim/systemc/mx_sc_gemm.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g $(WARN) -Imodels -Isim -MMD -MP $(SANFLAGS) -c $< -o $@

CA_LINK_COMMON := $(CA_DIR)/common/mx_sc_gemm.o $(CA_RT_OBJ) $(CA_SIM_OBJ) $(BUILD)/libmxcore.a
$(CA_DIR)/mxsim-cosim-array-%: $(CA_DIR)/obj_%/cosim_array_main.o $(CA_DIR)/obj_%/array_model.o \
    $(CA_DIR)/vl_%/Vmx_array_ctrl__ALL.a $(CA_LINK_COMMON)
	$(CXX) $(LDFLAGS) -o $@ $^ $(CA_LIBS)
$(CA_DIR)/mxsim-cosim-array-bench-%: $(CA_DIR)/objb_%/cosim_array_main.o $(CA_DIR)/objb_%/array_model.o \
    $(CA_DIR)/vlb_%/Vmx_array_ctrl__ALL.a $(CA_LINK_COMMON)
	$(CXX) $(LDFLAGS) -o $@ $^ $(CA_LIBS)
# intermediate files of the pattern chains stay (they are the cache)
.PRECIOUS: $(CA_DIR)/vl_%/Vmx_array_ctrl__ALL.a $(CA_DIR)/vlb_%/Vmx_array_ctrl__ALL.a $(CA_DIR)/obj_%/cosim_array_main.o \
  $(CA_DIR)/obj_%/array_model.o $(CA_DIR)/objb_%/cosim_array_main.o $(CA_DIR)/objb_%/array_model.o \
  $(CA_DIR)/rt/%.o $(CA_DIR)/common/%.o

-include $(wildcard $(CA_DIR)/obj_*/*.d $(CA_DIR)/objb_*/*.d $(CA_DIR)/common/*.d)

$(CA_DIR)/rt/%.o: $(CA_VLROOT)/include/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CA_VLCXX) -c $< -o $@

# the regression's size, 4x4 L = 4, also as build/mxsim-cosim-array (make cosim-array)
$(BUILD)/mxsim-cosim-array: $(CA_DIR)/mxsim-cosim-array-4x4x4
	cp $< $@

# Array co-simulation speed (`make bench`, through bench-systemc): the
# Verilated controller + array without tracing, its C twin (models/array) and the C core's
# values (mx_pe_dot for every output, as array cycles per second) on the same
# GEMM (tests/systemc/bench_gemm.csv, 64x64x256 MXSF), 4x4, 8x8 and 16x16 at
# L = 8, one core.  The first run builds the three models (16x16: minutes).
CA_BENCH_BIN := $(CA_DIR)/mxsim-cosim-array-bench
.PHONY: bench-array
bench-array: $(CA_BENCH_BIN)-4x4x8 $(CA_BENCH_BIN)-8x8x8 $(CA_BENCH_BIN)-16x16x8
	@echo "== bench-array: array RTL co-simulation vs C models, one 64x64x256 MXSF GEMM (tests/systemc/bench_gemm.csv), one core"
	@$(CA_BENCH_BIN)-4x4x8 -c tests/systemc/bench_4x4_l8.yaml -t tests/systemc/bench_gemm.csv --quiet --repeat 10 | grep bench-array
	@$(CA_BENCH_BIN)-8x8x8 -c tests/systemc/bench_8x8_l8.yaml -t tests/systemc/bench_gemm.csv --quiet --repeat 20 | grep bench-array
	@$(CA_BENCH_BIN)-16x16x8 -c tests/systemc/bench_16x16_l8.yaml -t tests/systemc/bench_gemm.csv --quiet --repeat 40 | grep bench-array

# Small and non-square sizes (a 16x16 lint takes minutes on 2 cores; the
# 16x16 bench build Verilates with -Wall as well).
lint-array:
	$(CA_VL) --lint-only -Wall -Irtl --top-module mx_array $(CA_RTL)
	$(CA_VL) --lint-only -Wall -Irtl --top-module mx_array_ctrl $(CA_RTL)
	$(CA_VL) --lint-only -Wall -Irtl --top-module mx_array_ctrl -GR=2 -GC=2 -GLANES=2 $(CA_RTL)
	$(CA_VL) --lint-only -Wall -Irtl --top-module mx_array_ctrl -GR=3 -GC=5 -GLANES=2 $(CA_RTL)
	$(CA_VL) --lint-only -Wall -Irtl --top-module mx_array_ctrl -GR=4 -GC=6 -GLANES=2 -GTR=2 -GTC=3 $(CA_RTL)

lint:: lint-array

# MXSF (8x8 tiles) and BF16, ragged shapes and a 100-shape sweep, mixed A/B
# formats with FP5 bias 12 and fold-tile re-quantization, with and without
# output back-pressure, and a fault injected in PE (2, 1) that must be caught there.
# Every run also checks start-to-done against tile_done_schedule (without
# back-pressure exactly, with it within [unthrottled, + blocked output cycles]).
cosim-array: $(BUILD)/mxsim-cosim-array $(BUILD)/mxsim lint-array
	@# mk/vl_share_code.py: the PEs' clocked code has one body (or two) for PE (0, 0) and one (or two) for the 15 others
	@d=$(CA_DIR)/vl_4x4x4; f="void Vmx_array_ctrl_mx_pe[A-Za-z0-9_]*_nba_sequent__TOP__"; \
	  b=$$(grep -h "^VL_INLINE_OPT $$f" $$d/*.cpp | wc -l); s1=$$(grep -h "^    // mk/vl_share_code.py: the same logic as" $$d/*.cpp | wc -l); \
	  s2=$$(grep -h "^$$f.*{ .*(vlSelf); }$$" $$d/*.cpp | wc -l); n=$$((b + s2)); r=$$((b - s1)); \
	  if [ $$n -lt 16 ] || [ $$r -gt 4 ]; then echo "cosim-array: $$d: $$r of $$n PE clocked functions not shared (mk/vl_share_code.py)"; exit 1; fi; \
	  echo "cosim-array: $$d: $$((n - r)) of $$n PE clocked functions call a shared one"
	@# bench mode (--repeat): the replays of the RTL alone and of the C model alone give the checked run's outputs
	@$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/sc_small.csv --seed 3 --quiet --repeat 2 \
	  >$(CA_DIR)/bench.log || { cat $(CA_DIR)/bench.log; echo "cosim-array: --repeat 2 failed"; exit 1; }; \
	  grep -q "^bench-array  4x4  L=4: 766 cycles x 2 runs, cycles per CPU-second: RTL (Verilated) *[0-9]* | C register model *[0-9]* |" \
	  $(CA_DIR)/bench.log || { cat $(CA_DIR)/bench.log; echo "cosim-array: --repeat 2: no bench line"; exit 1; }; \
	  echo "cosim-array: --repeat 2: RTL and C model replays reproduce the checked run"
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/sc_small.csv --seed 3
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/sc_small.csv --seed 4 --backpressure 0.5 --quiet
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_bf16.yaml -t tests/systemc/sc_small_bf16.csv --seed 5
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_bf16.yaml -t tests/systemc/sc_small_bf16.csv --seed 6 --backpressure 0.7 --quiet
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/array_sweep.csv --seed 8 --quiet
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/array_sweep.csv --seed 9 --backpressure 0.6 --quiet
	@# mixed A/B formats, MXSF FP5 bias 12 (PEs and re-quantizer), tile re-quantization (rqu.block: tile)
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf_b12.yaml -t tests/systemc/sc_mixed.csv --seed 11
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf_b12.yaml -t tests/systemc/sc_mixed.csv --seed 12 --backpressure 0.5 --quiet
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf_b12.yaml -t tests/systemc/array_sweep.csv --seed 13 --quiet
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf_b12.yaml -t tests/systemc/array_sweep.csv --seed 14 --backpressure 0.6 --quiet
	@set +e; $(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/sc_small.csv --fault 2,1 --quiet \
	  2>$(CA_DIR)/fault.log; st=$$?; set -e; cat $(CA_DIR)/fault.log; \
	  if [ $$st -ne 1 ] || ! grep -q "PE row 2 column 1" $(CA_DIR)/fault.log; then \
	    echo "cosim-array: injected fault in PE (2, 1) was not caught and located"; exit 1; fi; \
	  echo "cosim-array: injected fault caught and located in PE (2, 1)"
	@# --data: operands from tests/systemc/data (both, A only, none), through `mxsim cosim`
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/sc_data.csv --seed 10 \
	  --data tests/systemc/data >$(CA_DIR)/data.log; cat $(CA_DIR)/data.log; \
	  grep -q "^npyfwd .*equal  (A, B from --data)$$" $(CA_DIR)/data.log && grep -q "^halfa .*equal  (A from --data)$$" $(CA_DIR)/data.log \
	  && grep -q "^plain .*equal$$" $(CA_DIR)/data.log || { echo "cosim-array: --data operands not used as expected"; exit 1; }
	@# truncated .npy (header intact, data cut): one error line naming the file, exit 2
	@rm -rf $(CA_DIR)/baddata; mkdir -p $(CA_DIR)/baddata; head -c 1000 tests/systemc/data/npyfwd.fwd.b.npy >$(CA_DIR)/baddata/npyfwd.fwd.b.npy
	@set +e; $(BUILD)/mxsim cosim --level array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/sc_data.csv --data $(CA_DIR)/baddata \
	  >/dev/null 2>$(CA_DIR)/baddata.log; st=$$?; set -e; cat $(CA_DIR)/baddata.log; \
	  if [ $$st -ne 2 ] || [ "$$(wc -l <$(CA_DIR)/baddata.log)" -ne 1 ] || ! grep -q "baddata/npyfwd.fwd.b.npy: .*truncated" $(CA_DIR)/baddata.log; then \
	    echo "cosim-array: truncated .npy: expected one error line naming the file and exit 2 (got $$st)"; exit 1; fi; \
	  echo "cosim-array: truncated .npy rejected with exit 2"

# Any configuration's size on demand, through `mxsim cosim --level array`
# (sim/cmd_cosim.c runs make for BUILD/cosim_array/mxsim-cosim-array-2x3x2 the
# first time: a Verilator build of about 15 s), and the run bounds, progress
# and the mismatch report on that size.  tests/systemc/sc_small.csv on 2x3
# L = 2: ten GEMMs, 2942 cycles + 2 reset cycles each; GEMM 0 'ragged' runs
# 162 cycles, GEMM 3 is 'wide'.
CA_ANY := $(CA_DIR)/any
.PHONY: cosim-array-any
# (the objects every size links are prerequisites, so that mxsim's own make,
# running under this one, never builds them at the same time as it)
cosim-array-any: $(BUILD)/mxsim $(CA_DIR)/fst_names $(CA_LINK_COMMON)
	@rm -rf $(CA_ANY); mkdir -p $(CA_ANY)
	@# from scratch, two runs started at once: one builds 2x3 L=2 (a progress line with an estimate)
	@# while the other waits for its lock (sim/cmd_cosim.c), then finds it built; both run and agree
	rm -rf $(CA_DIR)/vl_2x3x2 $(CA_DIR)/obj_2x3x2 $(CA_DIR)/mxsim-cosim-array-2x3x2
	@set +e; run="$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_2x3_l2.yaml -t tests/systemc/sc_small.csv --seed 3 --gemms 1"; \
	  $$run >$(CA_ANY)/build1.log 2>$(CA_ANY)/build1.err & p1=$$!; $$run >$(CA_ANY)/build2.log 2>$(CA_ANY)/build2.err & p2=$$!; \
	  wait $$p1; s1=$$?; wait $$p2; s2=$$?; set -e; \
	  cat $(CA_ANY)/build1.err $(CA_ANY)/build2.err; cat $(CA_ANY)/build1.err $(CA_ANY)/build2.err >$(CA_ANY)/build.err; \
	  [ $$s1 -eq 0 ] && [ $$s2 -eq 0 ] && cmp -s $(CA_ANY)/build1.log $(CA_ANY)/build2.log && grep -q " equal$$" $(CA_ANY)/build1.log \
	  || { echo "cosim-array-any: two concurrent first runs: exit $$s1 and $$s2, outputs differ or not equal"; exit 1; }
	@grep -q "^mxsim cosim: building the Verilated 2x3 array, 2 lanes (once; cached in .*/cosim_array/vl_2x3x2), about [0-9]* s with [0-9]* jobs; log .*/build-2x3x2.log$$" $(CA_ANY)/build.err \
	  && grep -q "^mxsim cosim: built the Verilated 2x3 array, 2 lanes in [0-9]* s$$" $(CA_ANY)/build.err \
	  && [ "$$(grep -c '^mxsim cosim: building ' $(CA_ANY)/build.err)" = 1 ] \
	  && [ "$$(grep -c '^mxsim cosim: waiting for another build of the Verilated 2x3 array, 2 lanes ' $(CA_ANY)/build.err)" = 1 ] \
	  && [ -x $(CA_DIR)/mxsim-cosim-array-2x3x2 ] || { echo "cosim-array-any: concurrent on-demand build of 2x3 L=2 not built exactly once under the lock"; exit 1; }
	@echo "cosim-array-any: two concurrent first runs: one built 2x3 L=2, the other waited for the lock; both equal"
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_2x3_l2.yaml -t tests/systemc/sc_small.csv --seed 3 --progress \
	  >$(CA_ANY)/run.log 2>$(CA_ANY)/run.err || { cat $(CA_ANY)/run.err; exit 1; }
	@cat $(CA_ANY)/run.log $(CA_ANY)/run.err
	@! grep -q "building" $(CA_ANY)/run.err || { echo "cosim-array-any: 2x3 L=2 built twice"; exit 1; }
	@grep -q "^mxsim-cosim-array: tests/systemc/sc_small.csv, 10 GEMMs, 2x3 array L=2, back-pressure 0.00: RTL == C model, 2942 cycles$$" $(CA_ANY)/run.log \
	  && grep -q "^progress: GEMM 10 of 10, 2962 cycles, [0-9]* cycles/s" $(CA_ANY)/run.err \
	  || { echo "cosim-array-any: 2x3 L=2 run or its progress line not as expected"; exit 1; }
	@# --max-cycles 100: 2 reset cycles + GEMM 0's cycles 0..97, then cut
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_2x3_l2.yaml -t tests/systemc/sc_small.csv --seed 3 --quiet \
	  --max-cycles 100 >$(CA_ANY)/cut.log
	@cat $(CA_ANY)/cut.log; grep -q "CUT by --max-cycles 100: GEMM 0 'ragged' (tests/systemc/sc_small.csv:6) stopped at its cycle 98 .*GEMMs 1..9 not run; 0 of 10 GEMMs compared in full$$" $(CA_ANY)/cut.log \
	  || { echo "cosim-array-any: --max-cycles cut not reported as expected"; exit 1; }
	@# --gemms 2: 'ragged' and 'square' only; --gemm 3: 'wide' only
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_2x3_l2.yaml -t tests/systemc/sc_small.csv --seed 3 --gemms 2 >$(CA_ANY)/gemms.log
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_2x3_l2.yaml -t tests/systemc/sc_small.csv --seed 3 --gemm 3 >$(CA_ANY)/gemm.log
	@cat $(CA_ANY)/gemms.log $(CA_ANY)/gemm.log
	@[ "$$(grep -c ' equal$$' $(CA_ANY)/gemms.log)" = 2 ] && grep -q "^ragged " $(CA_ANY)/gemms.log && grep -q "^square " $(CA_ANY)/gemms.log \
	  && grep -q "GEMMs 0..1 of 10 run (--gemms)" $(CA_ANY)/gemms.log \
	  && [ "$$(grep -c ' equal$$' $(CA_ANY)/gemm.log)" = 1 ] && grep -q "^wide  .* start-to-done    250 cycles" $(CA_ANY)/gemm.log \
	  || { echo "cosim-array-any: --gemms / --gemm ran the wrong GEMMs"; exit 1; }
	@# --gemm I reruns GEMM I with the stimulus it had in the whole trace, back-pressure included:
	@# its line (start-to-done 167 here, 162 unthrottled: it depends on the draws) equals the whole run's
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_2x3_l2.yaml -t tests/systemc/sc_rerun.csv --seed 7 --backpressure 0.8 >$(CA_ANY)/bp_all.log
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_2x3_l2.yaml -t tests/systemc/sc_rerun.csv --seed 7 --backpressure 0.8 --gemm 2 >$(CA_ANY)/bp_one.log
	@a=$$(grep "^ragged " $(CA_ANY)/bp_all.log); b=$$(grep "^ragged " $(CA_ANY)/bp_one.log); echo "$$a"; \
	  [ -n "$$a" ] && [ "$$a" = "$$b" ] && ! echo "$$a" | grep -q "start-to-done    162 " \
	  || { echo "cosim-array-any: --gemm 2 with back-pressure differs from GEMM 2 of the whole run: $$b"; exit 1; }
	@# a trace index past the end: one line, exit 2
	@set +e; $(BUILD)/mxsim cosim --level array -c tests/systemc/sc_2x3_l2.yaml -t tests/systemc/sc_small.csv --gemm 10 \
	  >/dev/null 2>$(CA_ANY)/bad.log; st=$$?; set -e; cat $(CA_ANY)/bad.log; \
	  [ $$st -eq 2 ] && [ "$$(wc -l <$(CA_ANY)/bad.log)" -eq 1 ] && grep -q "'--gemm': .*10 GEMMs (0..9), got 10" $(CA_ANY)/bad.log \
	  || { echo "cosim-array-any: --gemm 10 not refused"; exit 1; }
	@# fault in PE (1, 2), first hit in GEMM 2 'ragged' of tests/systemc/sc_rerun.csv, with back-pressure:
	@# caught at that PE, rich report, .gtkw naming only signals of the FST, rerun line reproducing it
	@set +e; $(BUILD)/mxsim cosim --level array -c tests/systemc/sc_2x3_l2.yaml -t tests/systemc/sc_rerun.csv --seed 7 \
	  --backpressure 0.5 --fault 1,2 --quiet --fst $(CA_ANY)/fault.fst 2>$(CA_ANY)/fault.log; st=$$?; set -e; cat $(CA_ANY)/fault.log; \
	  [ $$st -eq 1 ] || { echo "cosim-array-any: fault not caught (exit $$st)"; exit 1; }
	@grep -q "^MISMATCH cycle [0-9]* (GEMM 2 'ragged', tests/systemc/sc_rerun.csv:6): PE row 1 column 2: PE result (u_pe.out_o) expected 0x[0-9a-f]* actual 0x[0-9a-f]*$$" $(CA_ANY)/fault.log \
	  && grep -q "^  PE (1, 2) output: C model 0x[0-9a-f]\{8\}, RTL u_pe.out_o 0x[0-9a-f]\{8\}; its output (m, n) = (1, 2) (fold rows 0.., columns 0..): mx_pe_dot 0x" $(CA_ANY)/fault.log \
	  && grep -q "^  stimulus: GEMM 2 'ragged' 5x7x33 mxsf, operands seeded N(0,1), seed 7 + 2; C\[1\]\[2\]" $(CA_ANY)/fault.log \
	  && grep -q "^    A row 1 codes: " $(CA_ANY)/fault.log && grep -q "^    B column 2 codes: " $(CA_ANY)/fault.log \
	  && grep -q "^  rerun: .*mxsim cosim --level array -c tests/systemc/sc_2x3_l2.yaml -t tests/systemc/sc_rerun.csv --seed 7 --gemm 2 --backpressure 0.5 --fault 1,2 --fst $(CA_ANY)/fault.fst$$" $(CA_ANY)/fault.log \
	  && grep -q "^  waveform: $(CA_ANY)/fault.fst: GEMM 2 cycles [0-9]*\.\.[0-9]* = times [0-9]*\.\.[0-9]*" $(CA_ANY)/fault.log \
	  && grep -q "^  gtkwave: $(CA_ANY)/fault.fst.gtkw " $(CA_ANY)/fault.log \
	  || { echo "cosim-array-any: fault report incomplete"; exit 1; }
	@# the mismatch report's PE values: RTL = mx_pe_dot, twin = that with bit 0 flipped (the injected fault)
	@sed -n "s/^  PE (1, 2) output: C model 0x\([0-9a-f]*\), RTL u_pe.out_o 0x\([0-9a-f]*\); .*mx_pe_dot 0x\([0-9a-f]*\)$$/\1 \2 \3/p" $(CA_ANY)/fault.log \
	  >$(CA_ANY)/pe_vals.txt; set -- $$(cat $(CA_ANY)/pe_vals.txt); \
	  [ $$# -eq 3 ] && [ "$$2" = "$$3" ] && [ $$(( 0x$$1 ^ 0x$$2 )) -eq 1 ] \
	  || { echo "cosim-array-any: PE values in the report: want RTL = mx_pe_dot and twin = it with bit 0 flipped"; exit 1; }; \
	  echo "cosim-array-any: PE (1, 2): RTL 0x$$2 = mx_pe_dot, twin 0x$$1 = bit 0 flipped (the injected fault)"
	$(CA_DIR)/fst_names $(CA_ANY)/fault.fst >$(CA_ANY)/fst_names.txt
	@n=0; for s in $$(grep -v '^[[@*-]' $(CA_ANY)/fault.fst.gtkw); do n=$$((n+1)); \
	  grep -qxF "$$s" $(CA_ANY)/fst_names.txt || { echo "cosim-array-any: $$s in the .gtkw is not in the FST"; exit 1; }; done; \
	  grep -q "^\[dumpfile\] \"$(abspath $(CA_ANY))/fault.fst\"$$" $(CA_ANY)/fault.fst.gtkw && [ $$n -ge 10 ] \
	  || { echo "cosim-array-any: .gtkw dumpfile or signal list wrong"; exit 1; }; echo "cosim-array-any: .gtkw: $$n signals, all in the FST"
	@cmd=$$(sed -n 's/^  rerun: //p' $(CA_ANY)/fault.log | sed 's/--fst [^ ]*$$/--quiet --fst $(subst /,\/,$(CA_ANY))\/rerun.fst/'); \
	  set +e; $$cmd 2>$(CA_ANY)/rerun.log; st=$$?; set -e; \
	  [ $$st -eq 1 ] && [ "$$(grep ^MISMATCH $(CA_ANY)/rerun.log)" = "$$(grep ^MISMATCH $(CA_ANY)/fault.log)" ] \
	  || { echo "cosim-array-any: the rerun line did not reproduce the mismatch"; cat $(CA_ANY)/rerun.log; exit 1; }; \
	  echo "cosim-array-any: rerun line reproduces: $$(grep ^MISMATCH $(CA_ANY)/rerun.log)"
cosim-array: cosim-array-any

# Issue 14: the re-quantizer's tiles smaller than the array (rqu.block: tile,
# format.tile [2, 2]: one max tree per 2x2 sub-block of a fold) against
# mx_requant_comb per 2x2 tile of the output matrix, with and without output
# back-pressure, on a 4x4 array (4 tiles per fold) and a non-square 2x4 one
# (2 per fold), both L = 2, built on demand as RxCxLxTRxTC (tiles equal to
# the array: sc_mxsf_b12.yaml in cosim-array); and a tile straddling folds
# (8x8 on 4x4) refused by the config check: one line naming the key, exit 2.
CA_TILES := $(CA_DIR)/tiles
.PHONY: cosim-array-tiles
cosim-array-tiles: $(BUILD)/mxsim $(CA_LINK_COMMON)
	@mkdir -p $(CA_TILES)
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_4x4_l2_t2.yaml -t tests/systemc/sc_mixed.csv --seed 21 --quiet
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_4x4_l2_t2.yaml -t tests/systemc/sc_mixed.csv --seed 22 --backpressure 0.5 --quiet
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_4x4_l2_t2.yaml -t tests/systemc/array_sweep.csv --seed 23 --quiet
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_4x4_l2_t2.yaml -t tests/systemc/array_sweep.csv --seed 24 --backpressure 0.6 --quiet
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_2x4_l2_t2.yaml -t tests/systemc/sc_mixed.csv --seed 25 --quiet
	$(BUILD)/mxsim cosim --level array -c tests/systemc/sc_2x4_l2_t2.yaml -t tests/systemc/sc_mixed.csv --seed 26 --backpressure 0.5 --quiet
	@sed 's/^  tile: .*/  tile: [8, 8]/; s|\.\./\.\./configs/|$(abspath configs)/|' tests/systemc/sc_mxsf_b12.yaml >$(CA_TILES)/straddle.yaml
	@set +e; $(BUILD)/mxsim cosim --level array -c $(CA_TILES)/straddle.yaml -t tests/systemc/sc_small.csv \
	  >/dev/null 2>$(CA_TILES)/straddle.log; st=$$?; set -e; cat $(CA_TILES)/straddle.log; \
	  [ $$st -eq 2 ] && [ "$$(wc -l <$(CA_TILES)/straddle.log)" -eq 1 ] \
	  && grep -q "straddle.yaml: key 'format.tile': with rqu.block: tile the 8x8 tile must divide the 4x4 array" $(CA_TILES)/straddle.log \
	  || { echo "cosim-array-tiles: an 8x8 tile on a 4x4 array not refused (exit $$st)"; exit 1; }
cosim-array: cosim-array-tiles

# FST signal lister (sim/cosim_array/fst_names.c on Verilator's bundled FST reader)
$(CA_DIR)/fst_names: sim/cosim_array/fst_names.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g $(WARN) -isystem $(CA_VLROOT)/include/gtkwave -c $< -o $@.o
	$(CC) -O1 -w -DFST_CONFIG_INCLUDE='"fst_config.h"' -I$(CA_VLROOT)/include/gtkwave -o $@ $@.o \
	  $(CA_VLROOT)/include/gtkwave/fstapi.c $(CA_VLROOT)/include/gtkwave/lz4.c $(CA_VLROOT)/include/gtkwave/fastlz.c -lz

# Issue 13: each co-simulated tile's start-to-done cycles (start_i to done_o:
# descriptor, SRAM read, skew, folds, drain, re-quantization) against the
# cycle engine's tile record on a config matching the RTL (--engine;
# docs/DATAPATH.md "Start-to-done against the cycle engine").  Without
# back-pressure (with it every cosim-array run already checks the RTL against
# its unthrottled schedule).  Part of cosim-array, so of `make test`.
.PHONY: cosim-array-engine
cosim-array-engine: $(BUILD)/mxsim-cosim-array
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/sc_small.csv --seed 3 --engine --quiet
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_bf16.yaml -t tests/systemc/sc_small_bf16.csv --seed 5 --engine --quiet
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/array_sweep.csv --seed 8 --engine --quiet
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf_b12.yaml -t tests/systemc/sc_mixed.csv --seed 11 --engine --quiet
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf_b12.yaml -t tests/systemc/array_sweep.csv --seed 13 --engine --quiet

# `make cosim` (and with it `make test`) runs the array co-simulation after the unit regression.
cosim-run: cosim-array
cosim-array: cosim-array-engine

# The array co-simulation again with the harness, its C twin (models/array) and the C core
# built with ASan + UBSan (the Verilated model uninstrumented), in $(BUILD)/san.
.PHONY: cosim-array-san
cosim-array-san:
	+$(MAKE) BUILD=$(BUILD)/san SAN=1 OPT=-O1 cosim-array
test-extra:: cosim-array-san

# Area of a small array (2x2 PEs, L = 2, all formats) and of the controller
# with it (yosys generic cells; Nangate45-proxy area as `make area`).
area-array:
	@sh mk/area_array.sh $(or $(YOSYS),yosys) $(BUILD)/area_array 2 2 2
endif

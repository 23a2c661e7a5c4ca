# mk/cosim_array.mk — whole-GEMM co-simulation of rtl/mx_array_ctrl.sv (the
# descriptor-driven controller + mx_array + re-quantizing output stage):
# build/mxsim-cosim-array (`make cosim-array`, part of `make test`), the
# array benchmark (`make bench-array`, 4x4 and 16x16 at L = 8) and the array's
# synthesis (`make area-array`, yosys generic cells, 2x2 L = 2).
# One Verilator build per array size (-G parameters), cached under
# build/cosim_array/vl_RxCxL; tests use 4x4 L = 4 with -O1.

ifndef CA_DIR  # included by the Makefile and by mk/systemc.mk (whichever comes first)
CA_DIR    := $(BUILD)/cosim_array
CA_VL     := $(or $(VERILATOR),verilator)
CA_VLROOT := $(shell $(CA_VL) --getenv VERILATOR_ROOT 2>/dev/null)
CA_RTL    := rtl/mx_pkg.sv rtl/mx_decode.sv rtl/mx_mul.sv rtl/mx_align.sv rtl/mx_addtree.sv \
             rtl/mx_fp32_round.sv rtl/mx_fp32_add.sv rtl/mx_accum.sv rtl/mx_pe.sv rtl/mx_skew.sv \
             rtl/mx_array.sv rtl/mx_requant.sv rtl/mx_array_ctrl.sv
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

# $(call ca_size,R,C,L,OPT,TRACE): Verilated library and harness binary for one
# size; TRACE = --trace-fst (waveforms, --fst) or empty (bench builds).
#   $(CA_DIR)/vl_RxCxL/Vmx_array_ctrl__ALL.a, $(BUILD)/mxsim-cosim-array-RxCxL
define ca_size
$(CA_DIR)/vl_$(1)x$(2)x$(3)/Vmx_array_ctrl__ALL.a: $(CA_RTL)
	@mkdir -p $(CA_DIR)/vl_$(1)x$(2)x$(3)
	$(CA_VL) --cc $(5) -Wall -Irtl --x-assign fast --x-initial fast --top-module mx_array_ctrl \
	  -GR=$(1) -GC=$(2) -GLANES=$(3) -GALIGN_W=32 --prefix Vmx_array_ctrl -Mdir $(CA_DIR)/vl_$(1)x$(2)x$(3) $(CA_RTL)
	+$(MAKE) -s -C $(CA_DIR)/vl_$(1)x$(2)x$(3) -f Vmx_array_ctrl.mk Vmx_array_ctrl__ALL.a OPT_FAST=$(4) OPT_SLOW=-O0 OPT_GLOBAL=-O1

$(CA_DIR)/obj_$(1)x$(2)x$(3)/%.o: sim/cosim_array/%.cpp $(CA_DIR)/vl_$(1)x$(2)x$(3)/Vmx_array_ctrl__ALL.a
	@mkdir -p $$(dir $$@)
	$(CXX) -std=c++17 -O2 -g $(WARN) -Imodels -Isim -Isim/cosim_array $(CA_VLINC) -isystem $(CA_DIR)/vl_$(1)x$(2)x$(3) \
	  $(CA_VLDEF) $(if $(5),,-DCA_NO_TRACE) -DARR_R=$(1) -DARR_C=$(2) -DARR_L=$(3) -MMD -MP $(SANFLAGS) -c $$< -o $$@

$(CA_DIR)/obj_$(1)x$(2)x$(3)/mx_sc_gemm.o: sim/systemc/mx_sc_gemm.cpp
	@mkdir -p $$(dir $$@)
	$(CXX) -std=c++17 -O2 -g $(WARN) -Imodels -Isim -MMD -MP $(SANFLAGS) -c $$< -o $$@

$(BUILD)/mxsim-cosim-array-$(1)x$(2)x$(3): $(CA_DIR)/obj_$(1)x$(2)x$(3)/cosim_array_main.o $(CA_DIR)/obj_$(1)x$(2)x$(3)/array_model.o \
    $(CA_DIR)/obj_$(1)x$(2)x$(3)/mx_sc_gemm.o $(CA_DIR)/vl_$(1)x$(2)x$(3)/Vmx_array_ctrl__ALL.a $(CA_RT_OBJ) \
    $(CA_SIM_OBJ) $(BUILD)/libmxcore.a
	$(CXX) $(LDFLAGS) -o $$@ $$^ $(CA_LIBS)

-include $$(wildcard $(CA_DIR)/obj_$(1)x$(2)x$(3)/*.d)
endef

$(eval $(call ca_size,4,4,4,-O1,--trace-fst))
# bench sizes at -Os: the 16 x 16 model's per-instance code (~22 MB) makes it
# instruction-cache bound; -Os ran it 1.6-1.8x faster than -O1 (docs/SYSTEMC.md)
$(eval $(call ca_size,4,4,8,-Os,))
$(eval $(call ca_size,16,16,8,-Os,))

$(CA_DIR)/rt/%.o: $(CA_VLROOT)/include/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CA_VLCXX) -c $< -o $@

$(BUILD)/mxsim-cosim-array: $(BUILD)/mxsim-cosim-array-4x4x4
	cp $< $@

# Small and non-square sizes (a 16x16 lint takes minutes on 2 cores; the
# 16x16 bench build Verilates with -Wall as well).
lint-array:
	$(CA_VL) --lint-only -Wall -Irtl --top-module mx_array $(CA_RTL)
	$(CA_VL) --lint-only -Wall -Irtl --top-module mx_array_ctrl $(CA_RTL)
	$(CA_VL) --lint-only -Wall -Irtl --top-module mx_array_ctrl -GR=2 -GC=2 -GLANES=2 $(CA_RTL)
	$(CA_VL) --lint-only -Wall -Irtl --top-module mx_array_ctrl -GR=3 -GC=5 -GLANES=2 $(CA_RTL)

lint:: lint-array

# MXSF (8x8 tiles) and BF16, ragged shapes and a 100-shape sweep, mixed A/B
# formats with FP5 bias 12 and fold-tile re-quantization, with and without
# output back-pressure, and a fault injected in PE (2, 1) that must be caught there.
# Every run also checks start-to-done against tile_done_schedule (without
# back-pressure exactly, with it within [unthrottled, + blocked output cycles]).
cosim-array: $(BUILD)/mxsim-cosim-array $(BUILD)/mxsim lint-array
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

# The array co-simulation again with the harness, its C++ twin and the C core
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

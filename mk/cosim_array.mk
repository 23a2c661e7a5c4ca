# mk/cosim_array.mk — whole-GEMM co-simulation of rtl/mx_array.sv
# (build/mxsim-cosim-array, `make cosim-array`), part of `make test`.
# The array is Verilated once (4x4, L = 4, -O1) under build/cosim_array/.

CA_DIR    := $(BUILD)/cosim_array
CA_R      := 4
CA_C      := 4
CA_L      := 4
CA_VL     := $(or $(VERILATOR),verilator)
CA_VLROOT := $(shell $(CA_VL) --getenv VERILATOR_ROOT 2>/dev/null)
CA_RTL    := rtl/mx_pkg.sv rtl/mx_decode.sv rtl/mx_mul.sv rtl/mx_align.sv rtl/mx_addtree.sv \
             rtl/mx_fp32_round.sv rtl/mx_fp32_add.sv rtl/mx_accum.sv rtl/mx_pe.sv rtl/mx_skew.sv rtl/mx_array.sv
CA_CXXFLAGS := -std=c++17 -O1 -g $(WARN) -Imodels -Isim -Isim/cosim_array -isystem $(CA_VLROOT)/include \
               -isystem $(CA_VLROOT)/include/vltstd -isystem $(CA_DIR)/vl \
               -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_COVERAGE=0 -DVM_SC=0 \
               -DARR_R=$(CA_R) -DARR_C=$(CA_C) -DARR_L=$(CA_L) -MMD -MP
CA_VLCXX  := -std=c++17 -O1 -isystem $(CA_VLROOT)/include -isystem $(CA_VLROOT)/include/vltstd \
             -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_COVERAGE=0 -DVM_SC=0

.PHONY: cosim-array lint-array

$(CA_DIR)/vl/Vmx_array__ALL.a: $(CA_RTL) mk/cosim_array.mk
	@mkdir -p $(CA_DIR)/vl
	$(CA_VL) --cc --trace-fst -Wall -Irtl --x-assign fast --x-initial fast --top-module mx_array \
	  -GR=$(CA_R) -GC=$(CA_C) -GLANES=$(CA_L) -GALIGN_W=32 --prefix Vmx_array -Mdir $(CA_DIR)/vl $(CA_RTL)
	+$(MAKE) -s -C $(CA_DIR)/vl -f Vmx_array.mk Vmx_array__ALL.a OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1

$(CA_DIR)/rt/%.o: $(CA_VLROOT)/include/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CA_VLCXX) -c $< -o $@

$(CA_DIR)/obj/%.o: sim/cosim_array/%.cpp $(CA_DIR)/vl/Vmx_array__ALL.a
	@mkdir -p $(dir $@)
	$(CXX) $(CA_CXXFLAGS) -c $< -o $@

$(CA_DIR)/obj/mx_sc_gemm.o: sim/systemc/mx_sc_gemm.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CA_CXXFLAGS) -c $< -o $@

$(BUILD)/mxsim-cosim-array: $(CA_DIR)/obj/cosim_array_main.o $(CA_DIR)/obj/array_model.o $(CA_DIR)/obj/mx_sc_gemm.o \
                            $(CA_DIR)/vl/Vmx_array__ALL.a $(CA_DIR)/rt/verilated.o $(CA_DIR)/rt/verilated_fst_c.o $(CA_DIR)/rt/verilated_threads.o \
                            $(BUILD)/obj/sim/config_yaml.o $(BUILD)/libmxcore.a
	$(CXX) -o $@ $^ -lyaml-cpp -lz -lpthread -lm

-include $(wildcard $(CA_DIR)/obj/*.d)

lint-array:
	$(CA_VL) --lint-only -Wall -Irtl --top-module mx_array $(CA_RTL)
	$(CA_VL) --lint-only -Wall -Irtl --top-module mx_array -GR=16 -GC=16 -GLANES=8 $(CA_RTL)

lint:: lint-array

# MXSF (8x8 tiles) and BF16, ragged shapes, with and without output
# back-pressure, and a fault injected in PE (2, 1) that must be caught there.
cosim-array: $(BUILD)/mxsim-cosim-array lint-array
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/sc_small.csv --seed 3
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/sc_small.csv --seed 4 --backpressure 0.5 --quiet
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_bf16.yaml -t tests/systemc/sc_small_bf16.csv --seed 5
	$(BUILD)/mxsim-cosim-array -c tests/systemc/sc_bf16.yaml -t tests/systemc/sc_small_bf16.csv --seed 6 --backpressure 0.7 --quiet
	@set +e; $(BUILD)/mxsim-cosim-array -c tests/systemc/sc_mxsf.yaml -t tests/systemc/sc_small.csv --fault 2,1 --quiet \
	  2>$(CA_DIR)/fault.log; st=$$?; set -e; cat $(CA_DIR)/fault.log; \
	  if [ $$st -ne 1 ] || ! grep -q "PE row 2 column 1" $(CA_DIR)/fault.log; then \
	    echo "cosim-array: injected fault in PE (2, 1) was not caught and located"; exit 1; fi; \
	  echo "cosim-array: injected fault caught and located in PE (2, 1)"

test-extra:: cosim-array

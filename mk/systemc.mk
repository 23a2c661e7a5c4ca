# mk/systemc.mk — the SystemC/TLM-2.0 platform (sim/systemc, docs/SYSTEMC.md).
#   build/systemc/mxsim_sc_top    example top, C-core and RTL back-ends
#   build/systemc/mxsim_sc_test   regression: SystemC run == C model, CYCLES == reviewed golden == cycle engine (make test-systemc)
#   build/systemc/mxsim_sc_regtest register map;  build/systemc/mxsim_sc_memtest memory target delays (DRAM model)
# The RTL back-end links rtl/mx_array_ctrl.sv Verilated with `verilator --sc`
# (an sc_module, Vmx_array_ctrl_sc) and the Verilator runtime compiled for
# SystemC (VM_SC=1), both cached under build/systemc/.  Array size of the RTL
# back-end: SC_ARRAY = RxCxL (default 4x4x4, the regression's); another size
# builds into build/systemc/RxCxL/ (e.g. make systemc SC_ARRAY=8x8x8).
# Included by the top Makefile; variables are prefixed SC_.

include mk/cosim_array.mk   # CA_* (guarded: read once)

SC_DIR      := $(BUILD)/systemc
SC_CXXFLAGS := -std=c++17 -O1 -g $(WARN) -Imodels -Isim -Isim/systemc -Itests -MMD -MP $(SANFLAGS)
SC_LIBS     := -lsystemc -lyaml-cpp -linih -lm -lpthread -lz
# the sim layer's objects the platform needs: config (+ memory.dram presets), operand files
SC_SIM_OBJ  := $(CA_SIM_OBJ)
SC_COMMON   := mx_sc_gemm mx_sc_accel mx_sc_platform mx_sc_run
SC_COMMON_OBJ := $(SC_COMMON:%=$(SC_DIR)/obj/%.o)
SC_ARRAY    ?= 4x4x4
sc_dims     := $(subst x, ,$(SC_ARRAY))
SC_R        := $(word 1,$(sc_dims))
SC_C        := $(word 2,$(sc_dims))
SC_L        := $(word 3,$(sc_dims))
SC_BIN      := $(SC_DIR)$(if $(filter-out 4x4x4,$(SC_ARRAY)),/$(SC_ARRAY))
SC_VLDIR    := $(SC_DIR)/vl_sc_$(SC_ARRAY)
SC_VLDEF    := -DVM_TRACE=0 -DVM_COVERAGE=0 -DVM_SC=1
SC_RT_OBJ   := $(SC_DIR)/rt/verilated.o $(SC_DIR)/rt/verilated_threads.o
SC_RTL_OBJ  := $(SC_DIR)/obj_$(SC_ARRAY)/mx_sc_rtl_backend.o $(SC_DIR)/obj/array_model.o \
               $(SC_VLDIR)/Vmx_array_ctrl_sc__ALL.a $(SC_RT_OBJ)

.PHONY: systemc test-systemc bench-systemc

systemc: $(SC_BIN)/mxsim_sc_top $(SC_BIN)/mxsim_sc_test $(SC_DIR)/mxsim_sc_regtest $(SC_DIR)/mxsim_sc_memtest

$(SC_DIR)/obj/%.o: sim/systemc/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(SC_CXXFLAGS) -c $< -o $@

# rtl/mx_array_ctrl.sv as a SystemC module: verilator --sc, SC_ARRAY's size,
# the array co-simulation's Verilator flags, mk/cosim_array.vlt (one copy of
# the PE's code for all PEs) and C++ flags (mk/cosim_array.mk ca_verilate)
$(SC_VLDIR)/Vmx_array_ctrl_sc__ALL.a: $(CA_RTL) $(CA_VLGEN)
	$(call ca_verilate,$(SC_VLDIR),$(SC_ARRAY),--sc,Vmx_array_ctrl_sc)

$(SC_DIR)/rt/%.o: $(CA_VLROOT)/include/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O1 $(CA_VLINC) $(SC_VLDEF) -c $< -o $@

$(SC_DIR)/obj_$(SC_ARRAY)/mx_sc_rtl_backend.o: sim/systemc/mx_sc_rtl_backend.cpp $(SC_VLDIR)/Vmx_array_ctrl_sc__ALL.a
	@mkdir -p $(dir $@)
	$(CXX) $(SC_CXXFLAGS) -Isim/cosim_array $(CA_VLINC) -isystem $(SC_VLDIR) $(SC_VLDEF) \
	  -DARR_R=$(SC_R) -DARR_C=$(SC_C) -DARR_L=$(SC_L) -c $< -o $@

$(SC_DIR)/obj/array_model.o: sim/cosim_array/array_model.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(SC_CXXFLAGS) -Isim/cosim_array -c $< -o $@

$(SC_BIN)/mxsim_sc_top: $(SC_DIR)/obj/mxsim_sc_top.o $(SC_COMMON_OBJ) $(SC_RTL_OBJ) \
                        $(SC_SIM_OBJ) $(BUILD)/libmxcore.a
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) -o $@ $^ $(SC_LIBS)

$(SC_BIN)/mxsim_sc_test: $(SC_DIR)/obj/mxsim_sc_test.o $(SC_COMMON_OBJ) $(SC_RTL_OBJ) \
                         $(SC_SIM_OBJ) $(BUILD)/obj/tests/ref/mx_ref_dot.o $(BUILD)/libmxcore.a
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) -o $@ $^ $(SC_LIBS)

# register-interface test bench (C core back-end only)
$(SC_DIR)/mxsim_sc_regtest: $(SC_DIR)/obj/mxsim_sc_regtest.o $(SC_COMMON_OBJ) \
                            $(SC_SIM_OBJ) $(BUILD)/libmxcore.a
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) -o $@ $^ $(SC_LIBS)

# memory target timing (mx_sc_memory with and without the DRAM model)
$(SC_DIR)/mxsim_sc_memtest: $(SC_DIR)/obj/mxsim_sc_memtest.o $(SC_SIM_OBJ) $(BUILD)/libmxcore.a
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) -o $@ $^ $(SC_LIBS)

-include $(wildcard $(SC_DIR)/obj/*.d $(SC_DIR)/obj_*/*.d)

# SystemC run vs the C model's functional run and the exact reference, per
# GEMM and back-end (C core and Verilated RTL): cycles and output bits
# (tests/systemc/); the RTL back-end is built for their 4x4, L = 4 array.
# Then the example top with each back-end (FORMAT.RQ from the config's
# format.out): the two dumps (FP32, codes, scales) must be identical.
test-systemc: $(SC_DIR)/mxsim_sc_test $(SC_DIR)/mxsim_sc_top $(SC_DIR)/mxsim_sc_regtest $(SC_DIR)/mxsim_sc_memtest
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_regtest tests/systemc/sc_mxsf.yaml
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_memtest tests/systemc/sc_ddr4.yaml
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_test tests/systemc/sc_mxsf.yaml tests/systemc/sc_small.csv
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_test tests/systemc/sc_bf16.yaml tests/systemc/sc_small_bf16.csv
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_test tests/systemc/sc_mxsf_b12.yaml tests/systemc/sc_mixed.csv
	@# 2x2 re-quantization tiles on a 4x4 array (C back-end: the RTL back-end is built with the 4x4 fold tile)
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_test tests/systemc/sc_4x4_l2_t2.yaml tests/systemc/sc_mixed.csv
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_test tests/systemc/sc_mxsf.yaml tests/systemc/sc_data.csv 10 tests/systemc/data
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_test tests/systemc/sc_ddr4.yaml tests/systemc/sc_small.csv
	sh mk/systemc_badinput.sh $(SC_DIR)/mxsim_sc_top
	@for b in c rtl; do SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_top -c tests/systemc/sc_mxsf.yaml \
	  -t tests/systemc/sc_small.csv --backend $$b --dump $(SC_DIR)/top_$$b.dump >$(SC_DIR)/top_$$b.log || exit 1; done
	@tail -3 $(SC_DIR)/top_rtl.log
	@n=$$(awk 'NF == 6' $(SC_DIR)/top_rtl.dump | wc -l); \
	  if ! cmp -s $(SC_DIR)/top_c.dump $(SC_DIR)/top_rtl.dump || [ $$n -ne 626 ]; then \
	    echo "test-systemc: mxsim_sc_top dumps differ between back-ends or miss re-quantized outputs ($$n of 626)"; exit 1; fi; \
	  echo "test-systemc: mxsim_sc_top c and rtl back-ends: all equal (626 outputs with codes and scales)"
	@# --data: operands from tests/systemc/data (.npy) where present: both back-ends equal,
	@# and the GEMMs with files differ from their seeded-random run, the one without is the same
	@for b in c rtl; do SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_top -c tests/systemc/sc_mxsf.yaml \
	  -t tests/systemc/sc_data.csv --backend $$b --data tests/systemc/data --dump $(SC_DIR)/data_$$b.dump >/dev/null || exit 1; done
	@SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_top -c tests/systemc/sc_mxsf.yaml -t tests/systemc/sc_data.csv \
	  --dump $(SC_DIR)/nodata.dump >/dev/null
	@if cmp -s $(SC_DIR)/data_c.dump $(SC_DIR)/data_rtl.dump && \
	  [ "$$(grep -c '^[01] ' $(SC_DIR)/data_c.dump)" -eq 65 ] && \
	  [ "$$(grep '^[01] ' $(SC_DIR)/data_c.dump | grep -Fxvf $(SC_DIR)/nodata.dump | wc -l)" -gt 60 ] && \
	  [ "$$(grep '^2 ' $(SC_DIR)/data_c.dump | md5sum)" = "$$(grep '^2 ' $(SC_DIR)/nodata.dump | md5sum)" ]; then \
	  echo "test-systemc: mxsim_sc_top --data: all equal (c == rtl; file operands used, plain row unchanged)"; \
	else echo "test-systemc: mxsim_sc_top --data: dumps not as expected ($(SC_DIR)/data_*.dump)"; exit 1; fi

# The reviewed CYCLES of the regression's GEMMs (mxsim_sc_test checks the
# platform's register against them): regenerate after a reviewed model change
# and commit with the reason.  Rows: config trace line name cycles (of one
# instance of a row with count > 1, as the platform runs it).
SC_GOLDEN_RUNS := sc_mxsf.yaml:sc_small.csv sc_bf16.yaml:sc_small_bf16.csv sc_mxsf_b12.yaml:sc_mixed.csv \
                  sc_mxsf.yaml:sc_data.csv sc_ddr4.yaml:sc_small.csv sc_4x4_l2_t2.yaml:sc_mixed.csv
.PHONY: golden-systemc-cycles
golden-systemc-cycles: all
	@{ echo "# config trace line name cycles: reviewed CYCLES (make golden-systemc-cycles; mxsim run --engine cycle)"; \
	  for r in $(SC_GOLDEN_RUNS); do c=$${r%%:*}; t=$${r#*:}; \
	    $(BUILD)/mxsim run -q --no-progress --engine cycle -c tests/systemc/$$c -t tests/systemc/$$t -o $(SC_DIR)/golden >/dev/null || exit 1; \
	    python3 -c 'import json,sys; [print(sys.argv[1], sys.argv[2], g["line"], g["name"], g["cycles"] // g["count"], sep="\t") for g in json.load(open(sys.argv[3]))["gemms"] if g["cycles"] % g["count"] == 0]' \
	      $$c $$t $(SC_DIR)/golden/report.json || exit 1; \
	  done; } > tests/systemc/golden_cycles.tsv.tmp && mv tests/systemc/golden_cycles.tsv.tmp tests/systemc/golden_cycles.tsv
	@git diff --stat -- tests/systemc/golden_cycles.tsv 2>/dev/null || true

test-extra:: test-systemc

# The same SystemC tests built with ASan + UBSan (SANFLAGS; the Verilated model
# and the Verilator runtime are not instrumented), in $(BUILD)/san.  Leak
# checking is off here only: LeakSanitizer's stop-the-world tracer crashes
# intermittently at exit on SystemC's coroutine stacks ("stack pointer not in
# stack range", "Tracer caught signal 11": 2 of 3 runs of mxsim_sc_regtest);
# address and undefined-behaviour checks stay on.
.PHONY: test-systemc-san
test-systemc-san:
	+ASAN_OPTIONS=detect_leaks=0 $(MAKE) BUILD=$(BUILD)/san SAN=1 OPT=-O1 test-systemc

test-extra:: test-systemc-san

# RTL co-simulation speed (Verilated mx_array_ctrl, cycles/s) next to the C++
# cycle twin and the C core's values, same GEMM (64x64x256 MXSF), 4x4, 8x8 and
# 16x16 arrays at L = 8: bench-array in mk/cosim_array.mk.
bench-systemc: bench-array $(SC_DIR)/mxsim_sc_top
	@# the SystemC platform (example top) on the same GEMM, 4x4 L = 4, each back-end: wall time
	@for b in c rtl; do t0=$$(date +%s.%N); \
	  SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_top -c tests/systemc/sc_mxsf.yaml -t tests/systemc/bench_gemm.csv \
	    --backend $$b >$(SC_DIR)/bench_$$b.log || exit 1; t1=$$(date +%s.%N); \
	  echo "$$t0 $$t1" | awk -v b=$$b '{printf "bench-systemc 4x4 L=4: one 64x64x256 MXSF GEMM through mxsim_sc_top, %-3s back-end %6.2f s wall\n", b, $$2 - $$1}'; done

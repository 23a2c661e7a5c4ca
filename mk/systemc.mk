# mk/systemc.mk — the SystemC/TLM-2.0 platform (sim/systemc, docs/SYSTEMC.md).
#   build/systemc/mxsim_sc_top    example top, C-core back-end (+ RTL when built)
#   build/systemc/mxsim_sc_test   regression: SystemC run == C model (make test-systemc)
# Included by the top Makefile; variables are prefixed SC_.

SC_DIR      := $(BUILD)/systemc
SC_CXXFLAGS := -std=c++17 -O1 -g $(WARN) -Imodels -Isim -Isim/systemc -MMD -MP $(SANFLAGS)
SC_LIBS     := -lsystemc -lyaml-cpp -lm -lpthread
SC_COMMON   := mx_sc_gemm mx_sc_accel mx_sc_platform mx_sc_run
SC_COMMON_OBJ := $(SC_COMMON:%=$(SC_DIR)/obj/%.o)

.PHONY: systemc test-systemc bench-systemc

systemc: $(SC_DIR)/mxsim_sc_top $(SC_DIR)/mxsim_sc_test

$(SC_DIR)/obj/%.o: sim/systemc/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(SC_CXXFLAGS) -c $< -o $@

$(SC_DIR)/mxsim_sc_top: $(SC_DIR)/obj/mxsim_sc_top.o $(SC_COMMON_OBJ) $(SC_DIR)/obj/mx_sc_rtl_stub.o \
                        $(BUILD)/obj/sim/config_yaml.o $(BUILD)/libmxcore.a
	$(CXX) $(LDFLAGS) -o $@ $^ $(SC_LIBS)

$(SC_DIR)/mxsim_sc_test: $(SC_DIR)/obj/mxsim_sc_test.o $(SC_COMMON_OBJ) $(SC_DIR)/obj/mx_sc_rtl_stub.o \
                         $(BUILD)/obj/sim/config_yaml.o $(BUILD)/libmxcore.a
	$(CXX) $(LDFLAGS) -o $@ $^ $(SC_LIBS)

-include $(wildcard $(SC_DIR)/obj/*.d)

# SystemC run vs the C model's functional run and the exact reference, per
# GEMM: cycles and output bits (tests/systemc/).
test-systemc: $(SC_DIR)/mxsim_sc_test
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_test tests/systemc/sc_mxsf.yaml tests/systemc/sc_small.csv
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(SC_DIR)/mxsim_sc_test tests/systemc/sc_bf16.yaml tests/systemc/sc_small_bf16.csv

test-extra:: test-systemc

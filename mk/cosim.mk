# mk/cosim.mk — RTL lint, Verilator co-simulation (build/mxsim-cosim, `make
# cosim`), and yosys area estimates (`make area`).  Included by the Makefile.
#
# Every RTL unit is Verilated once, as its own model, with the parameters
# below; the harness (sim/cosim/*.cpp) links them with the C core into
# build/mxsim-cosim, which `mxsim cosim` runs.  A second model of mx_pe, built
# with +define+MX_FAULT_ALIGN, lets the regression prove the harness fails.

VERILATOR    ?= verilator
YOSYS        ?= yosys
COSIM_DIR    := $(BUILD)/cosim
# (Debian's location when verilator is not installed yet: `make deps` runs first.)
VL_ROOT      := $(or $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null),/usr/share/verilator)
VL_INC       := $(VL_ROOT)/include
# The datapath units (other RTL in rtl/, e.g. the array, has its own rules).
# RTL_DIR: where they are read from (the mutation runs, tests/cosim/mutants.sh,
# point it at a planted copy instead of editing rtl/).
RTL_DIR      ?= rtl
RTL_SRC      := $(RTL_DIR)/mx_pkg.sv $(addprefix $(RTL_DIR)/,$(addsuffix .sv,mx_decode mx_mul mx_align mx_addtree \
                mx_fp32_round mx_fp32_add mx_accum mx_requant mx_pe))
RTL_UNITS    := mx_decode mx_mul mx_align mx_addtree mx_fp32_round mx_fp32_add mx_accum mx_requant mx_pe mx_pe_area
# Parameters of the co-simulated models (must match sim/cosim/cosim_units.cpp).
COSIM_LANES   := 8
COSIM_ALIGN_W := 32
COSIM_VL_OPT  := -O1
VL_FLAGS     := --cc --trace-fst -Wall -I$(RTL_DIR) --x-assign fast --x-initial fast
# COV=1 (`make coverage`, mk/coverage.mk, in its own build directory): line and
# toggle coverage in every co-simulated model except the fault-injected PE
# (it exists to fail); the harness writes each model's counts at the end of a
# run into $MXSIM_COSIM_COVERAGE_DIR.  -fno-merge-cond -fno-split -fno-combine:
# with them on, Verilator 5.006 moves a branch's counter away from its
# statement (mx_requant's `amax` max loop and `code > maxc` saturation were
# counted against the values after the loop/assignment: 0 hits although
# both run); -O0 would fix it too but renames the PE's public registers.
VL_COV       := $(if $(COV),--coverage-line --coverage-toggle -fno-merge-cond -fno-split -fno-combine)
VM_COV_DEF   := -DVM_COVERAGE=$(if $(COV),1,0)
# SAN=1 (the cosim-san build in $(BUILD)/san): the Verilated models, the
# Verilator runtime, the harness and the C core with ASan + UBSan, except:
# Verilator 5.006's own code is not UBSan-clean: the models' __Trace
# functions read its uint32_t trace buffer as 64-bit QData
# (include/verilated_trace.h:450, misaligned), and its FST writer
# (include/gtkwave/fstapi.c, in verilated_fst_c.cpp) stores a uint32_t at an
# odd address (:858) and left-shifts a negative value (:1663).  So the
# Verilated models run without UBSan's alignment check and the Verilator
# runtime with ASan only; the harness and the C core have all of ASan + UBSan.
VL_RT_SAN    := $(if $(SAN),-fsanitize=address -fno-omit-frame-pointer)
VL_SANFLAGS  := $(if $(SAN),-CFLAGS "$(SANOPTS) -fno-sanitize=alignment" -LDFLAGS "$(SANOPTS)")

# model name, top module, extra verilator flags
COSIM_MODELS := mx_decode mx_mul mx_align mx_addtree mx_accum mx_requant mx_pe mx_pe_l4 mx_pe_fault
top_mx_pe_fault   := mx_pe
top_mx_pe_l4      := mx_pe
flags_mx_align    := -GLANES=$(COSIM_LANES) -GALIGN_W=$(COSIM_ALIGN_W)
flags_mx_addtree  := -GLANES=$(COSIM_LANES) -GIN_W=$(shell echo $$(($(COSIM_ALIGN_W)+1)))
flags_mx_accum    := -GALIGN_W=$(COSIM_ALIGN_W) -GSUM_W=$(shell echo $$(($(COSIM_ALIGN_W)+4)))
flags_mx_requant  := -GN=8
flags_mx_pe       := -GLANES=$(COSIM_LANES) -GALIGN_W=$(COSIM_ALIGN_W)
flags_mx_pe_fault := $(flags_mx_pe) +define+MX_FAULT_ALIGN
flags_mx_pe_l4    := -GLANES=4 -GALIGN_W=$(COSIM_ALIGN_W)

define VMODEL
$(COSIM_DIR)/$(1)/V$(1)__ALL.a: $(RTL_SRC) mk/cosim.mk
	@mkdir -p $(COSIM_DIR)/$(1)
	$(VERILATOR) $(VL_FLAGS) $(VL_SANFLAGS) $(if $(filter mx_pe_fault,$(1)),,$(VL_COV)) $(flags_$(1)) --top-module $(or $(top_$(1)),$(1)) --prefix V$(1) \
	  -Mdir $(COSIM_DIR)/$(1) $(RTL_SRC)
	+$(MAKE) -s -C $(COSIM_DIR)/$(1) -f V$(1).mk V$(1)__ALL.a OPT_FAST=$(COSIM_VL_OPT) OPT_SLOW=-O0 OPT_GLOBAL=-O1
endef
$(foreach m,$(COSIM_MODELS),$(eval $(call VMODEL,$(m))))

COSIM_LIBS := $(foreach m,$(COSIM_MODELS),$(COSIM_DIR)/$(m)/V$(m)__ALL.a)
VL_RT_SRC  := verilated.cpp verilated_fst_c.cpp verilated_threads.cpp $(if $(COV),verilated_cov.cpp)
VL_RT_OBJ  := $(VL_RT_SRC:%.cpp=$(COSIM_DIR)/rt/%.o)
VL_CXXFLAGS := -std=c++17 -O1 -isystem $(VL_INC) -isystem $(VL_INC)/vltstd \
               -DVM_TRACE=1 -DVM_TRACE_FST=1 $(VM_COV_DEF) -DVM_SC=0 -DVL_THREADED=1 $(VL_RT_SAN)

$(COSIM_DIR)/rt/%.o: $(VL_INC)/%.cpp mk/cosim.mk
	@mkdir -p $(dir $@)
	$(CXX) $(VL_CXXFLAGS) -c $< -o $@

COSIM_SRC := $(sort $(wildcard sim/cosim/*.cpp))
COSIM_OBJ := $(COSIM_SRC:%.cpp=$(COSIM_DIR)/obj/%.o)
COSIM_CXXFLAGS := -std=c++17 -O2 -g $(WARN) -Imodels -Isim -Isim/cosim -isystem $(VL_INC) \
                  -isystem $(VL_INC)/vltstd $(foreach m,$(COSIM_MODELS),-isystem $(COSIM_DIR)/$(m)) \
                  -DVM_TRACE=1 -DVM_TRACE_FST=1 $(VM_COV_DEF) -DVM_SC=0 -MMD -MP $(SANFLAGS)

$(COSIM_DIR)/obj/%.o: %.cpp $(COSIM_LIBS)
	@mkdir -p $(dir $@)
	$(CXX) $(COSIM_CXXFLAGS) -c $< -o $@

$(BUILD)/mxsim-cosim: $(COSIM_OBJ) $(COSIM_LIBS) $(VL_RT_OBJ) $(BUILD)/libmxcore.a
	$(CXX) $(LDFLAGS) -o $@ $(COSIM_OBJ) $(COSIM_LIBS) $(VL_RT_OBJ) $(BUILD)/libmxcore.a -lz -lpthread -lm

-include $(shell find $(COSIM_DIR)/obj -name '*.d' 2>/dev/null)

# `mxsim cosim --unit pe --lanes L` for a lane count without a prebuilt model
# (any 1..64 but 8 and 4; sim/cmd_cosim.c runs make for it once, under a
# lock): $(COSIM_DIR)/mxsim-cosim-pe-LL, the same harness compiled with
# -DCOSIM_PE_LANES=L and one more model, mx_pe Verilated with LANES = L as
# Vmx_pe_lanes, cached in $(COSIM_DIR)/pe_lanes_L.
COSIM_PEL := $(COSIM_DIR)/pe_lanes
$(COSIM_PEL)_%/Vmx_pe_lanes__ALL.a: $(RTL_SRC) mk/cosim.mk
	@mkdir -p $(dir $@)
	$(VERILATOR) $(VL_FLAGS) $(VL_SANFLAGS) $(VL_COV) -GLANES=$* -GALIGN_W=$(COSIM_ALIGN_W) --top-module mx_pe --prefix Vmx_pe_lanes \
	  -Mdir $(dir $@) $(RTL_SRC)
	+$(MAKE) -s -C $(dir $@) -f Vmx_pe_lanes.mk Vmx_pe_lanes__ALL.a OPT_FAST=$(COSIM_VL_OPT) OPT_SLOW=-O0 OPT_GLOBAL=-O1
$(COSIM_PEL)_%/obj/cosim_units.o: sim/cosim/cosim_units.cpp $(COSIM_PEL)_%/Vmx_pe_lanes__ALL.a $(COSIM_LIBS)
	@mkdir -p $(dir $@)
	$(CXX) $(COSIM_CXXFLAGS) -isystem $(COSIM_PEL)_$* -DCOSIM_PE_LANES=$* -c $< -o $@
$(COSIM_PEL)_%/obj/cosim_main.o: sim/cosim/cosim_main.cpp $(COSIM_LIBS)
	@mkdir -p $(dir $@)
	$(CXX) $(COSIM_CXXFLAGS) -DCOSIM_PE_LANES=$* -c $< -o $@
$(COSIM_DIR)/mxsim-cosim-pe-L%: $(COSIM_PEL)_%/obj/cosim_main.o $(COSIM_PEL)_%/obj/cosim_units.o \
    $(COSIM_DIR)/obj/sim/cosim/fcov.o $(COSIM_PEL)_%/Vmx_pe_lanes__ALL.a $(COSIM_LIBS) $(VL_RT_OBJ) $(BUILD)/libmxcore.a
	$(CXX) $(LDFLAGS) -o $@ $^ -lz -lpthread -lm
.PRECIOUS: $(COSIM_PEL)_%/Vmx_pe_lanes__ALL.a $(COSIM_PEL)_%/obj/cosim_units.o $(COSIM_PEL)_%/obj/cosim_main.o
-include $(wildcard $(COSIM_PEL)_*/obj/*.d)

# The on-demand build (from scratch, a progress line with an estimate) and
# runs at 16 lanes: the Verilated PE must agree with the C PE model
# (models/units/mx_pe.c) cycle by cycle and bit for bit, five formats; the
# second and later runs find it built.
.PHONY: cosim-unit-lanes
cosim-unit-lanes: $(BUILD)/mxsim $(COSIM_DIR)/obj/sim/cosim/fcov.o $(COSIM_LIBS) $(VL_RT_OBJ)
	rm -rf $(COSIM_PEL)_16 $(COSIM_DIR)/mxsim-cosim-pe-L16
	$(BUILD)/mxsim cosim --unit pe --format mxsf --lanes 16 --vectors 3000 --seed 5 >$(COSIM_DIR)/lanes16.log 2>$(COSIM_DIR)/lanes16.err \
	  || { cat $(COSIM_DIR)/lanes16.err $(COSIM_DIR)/lanes16.log; exit 1; }
	@cat $(COSIM_DIR)/lanes16.err $(COSIM_DIR)/lanes16.log; \
	  grep -q "^mxsim cosim: building the Verilated PE with 16 lanes (once; cached in .*/cosim/pe_lanes_16), about [0-9]* s" $(COSIM_DIR)/lanes16.err \
	  && grep -q "^cosim pe mxsf L=16: PASS 3000 vectors" $(COSIM_DIR)/lanes16.log \
	  || { echo "cosim-unit-lanes: on-demand build or run of the 16-lane PE not as expected"; exit 1; }
	@for f in e4m3 e5m2 int8 bf16; do $(BUILD)/mxsim cosim --unit pe --format $$f --lanes 16 --vectors 2000 --seed 6 2>&1 \
	  | tee $(COSIM_DIR)/lanes16_$$f.log | grep -q "^cosim pe $$f L=16: PASS 2000 vectors" \
	  || { cat $(COSIM_DIR)/lanes16_$$f.log; echo "cosim-unit-lanes: $$f at 16 lanes failed or built again"; exit 1; }; \
	  ! grep -q building $(COSIM_DIR)/lanes16_$$f.log || { echo "cosim-unit-lanes: built twice"; exit 1; }; done; \
	  echo "cosim-unit-lanes: PE at 16 lanes built on demand once; mxsf, e4m3, e5m2, int8, bf16 PASS"
cosim-run: cosim-unit-lanes

.PHONY: cosim cosim-run cosim-build lint-rtl
cosim-build: $(BUILD)/mxsim-cosim

# The regression: exhaustive decode/mul, random units, 100k PE vectors per
# format with back-pressure, and the fault-injection self-test.
cosim: deps
	+$(MAKE) cosim-run
cosim-run: cosim-units
cosim-units: $(BUILD)/mxsim-cosim
	sh tests/cosim/regress.sh $(BUILD)/mxsim-cosim $(COSIM_DIR)

test-extra:: cosim

# The unit regression again with everything instrumented (ASan + UBSan: the
# Verilated models via Verilator's -CFLAGS/-LDFLAGS, the harness, the C core;
# the Verilator runtime with ASan, see VL_RT_SAN), in $(BUILD)/san, with the
# same vectors: ~35 s of build and ~5 s of run on 2 cores.
.PHONY: cosim-units cosim-san
cosim-san:
	+$(MAKE) BUILD=$(BUILD)/san SAN=1 OPT=-O1 cosim-units
test-extra:: cosim-san

# ---- lint: every unit as its own top, and the fault build -----------------
lint-rtl:
	@for u in $(RTL_UNITS); do \
	  $(VERILATOR) --lint-only -Wall -Irtl rtl/mx_pkg.sv rtl/$$u.sv --top-module $$u || exit 1; \
	done
	$(VERILATOR) --lint-only -Wall -Irtl +define+MX_FAULT_ALIGN rtl/mx_pkg.sv rtl/mx_pe.sv --top-module mx_pe
	@echo "RTL lint clean: $(RTL_UNITS)"

lint:: lint-rtl

# ---- area: yosys generic synthesis of the PE, one format per run ----------
area: deps
	@sh tests/cosim/area.sh $(YOSYS) $(BUILD)/area

# ---- bench: co-simulation throughput of the PE (printed before the C benches)
.PHONY: cosim-bench
bench: cosim-bench
cosim-bench: $(BUILD)/mxsim-cosim
	@echo "== cosim_pe (Verilated RTL vs C cycle model, lock step, L=8, stall 0.2)"
	@for f in mxsf bf16 e4m3 int8; do $(BUILD)/mxsim-cosim --unit pe --format $$f --vectors 200000 --stall 0.2 || exit 1; done

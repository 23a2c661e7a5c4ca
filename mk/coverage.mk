# mk/coverage.mk — `make coverage`: Verilator line and toggle coverage of the
# datapath units under the co-simulation regression (issue 11).  Included by
# the Makefile.  Not part of `make test` (a second set of Verilated models;
# `make test` runs the functional coverage check inside `make cosim`).
#
# The models are built with COV=1 (mk/cosim.mk: --coverage-line
# --coverage-toggle) in $(BUILD)/cov; tests/cosim/regress.sh runs against
# them, every model writes its counts into $(COV_OUT)/dat, verilator_coverage
# merges them (merged.dat) and annotates the sources (annotated/), and
# tests/cosim/coverage_report.py writes report.txt: per unit lines and toggles
# covered/total, every uncovered line, the waived ones with their reason
# (tests/cosim/coverage_waivers.tsv).  COSIM_DIRECTED= (empty) measures the
# regression without the directed tables.

COV_BUILD := $(BUILD)/cov
COV_OUT   := $(COV_BUILD)/coverage
VERILATOR_COVERAGE ?= verilator_coverage

.PHONY: coverage cosim-mutants
coverage: deps
	+$(MAKE) BUILD=$(COV_BUILD) COV=1 $(COV_BUILD)/mxsim-cosim
	@rm -rf $(COV_OUT) && mkdir -p $(COV_OUT)/dat
	@st=0; MXSIM_COSIM_COVERAGE_DIR=$(abspath $(COV_OUT)/dat) \
	  sh tests/cosim/regress.sh $(COV_BUILD)/mxsim-cosim $(COV_OUT)/regress > $(COV_OUT)/regress.log 2>&1 || st=$$?; \
	  tail -4 $(COV_OUT)/regress.log; \
	  $(VERILATOR_COVERAGE) --write $(COV_OUT)/merged.dat $(COV_OUT)/dat/*.dat && \
	  $(VERILATOR_COVERAGE) --annotate $(COV_OUT)/annotated --annotate-min 1 $(COV_OUT)/merged.dat > /dev/null && \
	  python3 tests/cosim/coverage_report.py --waivers tests/cosim/coverage_waivers.tsv \
	    --fcov $(COV_OUT)/regress/fcov_report.txt $(COV_OUT)/merged.dat > $(COV_OUT)/report.txt || st=1; \
	  cat $(COV_OUT)/report.txt | sed -n '/^summary/,/^$$/p'; \
	  echo "coverage report: $(COV_OUT)/report.txt (annotated sources: $(COV_OUT)/annotated)"; exit $$st

# Mutation check: plants one-line bugs in a copy of the RTL (tests/cosim/mutants.sh)
# and reports which the regression catches, without and with the directed tables.
cosim-mutants: deps
	sh tests/cosim/mutants.sh "$(MAKE)" $(BUILD)/mutant

# mk/rtl_pkg.mk — rtl/mx_pkg.sv is generated from the datapath format table
# (models/units/mx_pe_format.c) by mk/gen_mx_pkg.c: one table for C and RTL
# (issue 14).  The file is checked in (so the RTL reads as RTL and lint needs
# no build), rewritten only when its content changes (so Verilated models do
# not rebuild for nothing) by `make all`, and `make test` checks it is current.

RTL_PKG_SRC := mk/gen_mx_pkg.c models/units/mx_pe_format.c models/units/mx_pe_format.h models/units/mx_pe.h

$(BUILD)/gen_mx_pkg: $(RTL_PKG_SRC)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 $(WARN) -Imodels -o $@ mk/gen_mx_pkg.c models/units/mx_pe_format.c

$(BUILD)/mx_pkg.stamp: $(BUILD)/gen_mx_pkg
	@$(BUILD)/gen_mx_pkg $(BUILD)/mx_pkg.sv.gen
	@cmp -s $(BUILD)/mx_pkg.sv.gen rtl/mx_pkg.sv || { cp $(BUILD)/mx_pkg.sv.gen rtl/mx_pkg.sv; echo "rtl/mx_pkg.sv regenerated from the format table"; }
	@touch $@

# `make all` (and so `make test`, `make run`) regenerates it before anything
# Verilates.  No rule names rtl/mx_pkg.sv itself as a target: a target older
# than its stamp would look out of date to `make -q` forever (mxsim cosim's
# on-demand build asks make whether a model is current).
all: $(BUILD)/mx_pkg.stamp

.PHONY: test-rtl-pkg
test-rtl-pkg: $(BUILD)/gen_mx_pkg
	@$(BUILD)/gen_mx_pkg $(BUILD)/mx_pkg.sv.check
	@cmp -s $(BUILD)/mx_pkg.sv.check rtl/mx_pkg.sv || { echo "rtl/mx_pkg.sv is not what mk/gen_mx_pkg.c writes from the format table: run make"; exit 1; }
	@echo "rtl/mx_pkg.sv: generated from models/units/mx_pe_format.c, current"

test-extra:: test-rtl-pkg

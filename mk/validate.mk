# mk/validate.mk — the analytic engine against the cycle engine (issue 13):
# `make validate` regenerates docs/VALIDATION.md (324 seeded random GEMMs over
# 36 configurations); the GoogleTest case Validation.DocMatchesRegenerated
# checks that the committed table is what the current engines give.
# `make headline` plots the MXSF/BF16 energy ratio against buffer size and
# DRAM preset (build/headline/), the range quoted in docs/ENERGY.md.
.PHONY: validate validate-traces headline
validate: all
	$(BUILD)/mxsim validate > docs/VALIDATION.md.tmp && mv docs/VALIDATION.md.tmp docs/VALIDATION.md
	@grep '^summary' docs/VALIDATION.md

headline: deps all
	sh mk/headline.sh $(BUILD)/mxsim $(BUILD)/headline

# The same comparison on the shipped traces (whole-trace totals; minutes).
validate-traces: all
	sh mk/validate_traces.sh $(BUILD)/mxsim

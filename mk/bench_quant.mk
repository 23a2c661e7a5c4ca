# `mxsim quant` end to end (issue 11): a 64 MiB float32 .npy through the CLI,
# beside `cp` of the same file in the same run (mk/bench_quant.sh).
.PHONY: bench-quant
bench: bench-quant
bench-quant: all
	@echo "== bench-quant: mxsim quant end to end vs cp (64 MiB float32 .npy)"
	@sh mk/bench_quant.sh $(abspath $(BUILD)/mxsim)

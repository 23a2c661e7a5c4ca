# The analytic engine against the cycle engine on single mid-size GEMMs,
# each DRAM preset and the flat channel, in the same run (issue 13, stop 34;
# mk/bench_analytic.py).
.PHONY: bench-analytic
bench: bench-analytic
bench-analytic: all
	@echo "== bench-analytic: analytic vs cycle engine, mid-size GEMMs (CPU time per GEMM)"
	@python3 mk/bench_analytic.py $(abspath $(BUILD)/mxsim)

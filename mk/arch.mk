# mk/arch.mk — accelerator-model regressions hooked into `make test`:
# every shipped trace through `mxsim run` in timing mode and in functional mode
# (functional rows above 2^18 MACs are sampled here to keep this quick; the
# default limit in configs/*.yaml is 2^30).
ARCH_TRACES := $(sort $(wildcard traces/*.csv))

.PHONY: test-arch-traces
test-arch-traces: all
	@set -e; for t in $(ARCH_TRACES); do \
	  for m in timing functional; do \
	    $(BUILD)/mxsim run -q -c configs/mxsf.yaml -t $$t --mode $$m --no-progress \
	      --set functional.max_macs=262144 -o $(BUILD)/arch-traces/$$(basename $$t .csv)-$$m 2>/dev/null \
	      || { echo "arch: $$t ($$m) failed"; exit 1; }; \
	  done; \
	done; echo "arch: $(words $(ARCH_TRACES)) traces ran in timing and functional mode"

test-extra:: test-arch-traces

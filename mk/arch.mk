# mk/arch.mk — accelerator-model regressions hooked into `make test`:
# every shipped trace through `mxsim run` in timing mode and in functional mode
# (functional rows above 2^18 MACs are sampled here to keep this quick; the
# default limit in configs/*.yaml is 2^30).
ARCH_TRACES := $(sort $(wildcard traces/*.csv))

# Each run's report is checked against the trace and first principles
# (mk/check_trace_report.py: rows, MACs, the array's peak, energy sums, QSNR,
# nothing but notes on stderr).
ARCH_RCL := $(shell awk '/^  (rows|cols|lanes):/ {printf "%s ", $$2}' configs/mxsf.yaml)

.PHONY: test-arch-traces
test-arch-traces: all
	@set -e; for t in $(ARCH_TRACES); do \
	  for m in timing functional; do \
	    d=$(BUILD)/arch-traces/$$(basename $$t .csv)-$$m; mkdir -p $$d; \
	    $(BUILD)/mxsim run -q -c configs/mxsf.yaml -t $$t --mode $$m --no-progress \
	      --set functional.max_macs=262144 -o $$d 2>$$d.stderr \
	      || { echo "arch: $$t ($$m) failed:"; cat $$d.stderr; exit 1; }; \
	    python3 mk/check_trace_report.py $$t $$d $$d.stderr $(ARCH_RCL) $$m || exit 1; \
	  done; \
	done; echo "arch: $(words $(ARCH_TRACES)) traces ran in timing and functional mode, reports checked"

test-extra:: test-arch-traces

# The main job's figures (`make run`) against the reviewed golden
# tests/golden/main_job.json (mk/main_job_golden.py says what and how tight);
# `make golden-main-job` regenerates it after a reviewed model change.
MAIN_JOB = $(BUILD)/mxsim run -c configs/mxsf.yaml --compare configs/bf16.yaml -t traces/bert_base_train.csv -q --engine cycle

.PHONY: test-main-job golden-main-job
test-main-job: all
	@rm -rf $(BUILD)/main-job && $(MAIN_JOB) -o $(BUILD)/main-job > /dev/null
	@python3 mk/main_job_golden.py check tests/golden/main_job.json $(BUILD)/main-job
	@echo "main job: figures equal tests/golden/main_job.json"

golden-main-job: all
	@rm -rf $(BUILD)/main-job && $(MAIN_JOB) -o $(BUILD)/main-job > /dev/null
	python3 mk/main_job_golden.py write tests/golden/main_job.json $(BUILD)/main-job

test-extra:: test-main-job

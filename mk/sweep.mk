# mk/sweep.mk — `mxsim sweep`'s system tests, run by `make test` (test-extra):
# test-slurm: a single-node Slurm on localhost runs a sweep through sbatch
#   (mk/slurm_test.sh); the merged CSV must equal the local run's.  Needs
#   root (daemons); exit 77 (not root, Slurm absent) is reported as SKIP.
# test-sweep-html: headless Chromium loads a sweep's index.html; the DOM
#   must hold a table row per point x trace and images that loaded
#   (mk/sweep_html_test.sh); the screenshot stays in $(BUILD)/sweep_html/.
.PHONY: test-slurm test-sweep-html

test-slurm: all
	@rc=0; bash mk/slurm_test.sh $(BUILD)/mxsim $(BUILD)/slurm || rc=$$?; \
	  if [ $$rc = 77 ]; then echo "test-slurm: SKIPPED (see above)"; exit 0; fi; exit $$rc

test-sweep-html: all
	@sh mk/sweep_html_test.sh $(BUILD)/mxsim $(BUILD)/sweep_html

test-extra:: test-slurm test-sweep-html

# test-compare-html: headless Chromium loads `mxsim run --compare -o`'s
# index.html; every bar of its energy chart must carry compare.json's value
# and be drawn, the table must have a row per component + 4
# (mk/compare_html_test.sh); the screenshot stays in $(BUILD)/compare_html/.
.PHONY: test-compare-html
test-compare-html: all
	@sh mk/compare_html_test.sh $(BUILD)/mxsim $(BUILD)/compare_html

test-extra:: test-compare-html

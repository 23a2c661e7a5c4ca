/*
 * fuzz_dram_trace.c — libFuzzer harness for the DRAM request-trace reader
 * (sim/cmd_dram.c: the reader is static and streams from a file, so the
 * harness runs the command's entry point on a scratch file).
 *
 * `mxsim dram -c tests/golden/dram/DDR4_8Gb_x8_3200.ini -t FILE --cycles 4096 -q`
 * (the DRAMsim3 preset: its .ini loads ~3x faster than our YAML, and the
 * configuration is not what this harness fuzzes):
 * --cycles bounds the simulated time (a request may name any cycle); the
 * command still reads the whole trace to count the requests left over.
 * Exit status 0 (ran) or 2 (bad trace, one line on stderr); anything else
 * (1: the model's no-progress watchdog) is a finding.
 */
#include "fuzz_util.h"
#include "mxsim_cmd.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char cfg[4200];
    if (!cfg[0]) snprintf(cfg, sizeof cfg, "%s/tests/golden/dram/DDR4_8Gb_x8_3200.ini", fuzz_src_dir());
    char trace[4200];
    snprintf(trace, sizeof trace, "%s", fuzz_file(0, "trace.txt", data, size));
    char *argv[] = {"dram", "-c", cfg, "-t", trace, "--cycles", "4096", "-q", NULL};
    int rc = mxsim_cmd_dram(8, argv);
    if (rc != 0 && rc != 2) abort();
    return 0;
}

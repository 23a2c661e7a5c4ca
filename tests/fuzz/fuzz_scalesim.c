/*
 * fuzz_scalesim.c — libFuzzer harness for the SCALE-Sim importer
 * (sim/cmd_import_scalesim.c: its .cfg reader and topology reader are
 * static, so the harness calls the command's entry point with files).
 *
 * Input: the .cfg text, a line "#--topology", then the topology CSV ('#'
 * starts a comment line in both).  Without the marker the input is used as
 * both files.  The command writes DIR/config.yaml and DIR/trace.csv into the
 * scratch directory; when it succeeds, the trace it wrote must load with the
 * trace reader (models/arch/mx_trace.c), as `mxsim run` would load it.
 */
#include "arch/mx_trace.h"
#include "fuzz_util.h"
#include "mxsim_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t head;
    const uint8_t *topo;
    size_t topo_len;
    fuzz_split(data, size, "#--topology", &head, &topo, &topo_len);
    if (!topo) {
        topo = data;
        topo_len = size;
    }
    char cfg[4200], top[4200], out[4200], energy[4200], trace[4300];
    snprintf(cfg, sizeof cfg, "%s", fuzz_file(0, "in.cfg", data, head));
    snprintf(top, sizeof top, "%s", fuzz_file(1, "topo.csv", topo, topo_len));
    snprintf(out, sizeof out, "%s/out", fuzz_dir());
    snprintf(energy, sizeof energy, "%s/configs/energy/horowitz45.yaml", fuzz_src_dir());
    snprintf(trace, sizeof trace, "%s/trace.csv", out);
    remove(trace); /* also: new files, not renames over old ones (fuzz_util.c) */
    char yaml[4300];
    snprintf(yaml, sizeof yaml, "%s/config.yaml", out);
    remove(yaml);
    char *argv[] = {"import-scalesim", cfg, top, "-o", out, "--energy", energy, NULL};
    int rc = mxsim_cmd_import_scalesim(7, argv);
    if (rc != 0 && rc != 2) abort(); /* 2: bad input, one line on stderr */
    if (rc == 0) {
        mx_trace t;
        char err[512];
        if (mx_trace_load(trace, &t, err, sizeof err) != 0) {
            fprintf(stderr, "fuzz_scalesim: the imported trace does not load: %s\n", err);
            abort();
        }
        mx_trace_free(&t);
    }
    return 0;
}

/*
 * mxsim_main.c — the mxsim command-line tool: dispatches to a subcommand.
 */
#include "config_yaml.h"
#include "mxsim_cmd.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} mxsim_command;

static const mxsim_command commands[] = {
    {"quant", mxsim_cmd_quant, "quantize/dequantize .npy tensors in any format"},
    {"qsnr",  mxsim_cmd_qsnr,  "table of quantization error (QSNR) per format"},
    {"run",   mxsim_cmd_run,   "run a GEMM trace on an accelerator config: cycles, energy, reports"},
    {"import-scalesim", mxsim_cmd_import_scalesim, "convert a SCALE-Sim config + topology to ours"},
    {"validate", mxsim_cmd_validate, "analytic engine vs cycle engine over random GEMMs (docs/VALIDATION.md)"},
    {"dram",  mxsim_cmd_dram,  "run a DRAMsim3-format request trace on a DRAM config (.yaml or DRAMsim3 .ini)"},
    {"sweep", mxsim_cmd_sweep, "run a grid of config overrides in parallel: CSV, plots, HTML report, shards, Slurm"},
    {"cosim", mxsim_cmd_cosim, "co-simulate the RTL against the C model (needs make cosim)"},
    {"trace", mxsim_cmd_trace, "write a GEMM trace of a PyTorch model (--from-torch MODULE:FACTORY)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: mxsim COMMAND [options]   (mxsim COMMAND --help for details)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-16s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "mxsim: no command given (mxsim --help lists them)\n");
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    /* bad input is one line (control characters escaped), the list is in --help */
    mx_print_error("mxsim", "unknown command '%s' (mxsim --help lists them)", argv[1]);
    return 2;
}

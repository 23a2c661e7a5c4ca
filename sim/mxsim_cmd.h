/*
 * mxsim_cmd.h — entry points of the mxsim subcommands.  Each takes the
 * arguments after the subcommand name (argv[0] is the subcommand) and returns
 * the process exit status: 0 success, 1 a check failed (e.g. a co-simulation
 * mismatch), 2 bad input or usage.
 */
#ifndef MXSIM_CMD_H
#define MXSIM_CMD_H
#ifdef __cplusplus
extern "C" {
#endif

int mxsim_cmd_quant(int argc, char **argv);
int mxsim_cmd_qsnr(int argc, char **argv);
int mxsim_cmd_cosim(int argc, char **argv); /* execs build/mxsim-cosim */
int mxsim_cmd_run(int argc, char **argv);             /* sim/cmd_run.c */
int mxsim_cmd_validate(int argc, char **argv);        /* sim/cmd_validate.c */
int mxsim_cmd_import_scalesim(int argc, char **argv); /* sim/cmd_import_scalesim.c */
int mxsim_cmd_dram(int argc, char **argv);            /* sim/cmd_dram.c */
int mxsim_cmd_sweep(int argc, char **argv);           /* sim/cmd_sweep.c */
int mxsim_cmd_trace(int argc, char **argv);           /* sim/cmd_trace.c: execs python3 -m mxsim.trace */

#ifdef __cplusplus
}
#endif
#endif

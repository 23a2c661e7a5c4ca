/*
 * dram_config.h — loads a DRAM configuration (models/mem/mx_dram.h) from
 * configs/dram/NAME.yaml (every number with its source) or from a DRAMsim3
 * .ini preset (sections dram_structure, timing, power, system).  Errors are
 * one line naming the file, the line and the key.
 */
#ifndef MXSIM_DRAM_CONFIG_H
#define MXSIM_DRAM_CONFIG_H

#include "mem/mx_dram.h"

#ifdef __cplusplus
extern "C" {
#endif

/* By extension: .yaml/.yml or .ini.  0, or -1 with err set
 * ("FILE:LINE: key 'timing.tRCD': must be >= 1"). */
int mx_dram_config_load(const char *path, mx_dram_config *c, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif

/*
 * config_yaml.h — loads accelerator configurations and energy tables
 * (configs/NAME.yaml, configs/energy/NAME.yaml) into the C structs of
 * models/arch/mx_arch.h.  Errors are one line naming the file, the line and
 * the key, e.g. "configs/x.yaml:7: key 'arch.rows': must be 1..1024".
 */
#ifndef MXSIM_CONFIG_YAML_H
#define MXSIM_CONFIG_YAML_H

#include "arch/mx_arch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts from mx_arch_config_default(), applies the file.  energy_path (may
 * be NULL, MX_ARCH_PATH_MAX bytes) receives the energy table path resolved
 * relative to the config file's directory.  0, or -1 with err set. */
int mx_config_load(const char *path, mx_arch_config *c, char *energy_path, char *err,
                   size_t errlen);

/* Applies one override "dotted.key=value" (as in the file) to c.  0 or -1. */
int mx_config_override(mx_arch_config *c, const char *assignment, char *err, size_t errlen);

/* Loads the DRAM named by c->dram_preset (memory.dram) into c->dram, applies
 * memory.dram_channels and calibrates the analytic engine; nothing when the
 * key is empty.  Call after the file and every override.  0, or -1. */
int mx_config_dram(const char *config_path, mx_arch_config *c, char *err, size_t errlen);

/* Every entry needs pj, source, node and voltage.  0, or -1 with err set. */
int mx_energy_load(const char *path, mx_energy_table *t, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif

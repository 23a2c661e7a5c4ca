/*
 * config_dump.h — the resolved configuration: every config key (as written in
 * a config file or after --set) with its value in effect, spelled so that
 * `--set KEY=VALUE` of each reproduces the configuration (tested).  Reports
 * carry it (mxsim run's report.json "resolved_config"), so a result always
 * says what produced it.
 */
#ifndef MXSIM_CONFIG_DUMP_H
#define MXSIM_CONFIG_DUMP_H

#include "arch/mx_arch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*mx_config_kv_fn)(void *ctx, const char *key, const char *value);

/* Calls fn(ctx, key, value) for every key, in the order of README's
 * "## Configuration"; returns the number of keys. */
int mx_config_resolved(const mx_arch_config *c, mx_config_kv_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif

/*
 * version.h — the one place mxsim's version comes from: every report and
 * table names it, so a result always says what produced it.
 */
#ifndef MXSIM_VERSION_H
#define MXSIM_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

/* "0.3.0 (git 1a2b3c4)" — release number and the commit built (from git at
 * build time; "unknown" outside a checkout). */
const char *mxsim_version(void);

#ifdef __cplusplus
}
#endif
#endif

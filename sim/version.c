/* version.c — see version.h.  MXSIM_GIT is set by the Makefile. */
#include "version.h"

#ifndef MXSIM_GIT
#define MXSIM_GIT "unknown"
#endif

#define MXSIM_RELEASE "0.3.0"

const char *mxsim_version(void) { return MXSIM_RELEASE " (git " MXSIM_GIT ")"; }

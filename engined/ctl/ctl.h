/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctl.h -- cgenginectl's parts: the conversation with the control
 * socket (cgenginectl.c) and the exporter that serves its metrics to
 * Prometheus (exporter.c).
 */
#ifndef CGENGINE_CTL_H
#define CGENGINE_CTL_H

#include <stddef.h>
#include <stdio.h>

/*
 * Send one request line (len bytes, newline included) to the control
 * socket at path and write the answer's body to out.  The exit status
 * cgenginectl would have: 0 answered, 1 refused or failed (the reason
 * on stderr), 3 the daemon could not be reached or hung up.
 */
int ctl_ask(const char *path, const char *line, size_t len, FILE *out);

/*
 * "metrics --http [--timeout SECONDS]" or "metrics --textfile DIR":
 * argv[0] is "--http" or "--textfile".  Returns the exit status.
 */
int ctl_export(const char *path, int argc, char **argv);

#endif

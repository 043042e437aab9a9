/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The command set, one file per topic (cli_run.c, cli_stats.c,
 * cli_knobs.c), assembled by cli.c. Each command's callback gets the
 * struct vfwd_app as its data.
 */
#ifndef VFWD_CLI_H
#define VFWD_CLI_H

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_string.h>

#include "app.h"

struct vfwd_cli_topic {
	const char *name;    /* help <name> */
	const char *summary; /* one line in help */
	cmdline_parse_inst_t **cmds; /* NULL-terminated */
	void (*help_extra)(void);    /* more than the commands' help, or NULL */
};

extern const struct vfwd_cli_topic vfwd_cli_run_topic;
extern const struct vfwd_cli_topic vfwd_cli_stats_topic;
extern const struct vfwd_cli_topic vfwd_cli_knobs_topic;

/* cli_knobs.c: fill the knob-name token from the knob table. */
void vfwd_cli_knobs_init(void);
/* cli.c: help for everything, or for one topic; -ENOENT if no such topic. */
int vfwd_cli_help(const char *topic);

#endif

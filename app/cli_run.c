/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Run control commands: start, stop, quit, load, sleep, help.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "knobs.h"

struct cmd_word {
	cmdline_fixed_string_t word;
};

struct cmd_word_arg {
	cmdline_fixed_string_t word;
	cmdline_fixed_string_t arg;
};

static void
cmd_start(__rte_unused void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct vfwd_app *app = data;
	int ret = vfwd_ctl_start(app);

	if (ret == -EALREADY)
		vfwd_cli_error(app, "forwarding is already started");
	else if (ret != 0)
		vfwd_cli_error(app, "cannot start: %s", strerror(-ret));
	else
		printf("forwarding started on %u lcore(s)\n", app->nb_workers);
}

static cmdline_parse_token_string_t tok_start = TOKEN_STRING_INITIALIZER(struct cmd_word, word, "start");
static cmdline_parse_inst_t inst_start = {
	.f = cmd_start,
	.help_str = "start: start forwarding",
	.tokens = {(void *)&tok_start, NULL},
};

static void
cmd_stop(__rte_unused void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct vfwd_app *app = data;

	if (vfwd_ctl_stop(app) != 0) {
		vfwd_cli_error(app, "forwarding is not started");
		return;
	}
	printf("forwarding stopped\n");
	vfwd_report(app, &app->show_view, false, app->opt.stats_format == VFWD_STATS_JSON);
}

static cmdline_parse_token_string_t tok_stop = TOKEN_STRING_INITIALIZER(struct cmd_word, word, "stop");
static cmdline_parse_inst_t inst_stop = {
	.f = cmd_stop,
	.help_str = "stop: stop forwarding and show the forwarding stats",
	.tokens = {(void *)&tok_stop, NULL},
};

static void
cmd_quit(__rte_unused void *res, struct cmdline *cl, void *data)
{
	struct vfwd_app *app = data;

	app->quit = true;
	cmdline_quit(cl);
}

static cmdline_parse_token_string_t tok_quit = TOKEN_STRING_INITIALIZER(struct cmd_word, word, "quit");
static cmdline_parse_inst_t inst_quit = {
	.f = cmd_quit,
	.help_str = "quit: stop forwarding, print the final stats and exit",
	.tokens = {(void *)&tok_quit, NULL},
};

struct cmd_load {
	cmdline_fixed_string_t word;
	cmdline_multi_string_t path; /* the rest of the line: paths may be long */
};

static void
cmd_load(void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct cmd_load *r = res;
	struct vfwd_app *app = data;
	size_t len = strlen(r->path);

	while (len > 0 && (r->path[len - 1] == ' ' || r->path[len - 1] == '\t'))
		r->path[--len] = '\0';
	/* errors inside are reported with their file:line; a failed file
	 * fails this command */
	if (vfwd_cli_run_file(app, r->path) != 0)
		app->cmd_status = -1;
}

static cmdline_parse_token_string_t tok_load = TOKEN_STRING_INITIALIZER(struct cmd_load, word, "load");
static cmdline_parse_token_string_t tok_load_file = TOKEN_STRING_INITIALIZER(struct cmd_load, path, TOKEN_STRING_MULTI);
static cmdline_parse_inst_t inst_load = {
	.f = cmd_load,
	.help_str = "load <file>: run the commands in file (# comments; a line starting with - "
		    "may fail)",
	.tokens = {(void *)&tok_load, (void *)&tok_load_file, NULL},
};

static void
cmd_sleep(void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct cmd_word_arg *r = res;
	struct vfwd_app *app = data;
	double secs;

	if (vfwd_parse_seconds(r->arg, 3600, &secs) != 0) {
		vfwd_cli_error(app, "sleep '%s': expected seconds, 0 < s <= 3600", r->arg);
		return;
	}
	vfwd_ctl_sleep(app, secs);
}

static cmdline_parse_token_string_t tok_sleep = TOKEN_STRING_INITIALIZER(struct cmd_word_arg, word, "sleep");
static cmdline_parse_token_string_t tok_sleep_secs = TOKEN_STRING_INITIALIZER(struct cmd_word_arg, arg, NULL);
static cmdline_parse_inst_t inst_sleep = {
	.f = cmd_sleep,
	.help_str = "sleep <seconds>: wait (forwarding and periodic stats go on), e.g. sleep 0.5",
	.tokens = {(void *)&tok_sleep, (void *)&tok_sleep_secs, NULL},
};

static void
cmd_help(__rte_unused void *res, __rte_unused struct cmdline *cl, __rte_unused void *data)
{
	vfwd_cli_help(NULL);
}

static cmdline_parse_token_string_t tok_help = TOKEN_STRING_INITIALIZER(struct cmd_word, word, "help");
static cmdline_parse_inst_t inst_help = {
	.f = cmd_help,
	.help_str = "help: all commands, by topic",
	.tokens = {(void *)&tok_help, NULL},
};

static void
cmd_help_topic(void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct cmd_word_arg *r = res;

	if (vfwd_cli_help(r->arg) != 0)
		vfwd_cli_error(data, "help '%s': no such topic (run, stats, knobs)", r->arg);
}

static cmdline_parse_token_string_t tok_help2 = TOKEN_STRING_INITIALIZER(struct cmd_word_arg, word, "help");
static cmdline_parse_token_string_t tok_help_topic = TOKEN_STRING_INITIALIZER(struct cmd_word_arg, arg, NULL);
static cmdline_parse_inst_t inst_help_topic = {
	.f = cmd_help_topic,
	.help_str = "help run|stats|knobs: the commands of one topic",
	.tokens = {(void *)&tok_help2, (void *)&tok_help_topic, NULL},
};

static cmdline_parse_inst_t *run_cmds[] = {
	&inst_start, &inst_stop, &inst_quit, &inst_load, &inst_sleep, &inst_help, &inst_help_topic,
	NULL,
};

const struct vfwd_cli_topic vfwd_cli_run_topic = {
	.name = "run",
	.summary = "run control and scripts",
	.cmds = run_cmds,
};

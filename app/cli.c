/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The prompt and command files on librte_cmdline: builds the command
 * context from the topic files, runs scripts line by line with file:line
 * errors, and polls the terminal from the main loop so that periodic
 * reports and --duration go on while the prompt waits.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmdline_socket.h>

#include "cli.h"

/* Bounds on what a file may make us do (they come from users). */
#define SCRIPT_MAX_BYTES (1 << 20)
#define SCRIPT_MAX_LINE 400 /* cmdline's own buffer is 512 */
#define LOAD_MAX_DEPTH 8

static const struct vfwd_cli_topic *const topics[] = {
	&vfwd_cli_run_topic,
	&vfwd_cli_stats_topic,
	&vfwd_cli_knobs_topic,
};

#define MAX_CMDS 64
static cmdline_parse_ctx_t cli_ctx[MAX_CMDS + 1];

/* Every instance gets the app as its callback data. */
static int
build_ctx(struct vfwd_app *app)
{
	unsigned int n = 0;

	vfwd_cli_knobs_init();
	for (size_t t = 0; t < RTE_DIM(topics); t++) {
		for (cmdline_parse_inst_t **c = topics[t]->cmds; *c != NULL; c++) {
			if (n == MAX_CMDS)
				return -E2BIG;
			(*c)->data = app;
			cli_ctx[n++] = *c;
		}
	}
	cli_ctx[n] = NULL;
	return 0;
}

void
vfwd_cli_error(struct vfwd_app *app, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	if (app->cmd_where)
		fprintf(stderr, "%s: ", app->cmd_where);
	fprintf(stderr, "error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	app->cmd_status = -1;
}

int
vfwd_cli_help(const char *topic)
{
	const struct vfwd_cli_topic *only = NULL;

	if (topic != NULL) {
		for (size_t t = 0; t < RTE_DIM(topics); t++)
			if (strcmp(topics[t]->name, topic) == 0)
				only = topics[t];
		if (only == NULL)
			return -ENOENT;
	}
	if (only == NULL) {
		printf("Commands by topic (help <topic> for one; TAB completes, double TAB "
		       "shows choices):\n");
	}
	for (size_t t = 0; t < RTE_DIM(topics); t++) {
		if (only != NULL && topics[t] != only)
			continue;
		printf("\n%s: %s\n", topics[t]->name, topics[t]->summary);
		for (cmdline_parse_inst_t **c = topics[t]->cmds; *c != NULL; c++)
			printf("  %s\n", (*c)->help_str);
		if (topics[t]->help_extra != NULL && only != NULL)
			topics[t]->help_extra();
	}
	fflush(stdout);
	return 0;
}

static struct cmdline *
cli_get(struct vfwd_app *app)
{
	if (app->cl == NULL && build_ctx(app) == 0)
		app->cl = cmdline_new(cli_ctx, "", -1, STDOUT_FILENO);
	return app->cl;
}

static const char *
parse_error(int ret)
{
	switch (ret) {
	case CMDLINE_PARSE_AMBIGUOUS:
		return "ambiguous command";
	case CMDLINE_PARSE_BAD_ARGS:
		return "bad arguments (see help)";
	default:
		return "unknown command (see help)";
	}
}

/* A line as it can be shown back: control and non-ASCII bytes as \xNN. */
static void
printable(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	for (; *src && n + 5 < len; src++) {
		unsigned char c = (unsigned char)*src;

		if (c >= 0x20 && c < 0x7f)
			dst[n++] = (char)c;
		else
			n += snprintf(dst + n, len - n, "\\x%02x", c);
	}
	dst[n] = '\0';
}

/* One script line, without its newline. Returns 0 or -1. */
static int
run_line(struct vfwd_app *app, struct cmdline *cl, const char *line)
{
	char buf[SCRIPT_MAX_LINE + 2];
	int ret;

	if (strlen(line) > SCRIPT_MAX_LINE) {
		vfwd_cli_error(app, "line longer than %d characters", SCRIPT_MAX_LINE);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s\n", line); /* cmdline runs complete lines only */
	app->cmd_status = 0;
	ret = cmdline_parse(cl, buf);
	if (ret < 0) {
		char shown[4 * SCRIPT_MAX_LINE + 1];

		printable(shown, sizeof(shown), line);
		vfwd_cli_error(app, "%s: '%s'", parse_error(ret), shown);
	}
	return app->cmd_status;
}

int
vfwd_cli_run_line(struct vfwd_app *app, const char *line)
{
	struct cmdline *cl = cli_get(app);

	if (cl == NULL)
		return -1;
	return run_line(app, cl, line);
}

int
vfwd_cli_run_file(struct vfwd_app *app, const char *path)
{
	const char *outer_where = app->cmd_where;
	struct cmdline *cl = cli_get(app);
	char where[PATH_MAX + 16];
	unsigned int lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	struct stat sb;
	ssize_t len;
	int ret = 0;
	FILE *f;

	app->cmd_status = 0;
	if (cl == NULL) {
		vfwd_cli_error(app, "cannot set up the command parser");
		return -1;
	}
	if (app->load_depth >= LOAD_MAX_DEPTH) {
		vfwd_cli_error(app, "%s: files load each other more than %d deep", path,
			       LOAD_MAX_DEPTH);
		return -1;
	}
	f = fopen(path, "r");
	if (f == NULL) {
		vfwd_cli_error(app, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > SCRIPT_MAX_BYTES) {
		vfwd_cli_error(app, "%s: not a regular file of at most %d bytes", path,
			       SCRIPT_MAX_BYTES);
		fclose(f);
		return -1;
	}
	app->load_depth++;
	while (!vfwd_ctl_quitting(app) && (len = getline(&line, &cap, f)) >= 0) {
		char *cmd = line;
		bool may_fail = false;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		while (*cmd == ' ' || *cmd == '\t')
			cmd++;
		if (*cmd == '\0' || *cmd == '#')
			continue;
		if (*cmd == '-') {
			may_fail = true;
			cmd++;
		}
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		app->cmd_where = where;
		if (run_line(app, cl, cmd) != 0 && !may_fail) {
			ret = -1;
			break;
		}
	}
	app->cmd_where = outer_where;
	app->load_depth--;
	free(line);
	fclose(f);
	app->cmd_status = ret;
	return ret;
}

int
vfwd_cli_prompt(struct vfwd_app *app)
{
	struct cmdline *script_cl = app->cl;

	if (build_ctx(app) != 0)
		return -E2BIG;
	app->cl = cmdline_stdin_new(cli_ctx, "vfwd> ");
	if (app->cl == NULL) {
		app->cl = script_cl;
		return -ENOMEM;
	}
	if (script_cl != NULL)
		cmdline_free(script_cl);
	while (!vfwd_ctl_quitting(app)) {
		struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
		char buf[256];
		ssize_t n;

		vfwd_ctl_tick(app);
		if (poll(&pfd, 1, 10) <= 0)
			continue;
		n = read(STDIN_FILENO, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) { /* end of input, like testpmd: quit */
			app->quit = true;
			break;
		}
		app->cmd_where = NULL;
		if (cmdline_in(app->cl, buf, (int)n) < 0)
			app->quit = true;
	}
	printf("\n");
	cmdline_stdin_exit(app->cl);
	app->cl = NULL;
	return 0;
}

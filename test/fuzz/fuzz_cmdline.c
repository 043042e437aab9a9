/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target over the command parser: librte_cmdline with vfwd's
 * whole command set (app/cli*.c), each input line run as a prompt or
 * script line would be. Run control, reports and ports are stubbed (no
 * EAL, no workers); 'set' goes through the real knob table and a refused
 * value must leave the options untouched.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "knobs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vfwd_app app;
static volatile sig_atomic_t no_signal;

/* ---- stubs for what the commands call besides the parser ---- */
int
vfwd_ctl_start(struct vfwd_app *a)
{
	if (a->running)
		return -EALREADY;
	a->running = true;
	return 0;
}

int
vfwd_ctl_stop(struct vfwd_app *a)
{
	if (!a->running)
		return -EALREADY;
	a->running = false;
	return 0;
}

int
vfwd_ctl_set(struct vfwd_app *a, const char *knob, const char *val, char *err, size_t errlen)
{
	struct vfwd_options before = a->opt;
	char what[64];
	int ret;

	snprintf(what, sizeof(what), "set %s", knob);
	ret = vfwd_knob_set(&a->opt, knob, val, what, err, errlen);
	if (ret != 0 && memcmp(&before, &a->opt, sizeof(before)) != 0)
		abort();
	return ret;
}

void vfwd_ctl_clear_fwd_stats(struct vfwd_app *a) { (void)a; }
void vfwd_ctl_tick(struct vfwd_app *a) { (void)a; }
bool vfwd_ctl_quitting(const struct vfwd_app *a) { return a->quit; }
void vfwd_ctl_sleep(struct vfwd_app *a, double secs) { (void)a; (void)secs; }
void vfwd_report(struct vfwd_app *a, struct vfwd_stats_view *v, bool final, bool json)
{ (void)a; (void)v; (void)final; (void)json; }
void vfwd_show_lcores(struct vfwd_app *a, bool json) { (void)a; (void)json; }
void vfwd_show_pairs(struct vfwd_app *a, bool json) { (void)a; (void)json; }
void vfwd_show_latency(struct vfwd_app *a, bool json) { (void)a; (void)json; }
void vfwd_show_port_stats(struct vfwd_app *a, int port, bool json)
{ (void)a; (void)json; if (port < -1 || port >= VFWD_MAX_PORTS) abort(); }
void vfwd_show_port_info(struct vfwd_app *a, int port, bool json)
{ (void)a; (void)json; if (port < -1 || port >= VFWD_MAX_PORTS) abort(); }
void vfwd_show_config(struct vfwd_app *a, bool json) { (void)a; (void)json; }

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	vfwd_options_defaults(&app.opt);
	app.quit_signal = &no_signal;
	app.nb_ports = 2;
	app.ports[0] = 0;
	app.ports[1] = 1;
	/* what the commands print: run with -close_fd_mask=3 (libFuzzer keeps
	 * its own copy of stderr for its reports) */
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *p, *line;

	if (size > 8192)
		return 0;
	buf = malloc(size + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (p = buf; (line = strsep(&p, "\n")) != NULL;) {
		/* no files from the fuzzer: load is tested with real files */
		if (strncmp(line, "load", 4) == 0 || strstr(line, "load") != NULL)
			continue;
		vfwd_cli_run_line(&app, line);
		app.quit = false;
	}
	free(buf);
	return 0;
}

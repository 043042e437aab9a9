/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stats commands: show port stats|info, show lcore stats, show pair stats,
 * show fwd stats, clear port stats, clear fwd stats. Each show takes a trailing "json" for
 * scripts (one object on one line).
 */
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "cli.h"
#include "knobs.h"

struct cmd_show_port {
	cmdline_fixed_string_t show, port, what, which, json;
};

struct cmd_show_lcore {
	cmdline_fixed_string_t show, what, stats, json;
};

/* "all" -> -1, a port of ours -> its id; else an error and -2. */
static int
port_arg(struct vfwd_app *app, const char *s)
{
	unsigned long v;

	if (strcmp(s, "all") == 0)
		return -1;
	if (vfwd_parse_uint(s, 0, VFWD_MAX_PORTS - 1, &v) == 0)
		for (uint16_t i = 0; i < app->nb_ports; i++)
			if (app->ports[i] == v)
				return (int)v;
	vfwd_cli_error(app, "port '%s': expected all or one of the forwarding ports", s);
	return -2;
}

static void
cmd_show_port(void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct cmd_show_port *r = res;
	struct vfwd_app *app = data;
	bool json = r->json[0] != '\0';
	int port = port_arg(app, r->which);

	if (port == -2)
		return;
	if (strcmp(r->what, "stats") == 0)
		vfwd_show_port_stats(app, port, json);
	else
		vfwd_show_port_info(app, port, json);
}

static cmdline_parse_token_string_t tok_sp_show = TOKEN_STRING_INITIALIZER(struct cmd_show_port, show, "show");
static cmdline_parse_token_string_t tok_sp_port = TOKEN_STRING_INITIALIZER(struct cmd_show_port, port, "port");
static cmdline_parse_token_string_t tok_sp_what = TOKEN_STRING_INITIALIZER(struct cmd_show_port, what, "stats#info");
static cmdline_parse_token_string_t tok_sp_which = TOKEN_STRING_INITIALIZER(struct cmd_show_port, which, NULL);
static cmdline_parse_token_string_t tok_sp_json = TOKEN_STRING_INITIALIZER(struct cmd_show_port, json, "json");

static cmdline_parse_inst_t inst_show_port = {
	.f = cmd_show_port,
	.help_str = "show port stats|info <port>|all: port counters and rates / driver, link, "
		    "queues, offloads",
	.tokens = {(void *)&tok_sp_show, (void *)&tok_sp_port, (void *)&tok_sp_what,
		   (void *)&tok_sp_which, NULL},
};

static cmdline_parse_inst_t inst_show_port_json = {
	.f = cmd_show_port,
	.help_str = "show port stats|info <port>|all json: the same as one JSON line",
	.tokens = {(void *)&tok_sp_show, (void *)&tok_sp_port, (void *)&tok_sp_what,
		   (void *)&tok_sp_which, (void *)&tok_sp_json, NULL},
};

static void
cmd_show_lcore(void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct cmd_show_lcore *r = res;
	struct vfwd_app *app = data;
	bool json = r->json[0] != '\0';

	if (strcmp(r->what, "lcore") == 0)
		vfwd_show_lcores(app, json);
	else if (strcmp(r->what, "pair") == 0)
		vfwd_show_pairs(app, json);
	else
		vfwd_report(app, &app->show_view, false, json);
}

static cmdline_parse_token_string_t tok_sl_show = TOKEN_STRING_INITIALIZER(struct cmd_show_lcore, show, "show");
static cmdline_parse_token_string_t tok_sl_what = TOKEN_STRING_INITIALIZER(struct cmd_show_lcore, what, "lcore#fwd");
static cmdline_parse_token_string_t tok_sl_stats = TOKEN_STRING_INITIALIZER(struct cmd_show_lcore, stats, "stats");
static cmdline_parse_token_string_t tok_sl_json = TOKEN_STRING_INITIALIZER(struct cmd_show_lcore, json, "json");

static cmdline_parse_inst_t inst_show_lcore = {
	.f = cmd_show_lcore,
	.help_str = "show lcore|fwd stats: per-lcore packets, drops, bursts, busy % and "
		    "cycles/packet (fwd: with ports and mempool)",
	.tokens = {(void *)&tok_sl_show, (void *)&tok_sl_what, (void *)&tok_sl_stats, NULL},
};

static cmdline_parse_inst_t inst_show_lcore_json = {
	.f = cmd_show_lcore,
	.help_str = "show lcore|fwd stats json: the same as one JSON line",
	.tokens = {(void *)&tok_sl_show, (void *)&tok_sl_what, (void *)&tok_sl_stats,
		   (void *)&tok_sl_json, NULL},
};

/* its own instance, for a help line of its own */
static cmdline_parse_token_string_t tok_sl_pair = TOKEN_STRING_INITIALIZER(struct cmd_show_lcore, what, "pair");

static cmdline_parse_inst_t inst_show_pair = {
	.f = cmd_show_lcore,
	.help_str = "show pair stats: per pair and direction, rx, tx, drops and rates (over all "
		    "lcores and queues)",
	.tokens = {(void *)&tok_sl_show, (void *)&tok_sl_pair, (void *)&tok_sl_stats, NULL},
};

static cmdline_parse_inst_t inst_show_pair_json = {
	.f = cmd_show_lcore,
	.help_str = "show pair stats json: the same as one JSON line, with every stream (pair, "
		    "queue, direction)",
	.tokens = {(void *)&tok_sl_show, (void *)&tok_sl_pair, (void *)&tok_sl_stats,
		   (void *)&tok_sl_json, NULL},
};

struct cmd_show_latency {
	cmdline_fixed_string_t show, latency, json;
};

static void
cmd_show_latency(void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct cmd_show_latency *r = res;

	vfwd_show_latency(data, r->json[0] != '\0');
}

static cmdline_parse_token_string_t tok_lat_show = TOKEN_STRING_INITIALIZER(struct cmd_show_latency, show, "show");
static cmdline_parse_token_string_t tok_lat_latency = TOKEN_STRING_INITIALIZER(struct cmd_show_latency, latency, "latency");
static cmdline_parse_token_string_t tok_lat_json = TOKEN_STRING_INITIALIZER(struct cmd_show_latency, json, "json");

static cmdline_parse_inst_t inst_show_latency = {
	.f = cmd_show_latency,
	.help_str = "show latency: how long packets waited in each stage (GRO, backlog, pipeline "
		    "ring, tx hold, tx retries), per lcore: mean and p50..max in us (set latency on)",
	.tokens = {(void *)&tok_lat_show, (void *)&tok_lat_latency, NULL},
};

static cmdline_parse_inst_t inst_show_latency_json = {
	.f = cmd_show_latency,
	.help_str = "show latency json: the same as one JSON line",
	.tokens = {(void *)&tok_lat_show, (void *)&tok_lat_latency, (void *)&tok_lat_json, NULL},
};

struct cmd_clear {
	cmdline_fixed_string_t clear, what, stats, which;
};

static void
cmd_clear_port(void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct cmd_clear *r = res;
	struct vfwd_app *app = data;
	int port = port_arg(app, r->which);

	if (port == -2)
		return;
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		if (port >= 0 && app->ports[i] != port)
			continue;
		vfwd_port_stats_reset(app->ports[i], &app->port_state[app->ports[i]]);
		memset(&app->port_last[app->ports[i]], 0, sizeof(app->port_last[0]));
		app->port_last_tsc[app->ports[i]] = 0;
	}
	printf("port stats cleared\n");
}

static cmdline_parse_token_string_t tok_cp_clear = TOKEN_STRING_INITIALIZER(struct cmd_clear, clear, "clear");
static cmdline_parse_token_string_t tok_cp_port = TOKEN_STRING_INITIALIZER(struct cmd_clear, what, "port");
static cmdline_parse_token_string_t tok_cp_stats = TOKEN_STRING_INITIALIZER(struct cmd_clear, stats, "stats");
static cmdline_parse_token_string_t tok_cp_which = TOKEN_STRING_INITIALIZER(struct cmd_clear, which, NULL);

static cmdline_parse_inst_t inst_clear_port = {
	.f = cmd_clear_port,
	.help_str = "clear port stats <port>|all: reset the ports' counters",
	.tokens = {(void *)&tok_cp_clear, (void *)&tok_cp_port, (void *)&tok_cp_stats,
		   (void *)&tok_cp_which, NULL},
};

static void
cmd_clear_fwd(__rte_unused void *res, __rte_unused struct cmdline *cl, void *data)
{
	vfwd_ctl_clear_fwd_stats(data);
	printf("forwarding stats cleared\n");
}

static cmdline_parse_token_string_t tok_cf_fwd = TOKEN_STRING_INITIALIZER(struct cmd_clear, what, "fwd#lcore");

static cmdline_parse_inst_t inst_clear_fwd = {
	.f = cmd_clear_fwd,
	.help_str = "clear fwd|lcore stats: start the forwarding counters again from zero",
	.tokens = {(void *)&tok_cp_clear, (void *)&tok_cf_fwd, (void *)&tok_cp_stats, NULL},
};

static cmdline_parse_inst_t *stats_cmds[] = {
	&inst_show_port, &inst_show_port_json, &inst_show_lcore, &inst_show_lcore_json,
	&inst_show_pair, &inst_show_pair_json, &inst_show_latency, &inst_show_latency_json,
	&inst_clear_port, &inst_clear_fwd, NULL,
};

const struct vfwd_cli_topic vfwd_cli_stats_topic = {
	.name = "stats",
	.summary = "counters of lcores, pairs and ports (add json for scripts)",
	.cmds = stats_cmds,
};

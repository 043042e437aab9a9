/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Knob commands: one shape, set <knob> <value>, for every knob in the
 * table (knobs.c), testpmd-like spellings beside it (set gro mode heavy),
 * and show config.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "knobs.h"

struct cmd_set {
	cmdline_fixed_string_t set, knob, value;
};

struct cmd_set_sub {
	cmdline_fixed_string_t set, knob, sub, value;
};

static void
set_knob(struct vfwd_app *app, const char *knob, const char *value)
{
	char err[256], now[64];

	if (vfwd_ctl_set(app, knob, value, err, sizeof(err)) != 0) {
		vfwd_cli_error(app, "%s", err);
		return;
	}
	vfwd_knob_find(knob)->get(&app->opt, now, sizeof(now));
	printf("%s = %s\n", knob, now);
}

static void
cmd_set(void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct cmd_set *r = res;

	set_knob(data, r->knob, r->value);
}

/* "burst#tx-retry#gro#...": filled from the table, so a new knob needs no
 * new command */
static char knob_choices[1024];

static cmdline_parse_token_string_t tok_set = TOKEN_STRING_INITIALIZER(struct cmd_set, set, "set");
static cmdline_parse_token_string_t tok_set_knob = TOKEN_STRING_INITIALIZER(struct cmd_set, knob, knob_choices);
static cmdline_parse_token_string_t tok_set_value = TOKEN_STRING_INITIALIZER(struct cmd_set, value, NULL);

static cmdline_parse_inst_t inst_set = {
	.f = cmd_set,
	.help_str = "set <knob> <value>: change a knob while forwarding (help knobs lists them)",
	.tokens = {(void *)&tok_set, (void *)&tok_set_knob, (void *)&tok_set_value, NULL},
};

static void
cmd_set_gro_sub(void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct cmd_set_sub *r = res;
	const char *knob = strcmp(r->sub, "mode") == 0	    ? "gro-mode"
			   : strcmp(r->sub, "flush") == 0  ? "gro-flush-us"
			   : strcmp(r->sub, "engine") == 0 ? "gro-engine"
			   : strcmp(r->sub, "policy") == 0 ? "gro-flush-policy"
							   : "gro-flows";

	set_knob(data, knob, r->value);
}

static cmdline_parse_token_string_t tok_gs_set = TOKEN_STRING_INITIALIZER(struct cmd_set_sub, set, "set");
static cmdline_parse_token_string_t tok_gs_gro = TOKEN_STRING_INITIALIZER(struct cmd_set_sub, knob, "gro");
static cmdline_parse_token_string_t tok_gs_sub = TOKEN_STRING_INITIALIZER(struct cmd_set_sub, sub, "mode#flush#flows#engine#policy");
static cmdline_parse_token_string_t tok_gs_value = TOKEN_STRING_INITIALIZER(struct cmd_set_sub, value, NULL);

static cmdline_parse_inst_t inst_set_gro_sub = {
	.f = cmd_set_gro_sub,
	.help_str = "set gro mode|flush|flows|engine|policy <value>: the same as set "
		    "gro-mode|gro-flush-us|gro-flows|gro-engine|gro-flush-policy",
	.tokens = {(void *)&tok_gs_set, (void *)&tok_gs_gro, (void *)&tok_gs_sub,
		   (void *)&tok_gs_value, NULL},
};

struct cmd_show_config {
	cmdline_fixed_string_t show, config, json;
};

static void
cmd_show_config(void *res, __rte_unused struct cmdline *cl, void *data)
{
	struct cmd_show_config *r = res;

	vfwd_show_config(data, r->json[0] != '\0');
}

static cmdline_parse_token_string_t tok_sc_show = TOKEN_STRING_INITIALIZER(struct cmd_show_config, show, "show");
static cmdline_parse_token_string_t tok_sc_config = TOKEN_STRING_INITIALIZER(struct cmd_show_config, config, "config");
static cmdline_parse_token_string_t tok_sc_json = TOKEN_STRING_INITIALIZER(struct cmd_show_config, json, "json");

static cmdline_parse_inst_t inst_show_config = {
	.f = cmd_show_config,
	.help_str = "show config: every knob's value, queues, pairs and what each lcore polls",
	.tokens = {(void *)&tok_sc_show, (void *)&tok_sc_config, NULL},
};

static cmdline_parse_inst_t inst_show_config_json = {
	.f = cmd_show_config,
	.help_str = "show config json: the same as one JSON line",
	.tokens = {(void *)&tok_sc_show, (void *)&tok_sc_config, (void *)&tok_sc_json, NULL},
};

void
vfwd_cli_knobs_init(void)
{
	size_t n = 0;

	for (unsigned int i = 0; i < vfwd_nb_knobs && n < sizeof(knob_choices); i++)
		n += snprintf(knob_choices + n, sizeof(knob_choices) - n, "%s%s", i ? "#" : "",
			      vfwd_knobs[i].name);
}

static void
knobs_help(void)
{
	printf("\n  knob           values            applied\n");
	for (unsigned int i = 0; i < vfwd_nb_knobs; i++) {
		const struct vfwd_knob *k = &vfwd_knobs[i];

		printf("  %-14s %-17s %-8s %s\n", k->name, k->values,
		       k->apply == VFWD_APPLY_LIVE	  ? "live"
		       : k->apply == VFWD_APPLY_RESTART ? "restart"
							: "control",
		       k->help);
	}
	printf("  live: workers take it between bursts; restart: workers stop, rebuild and "
	       "start again.\n  Each knob is also a command line option: --<knob> <value>.\n");
}

static cmdline_parse_inst_t *knob_cmds[] = {
	&inst_set, &inst_set_gro_sub, &inst_show_config, &inst_show_config_json, NULL,
};

const struct vfwd_cli_topic vfwd_cli_knobs_topic = {
	.name = "knobs",
	.summary = "knobs, changed while forwarding",
	.cmds = knob_cmds,
	.help_extra = knobs_help,
};

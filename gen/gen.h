/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dpdk-vfwd-gen: options and report (the data path: vfwd_gen.h, gen_run.c).
 */
#ifndef VFWD_GEN_APP_H
#define VFWD_GEN_APP_H

#include <stdbool.h>
#include <stdio.h>

#include "vfwd_gen.h"

struct gen_opts {
	struct gen_conf conf;
	bool help;
	bool json;              /* the report on stdout as JSON */
	const char *json_file;  /* and into a file */
	bool no_lro;
	bool linger;
	double link_timeout_s;
};

void gen_usage(FILE *f);
/* 0, or -EINVAL with a message in err */
int gen_parse_args(int argc, char **argv, struct gen_opts *o, char *err, size_t errlen);

struct gen_run_info {
	unsigned int lcores;
	unsigned int tasks;
	double secs;            /* start to the last task's end */
};

void gen_report_json(FILE *f, const struct gen_ctx *ctx, const struct gen_run_info *info);
void gen_report_text(FILE *f, const struct gen_ctx *ctx, const struct gen_run_info *info);
/* nothing lost, reordered, duplicated, corrupted or left unsent; something sent */
bool gen_report_ok(const struct gen_ctx *ctx);

#endif

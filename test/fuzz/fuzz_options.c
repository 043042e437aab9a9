/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target over what users type: the command line options parser
 * (argv split from the input at '\n') and every knob's setter (the values
 * the prompt and command files hand to 'set <knob> <value>'). Pure code,
 * no EAL. A refused value must leave the options untouched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "knobs.h"
#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vfwd_options o, before;
	char *buf, *argv[64], err[256];
	int argc = 1;

	if (size == 0 || size > 4096)
		return 0;
	buf = malloc(size + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';

	/* 1: a command line */
	argv[0] = "dpdk-vfwd";
	for (char *p = buf, *tok; argc < 63 && (tok = strsep(&p, "\n")) != NULL;)
		argv[argc++] = tok;
	argv[argc] = NULL;
	vfwd_options_parse(argc, argv, &o, err, sizeof(err));

	/* 2: knob values, the first line picking the knob */
	vfwd_options_defaults(&o);
	for (int i = 2; i < argc; i++) {
		const struct vfwd_knob *k = &vfwd_knobs[(unsigned char)argv[1][0] % vfwd_nb_knobs];

		before = o;
		if (vfwd_knob_set(&o, k->name, argv[i], "set", err, sizeof(err)) != 0 &&
		    memcmp(&o, &before, sizeof(o)) != 0)
			abort();
	}
	free(buf);
	return 0;
}

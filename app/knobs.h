/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Every runtime knob in one table: its name is both the command line option
 * (--burst 16) and the prompt command (set burst 16), so the two accept the
 * same values with the same messages. Pure: no EAL, unit-tested and fuzzed.
 */
#ifndef VFWD_KNOBS_H
#define VFWD_KNOBS_H

#include <stddef.h>

#include "options.h"

/* How a changed value reaches the data path. */
enum vfwd_knob_apply {
	VFWD_APPLY_LIVE,    /* published to running workers between bursts */
	VFWD_APPLY_RESTART, /* workers stopped, their state rebuilt, started again */
	VFWD_APPLY_CONTROL, /* read by the control loop only */
};

/* The one declaration of a knob: the command line option, the prompt
 * command, the defaults and the usage text are all made from it. */
struct vfwd_knob {
	const char *name;   /* "gro-mode" */
	const char *values; /* "light|heavy": shown in help and in errors */
	const char *def;    /* the default, as set takes it */
	const char *help;
	enum vfwd_knob_apply apply;
	/* Parse val into o. Returns 0, or -EINVAL leaving o untouched. */
	int (*set)(struct vfwd_options *o, const char *val);
	/* The current value, in a form set accepts. */
	void (*get)(const struct vfwd_options *o, char *buf, size_t len);
	/* Non-NULL: on the command line the option is a flag (--gro) that
	 * takes no value and sets this one; NULL: --<name> <value>. */
	const char *flag;
};

extern const struct vfwd_knob vfwd_knobs[];
extern const unsigned int vfwd_nb_knobs;
/* The most knobs there can be: sizes the option tables built from them. */
#define VFWD_MAX_KNOBS 64

/* Every knob of o set to its default. */
void vfwd_knobs_defaults(struct vfwd_options *o);
const struct vfwd_knob *vfwd_knob_find(const char *name);
/* Set knob name to val in o. On error o is unchanged and err says
 * "<what> '<val>': expected <values>" (what: e.g. "--burst" or "set burst"),
 * or names the unknown knob. Returns 0, -ENOENT or -EINVAL. */
int vfwd_knob_set(struct vfwd_options *o, const char *name, const char *val, const char *what,
		  char *err, size_t errlen);

/* Parsers shared with options.c. */
int vfwd_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out);
int vfwd_parse_seconds(const char *s, double max, double *out);
/* One of the words in a NULL-terminated list: its index, or -1. */
int vfwd_parse_word(const char *s, const char *const *words);

#endif

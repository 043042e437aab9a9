/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The knob table: every knob's value survives get -> set, bad values are
 * refused with the knob named and leave the options untouched, and random
 * strings never crash a setter or change anything they do not set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "knobs.h"

static void
table_is_sane(void)
{
	CHECK(vfwd_nb_knobs >= 8);
	for (unsigned int i = 0; i < vfwd_nb_knobs; i++) {
		const struct vfwd_knob *k = &vfwd_knobs[i];

		CHECK(k->name && k->values && k->help && k->set && k->get);
		CHECK(vfwd_knob_find(k->name) == k);
		/* names are option and command words: no blanks, no '#' */
		CHECK(strpbrk(k->name, " \t#") == NULL);
	}
	CHECK(vfwd_knob_find("nosuch") == NULL);
	CHECK(vfwd_knob_find("") == NULL);
}

/* get gives what set accepts, and setting it changes nothing */
static void
get_set_round_trip(void)
{
	struct vfwd_options o, copy;
	char val[64];

	vfwd_options_defaults(&o);
	for (unsigned int i = 0; i < vfwd_nb_knobs; i++) {
		vfwd_knobs[i].get(&o, val, sizeof(val));
		copy = o;
		CHECK(vfwd_knobs[i].set(&copy, val) == 0);
		CHECK(memcmp(&copy, &o, sizeof(o)) == 0);
	}
}

static void
good_values(void)
{
	struct vfwd_options o;
	char err[128];

	vfwd_options_defaults(&o);
	CHECK(vfwd_knob_set(&o, "burst", "64", "set burst", err, sizeof(err)) == 0);
	CHECK(o.knobs.burst == 64);
	CHECK(vfwd_knob_set(&o, "gro", "on", "x", err, sizeof(err)) == 0 && o.knobs.gro.enabled);
	CHECK(vfwd_knob_set(&o, "gro", "off", "x", err, sizeof(err)) == 0 && !o.knobs.gro.enabled);
	CHECK(vfwd_knob_set(&o, "gro-mode", "heavy", "x", err, sizeof(err)) == 0 &&
	      o.knobs.gro.mode == VFWD_GRO_HEAVY);
	CHECK(vfwd_knob_set(&o, "gro-flush-us", "0", "x", err, sizeof(err)) == 0 &&
	      o.knobs.gro.flush_us == 0);
	CHECK(vfwd_knob_set(&o, "stats-period", "off", "x", err, sizeof(err)) == 0 &&
	      o.stats_period_s == 0);
	CHECK(vfwd_knob_set(&o, "stats-period", "0.25", "x", err, sizeof(err)) == 0 &&
	      o.stats_period_s == 0.25);
	CHECK(vfwd_knob_set(&o, "stats-format", "json", "x", err, sizeof(err)) == 0 &&
	      o.stats_format == VFWD_STATS_JSON);
}

static void
bad_values_change_nothing(void)
{
	static const struct {
		const char *knob, *val;
	} bad[] = {
		{"burst", "0"},        {"burst", "513"},         {"burst", ""},
		{"burst", "-1"},       {"burst", "16 "},         {"tx-retry", "10001"},
		{"gro", "yes"},        {"gro", "ON"},            {"gro-mode", "medium"},
		{"gro-flush-us", "x"}, {"gro-flows", "0"},       {"gro-flows", "1025"},
		{"stats-period", "0"}, {"stats-period", "-1"},   {"stats-period", "nan"},
		{"stats-format", "xml"},
	};
	struct vfwd_options o, before;
	char err[128];

	vfwd_options_defaults(&o);
	before = o;
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		CHECK(vfwd_knob_set(&o, bad[i].knob, bad[i].val, "set it", err, sizeof(err)) ==
		      -EINVAL);
		CHECK(strstr(err, "set it") != NULL && strstr(err, "expected") != NULL);
		CHECK(memcmp(&o, &before, sizeof(o)) == 0);
	}
	CHECK(vfwd_knob_set(&o, "nosuch", "1", "set nosuch", err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "nosuch") != NULL);
	CHECK(vfwd_knob_set(&o, "burst", NULL, "set burst", err, sizeof(err)) == -EINVAL);
	CHECK(memcmp(&o, &before, sizeof(o)) == 0);
}

/* Random strings into every setter: none crashes, a refused value leaves
 * the options untouched, an accepted one changes at most that knob's
 * own get() output. */
static void
random_values(void)
{
	static const char alphabet[] = "0123456789.-+eExXnNaifoflnhtsjgvy \t#\x01\xff";
	struct vfwd_options o, before;
	char val[24], err[128], a[64], b[64];

	srand(12345);
	vfwd_options_defaults(&o);
	for (int round = 0; round < 200000; round++) {
		unsigned int k = (unsigned int)rand() % vfwd_nb_knobs;
		int len = rand() % (int)(sizeof(val) - 1);

		for (int i = 0; i < len; i++)
			val[i] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
		val[len] = '\0';
		before = o;
		if (vfwd_knob_set(&o, vfwd_knobs[k].name, val, "x", err, sizeof(err)) != 0) {
			CHECK(memcmp(&o, &before, sizeof(o)) == 0);
			continue;
		}
		for (unsigned int j = 0; j < vfwd_nb_knobs; j++) {
			if (j == k)
				continue;
			vfwd_knobs[j].get(&o, a, sizeof(a));
			vfwd_knobs[j].get(&before, b, sizeof(b));
			CHECK(strcmp(a, b) == 0);
		}
	}
}

int
main(void)
{
	RUN(table_is_sane);
	RUN(get_set_round_trip);
	RUN(good_values);
	RUN(bad_values_change_nothing);
	RUN(random_values);
	return CHECK_DONE();
}

/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The knob table, every knob of it against knob_spec.h: its field, its
 * range and spellings (good values at the boundaries; bad ones refused
 * with the knob and the value named and the options untouched), its
 * default, how it applies; get -> set -> get from non-default values and
 * from random valid ones; and random strings into random setters (a
 * refused value changes nothing, an accepted one only its own knob).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "knob_spec.h"
#include "knobs.h"

static unsigned int
rnd(void)
{
	return (unsigned int)rand();
}

/* The table and the specs name the same knobs, once each. */
static void
table_is_sane(void)
{
	CHECK(vfwd_nb_knobs == EXPECTED_NB_KNOBS);
	CHECK(RTE_DIM(knob_specs) == EXPECTED_NB_KNOBS);
	for (unsigned int i = 0; i < vfwd_nb_knobs; i++) {
		const struct vfwd_knob *k = &vfwd_knobs[i];

		CHECK(k->name && k->values && k->def && k->help && k->set && k->get);
		CHECK(k->name[0] != '\0' && k->values[0] != '\0' && k->def[0] != '\0' &&
		      k->help[0] != '\0');
		CHECK(vfwd_knob_find(k->name) == k);
		/* names are option and command words: no blanks, no '#' */
		CHECK(strpbrk(k->name, " \t#=") == NULL);
		CHECK(spec_find(k->name) != NULL);
		if (spec_find(k->name) == NULL)
			fprintf(stderr, "# knob '%s' has no entry in knob_spec.h\n", k->name);
	}
	for (size_t i = 0; i < RTE_DIM(knob_specs); i++) {
		CHECK(vfwd_knob_find(knob_specs[i].name) != NULL);
		if (vfwd_knob_find(knob_specs[i].name) == NULL)
			fprintf(stderr, "# knob_spec.h: no knob '%s'\n", knob_specs[i].name);
	}
	CHECK(vfwd_knob_find("nosuch") == NULL);
	CHECK(vfwd_knob_find("") == NULL);
	CHECK(vfwd_knob_find("Burst") == NULL);
	CHECK(vfwd_knob_find("burst ") == NULL);
}

/* What help and the error messages show is what the setter takes: the
 * range of a number, every word of a choice; and the apply class. */
static void
values_text_and_apply(void)
{
	for (size_t i = 0; i < RTE_DIM(knob_specs); i++) {
		const struct knob_spec *s = &knob_specs[i];
		const struct vfwd_knob *k = vfwd_knob_find(s->name);
		char want[64];

		if (k == NULL)
			continue;
		CHECK(k->apply == s->apply);
		if (k->apply != s->apply)
			fprintf(stderr, "# %s: apply %d, expected %d\n", s->name, k->apply, s->apply);
		switch (s->kind) {
		case SPEC_UINT:
			snprintf(want, sizeof(want), "%lu..%lu", s->min, s->max);
			CHECK(strcmp(k->values, want) == 0);
			if (strcmp(k->values, want) != 0)
				fprintf(stderr, "# %s: values '%s', takes %s\n", s->name, k->values,
					want);
			break;
		case SPEC_WORDS: {
			unsigned int n = 1;

			for (const char *p = k->values; *p; p++)
				n += *p == '|';
			CHECK(n == spec_nb_words(s));
			for (unsigned int w = 0; s->words[w] != NULL; w++) {
				/* the word, between '|' or the ends */
				size_t len = strlen(s->words[w]);
				const char *p = k->values;
				bool found = false;

				while ((p = strstr(p, s->words[w])) != NULL && !found) {
					found = (p == k->values || p[-1] == '|') &&
						(p[len] == '\0' || p[len] == '|');
					p++;
				}
				CHECK(found);
				if (!found)
					fprintf(stderr, "# %s: '%s' not in '%s'\n", s->name,
						s->words[w], k->values);
			}
			break;
		}
		case SPEC_SECONDS:
			CHECK(strstr(k->values, "off") != NULL);
			break;
		case SPEC_PIPELINE:
			CHECK(strstr(k->values, "off") != NULL && strstr(k->values, "R:W") != NULL &&
			      strstr(k->values, "1..16") != NULL);
			break;
		}
	}
}

/* The defaults the specs (and README) give. */
static void
defaults(void)
{
	struct vfwd_options o;

	vfwd_options_defaults(&o);
	for (size_t i = 0; i < RTE_DIM(knob_specs); i++) {
		const struct knob_spec *s = &knob_specs[i];

		if (s->kind == SPEC_UINT || s->kind == SPEC_WORDS) {
			CHECK(spec_get(s, &o) == s->def);
			if (spec_get(s, &o) != s->def)
				fprintf(stderr, "# %s: default %lu, expected %lu\n", s->name,
					(unsigned long)spec_get(s, &o), s->def);
		}
	}
	CHECK(o.stats_period_s == 0 && o.pipe_rx == 0 && o.pipe_work == 0);
	/* the defaults come from the table's def, written as get writes it
	 * (what usage shows is what show config then says) */
	for (unsigned int i = 0; i < vfwd_nb_knobs; i++) {
		char now[64];

		vfwd_knobs[i].get(&o, now, sizeof(now));
		CHECK(strcmp(now, vfwd_knobs[i].def) == 0);
		if (strcmp(now, vfwd_knobs[i].def) != 0)
			fprintf(stderr, "# %s: default reads back '%s', table says '%s'\n",
				vfwd_knobs[i].name, now, vfwd_knobs[i].def);
	}
}

/* Every good value of every knob, from defaults and from options where
 * every other knob is off its default: the knob's field (and nothing
 * else) takes the value, and get gives it back in a form set takes. */
static void
check_good(const struct vfwd_options *start)
{
	for (size_t i = 0; i < RTE_DIM(knob_specs); i++) {
		const struct knob_spec *s = &knob_specs[i];
		struct spec_value good[16];
		unsigned int n = spec_good_values(s, good);

		for (unsigned int g = 0; g < n; g++) {
			struct vfwd_options o = *start, want = *start, again;
			char what[64], err[256], got[64], got2[64];

			snprintf(what, sizeof(what), "set %s", s->name);
			spec_apply(s, &want, &good[g]);
			err[0] = '\0';
			CHECK(vfwd_knob_set(&o, s->name, good[g].text, what, err, sizeof(err)) == 0);
			CHECK(memcmp(&o, &want, sizeof(o)) == 0);
			if (memcmp(&o, &want, sizeof(o)) != 0)
				fprintf(stderr, "# %s '%s' not applied as expected (%s)\n", s->name,
					good[g].text, err);
			/* get -> set -> get */
			vfwd_knob_find(s->name)->get(&o, got, sizeof(got));
			again = *start;
			CHECK(vfwd_knob_find(s->name)->set(&again, got) == 0);
			CHECK(memcmp(&again, &o, sizeof(o)) == 0);
			vfwd_knob_find(s->name)->get(&again, got2, sizeof(got2));
			CHECK(strcmp(got, got2) == 0);
		}
	}
}

static void
set_all_non_default(struct vfwd_options *o)
{
	vfwd_options_defaults(o);
	for (size_t i = 0; i < RTE_DIM(knob_specs); i++) {
		struct spec_value v = spec_non_default(&knob_specs[i]);
		char err[256];

		CHECK(vfwd_knob_set(o, knob_specs[i].name, v.text, "x", err, sizeof(err)) == 0);
	}
}

static void
good_values(void)
{
	struct vfwd_options o;

	vfwd_options_defaults(&o);
	check_good(&o);
	set_all_non_default(&o);
	check_good(&o);
}

/* Bad values: refused with -EINVAL, the message names what was set, the
 * value and what is expected, and the options are untouched; from
 * defaults and from non-default options. */
static void
check_bad(const struct vfwd_options *start)
{
	for (size_t i = 0; i < RTE_DIM(knob_specs); i++) {
		const struct knob_spec *s = &knob_specs[i];
		const struct vfwd_knob *k = vfwd_knob_find(s->name);
		char bad[SPEC_MAX_BAD][40];
		unsigned int n = spec_bad_values(s, bad);

		if (n > SPEC_MAX_BAD)
			abort();
		for (unsigned int b = 0; b < n; b++) {
			struct vfwd_options o = *start;
			char what[64], err[256], want[128];
			int ret;

			snprintf(what, sizeof(what), "set %s", s->name);
			snprintf(want, sizeof(want), "'%.39s'", bad[b]);
			err[0] = '\0';
			ret = vfwd_knob_set(&o, s->name, bad[b], what, err, sizeof(err));
			CHECK(ret == -EINVAL);
			CHECK(memcmp(&o, start, sizeof(o)) == 0);
			CHECK(strstr(err, what) != NULL && strstr(err, want) != NULL);
			CHECK(k != NULL && strstr(err, k->values) != NULL);
			if (ret != -EINVAL || memcmp(&o, start, sizeof(o)) != 0)
				fprintf(stderr, "# %s '%s' not refused (ret %d)\n", s->name, bad[b],
					ret);
			/* the setter alone refuses it too */
			o = *start;
			CHECK(k != NULL && k->set(&o, bad[b]) == -EINVAL);
			CHECK(memcmp(&o, start, sizeof(o)) == 0);
		}
		/* no value at all */
		{
			struct vfwd_options o = *start;
			char err[256];

			CHECK(vfwd_knob_set(&o, s->name, NULL, "set it", err, sizeof(err)) == -EINVAL);
			CHECK(strstr(err, "set it") != NULL);
			CHECK(memcmp(&o, start, sizeof(o)) == 0);
		}
	}
}

static void
bad_values_change_nothing(void)
{
	struct vfwd_options o;
	char err[128];

	vfwd_options_defaults(&o);
	check_bad(&o);
	set_all_non_default(&o);
	check_bad(&o);
	{
		struct vfwd_options before = o;

		CHECK(vfwd_knob_set(&o, "nosuch", "1", "set nosuch", err, sizeof(err)) == -ENOENT);
		CHECK(strstr(err, "nosuch") != NULL);
		CHECK(vfwd_knob_set(&o, "", "1", "set", err, sizeof(err)) == -ENOENT);
		CHECK(memcmp(&o, &before, sizeof(o)) == 0);
	}
}

/* get -> set -> get from options that are all off their defaults: each
 * knob's get gives its own non-default value, and setting it back
 * changes nothing. */
static void
round_trip_non_default(void)
{
	struct vfwd_options o, def;

	vfwd_options_defaults(&def);
	set_all_non_default(&o);
	for (size_t i = 0; i < RTE_DIM(knob_specs); i++) {
		const struct knob_spec *s = &knob_specs[i];
		const struct vfwd_knob *k = vfwd_knob_find(s->name);
		struct spec_value v = spec_non_default(s);
		struct vfwd_options copy = o, want = def;
		char got[64], got2[64], dflt[64];

		if (k == NULL)
			continue;
		/* the state really is off the default, for this knob */
		spec_apply(s, &want, &v);
		k->get(&o, got, sizeof(got));
		k->get(&def, dflt, sizeof(dflt));
		CHECK(strcmp(got, dflt) != 0);
		CHECK(strcmp(got, v.text) == 0);
		if (strcmp(got, v.text) != 0)
			fprintf(stderr, "# %s: get '%s', set '%s'\n", s->name, got, v.text);
		/* set what get gave, on a copy: nothing moves */
		CHECK(k->set(&copy, got) == 0);
		CHECK(memcmp(&copy, &o, sizeof(o)) == 0);
		k->get(&copy, got2, sizeof(got2));
		CHECK(strcmp(got, got2) == 0);
		/* and onto defaults: only this knob moves */
		copy = def;
		CHECK(k->set(&copy, got) == 0);
		CHECK(memcmp(&copy, &want, sizeof(want)) == 0);
	}
}

/* Random valid values into random knobs: each lands in its field only,
 * and get -> set -> get gives the same options back. */
static void
round_trip_random(void)
{
	struct vfwd_options o;

	srand(777);
	vfwd_options_defaults(&o);
	for (int round = 0; round < 20000; round++) {
		const struct knob_spec *s = &knob_specs[rnd() % RTE_DIM(knob_specs)];
		const struct vfwd_knob *k = vfwd_knob_find(s->name);
		struct spec_value v = spec_random(s, rnd);
		struct vfwd_options want = o, copy;
		char err[256], got[64], got2[64];

		if (k == NULL)
			continue;
		spec_apply(s, &want, &v);
		CHECK(vfwd_knob_set(&o, s->name, v.text, "x", err, sizeof(err)) == 0);
		CHECK(memcmp(&o, &want, sizeof(o)) == 0);
		if (memcmp(&o, &want, sizeof(o)) != 0) {
			fprintf(stderr, "# %s '%s' not applied as expected\n", s->name, v.text);
			o = want;
		}
		/* every knob, not only this one, survives get -> set -> get */
		for (unsigned int j = 0; j < vfwd_nb_knobs; j++) {
			vfwd_knobs[j].get(&o, got, sizeof(got));
			copy = o;
			CHECK(vfwd_knobs[j].set(&copy, got) == 0);
			CHECK(memcmp(&copy, &o, sizeof(o)) == 0);
			vfwd_knobs[j].get(&copy, got2, sizeof(got2));
			CHECK(strcmp(got, got2) == 0);
		}
	}
}

/* Random strings into every setter: none crashes, a refused value leaves
 * the options untouched, an accepted one changes at most that knob's
 * own get() output. */
static void
random_values(void)
{
	static const char alphabet[] = "0123456789.-+:eExXnNaifoflnhtsjgvy \t#\x01\xff";
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
	RUN(values_text_and_apply);
	RUN(defaults);
	RUN(good_values);
	RUN(bad_values_change_nothing);
	RUN(round_trip_non_default);
	RUN(round_trip_random);
	RUN(random_values);
	return CHECK_DONE();
}

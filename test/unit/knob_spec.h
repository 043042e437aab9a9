/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What the unit tests expect of every knob (app/knobs.c), written down
 * apart from the knob table so that the two can disagree: the field it
 * sets, the values it takes, its default and how a change applies. Shared
 * by test_knobs (vfwd_knob_set) and test_options (--<knob> <value>).
 * A knob in the table without an entry here, or an entry without its
 * knob, fails both tests.
 */
#ifndef VFWD_TEST_KNOB_SPEC_H
#define VFWD_TEST_KNOB_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "knobs.h"

#define EXPECTED_NB_KNOBS 30
_Static_assert(VFWD_MAX_PIPE == 16, "the pipeline values below assume 16");

enum spec_kind {
	SPEC_UINT,     /* a decimal integer in [min, max] into one field */
	SPEC_WORDS,    /* one of words[], its index into one field */
	SPEC_SECONDS,  /* stats-period: seconds in (0, max] or "off" (0) */
	SPEC_PIPELINE, /* "off" or "R:W", each 1..VFWD_MAX_PIPE */
};

struct knob_spec {
	const char *name;
	enum spec_kind kind;
	enum vfwd_knob_apply apply;
	size_t off, size; /* the field (UINT, WORDS) */
	unsigned long min, max;
	const char *const *words; /* NULL-terminated */
	unsigned long def;        /* the default (UINT, WORDS) */
};

#define SPEC_FIELD(f) offsetof(struct vfwd_options, f), sizeof(((struct vfwd_options *)0)->f)
#define SPEC_U(n, ap, f, lo, hi, d) {n, SPEC_UINT, ap, SPEC_FIELD(f), lo, hi, NULL, d}
#define SPEC_W(n, ap, f, w, d) {n, SPEC_WORDS, ap, SPEC_FIELD(f), 0, 0, w, d}

static const char *const spec_on_off[] = {"off", "on", NULL};
static const char *const spec_gro_modes[] = {"light", "heavy", NULL};
static const char *const spec_gro_engines[] = {"vfwd", "dpdk", NULL};
static const char *const spec_gro_flushes[] = {"complete", "timeout", NULL};
static const char *const spec_rx_modes[] = {"poll", "napi", "adaptive", NULL};
static const char *const spec_nap_wakes[] = {"timer", "kick", NULL};
static const char *const spec_delivers[] = {"direct", "deferred", NULL};
static const char *const spec_formats[] = {"text", "json", NULL};
static const char *const spec_notify_modes[] = {"immediate", "coalesce", "adaptive", NULL};

static const struct knob_spec knob_specs[] = {
	SPEC_U("burst", VFWD_APPLY_LIVE, knobs.burst, 1, 512, 32),
	SPEC_U("tx-retry", VFWD_APPLY_LIVE, knobs.tx_retry, 0, 10000, 8),
	SPEC_W("gro", VFWD_APPLY_LIVE, knobs.gro.enabled, spec_on_off, 0),
	SPEC_W("gro-mode", VFWD_APPLY_LIVE, knobs.gro.mode, spec_gro_modes, 1),
	SPEC_W("gro-engine", VFWD_APPLY_LIVE, knobs.gro.engine, spec_gro_engines, 0),
	SPEC_W("gro-flush-policy", VFWD_APPLY_LIVE, knobs.gro.flush, spec_gro_flushes, 1),
	SPEC_U("gro-flush-us", VFWD_APPLY_LIVE, knobs.gro.flush_us, 0, 1000000, 500),
	SPEC_U("gro-flows", VFWD_APPLY_RESTART, knobs.gro.max_flows, 1, 1024, 64),
	SPEC_W("rx-mode", VFWD_APPLY_LIVE, knobs.rx_mode, spec_rx_modes, 0),
	SPEC_U("napi-weight", VFWD_APPLY_LIVE, knobs.napi_weight, 1, 4096, 64),
	SPEC_U("round-budget", VFWD_APPLY_LIVE, knobs.round_budget, 0, 1000000, 300),
	SPEC_U("round-budget-us", VFWD_APPLY_LIVE, knobs.round_budget_us, 0, 1000000, 2000),
	SPEC_U("defer-polls", VFWD_APPLY_LIVE, knobs.defer_polls, 0, 1000000, 32),
	SPEC_U("busy-poll-us", VFWD_APPLY_LIVE, knobs.busy_poll_us, 0, 1000000, 50),
	SPEC_U("sleep-max-us", VFWD_APPLY_LIVE, knobs.sleep_max_us, 1, 100000, 10000),
	SPEC_W("nap-wake", VFWD_APPLY_LIVE, knobs.nap_wake, spec_nap_wakes, 0),
	SPEC_W("deliver", VFWD_APPLY_LIVE, knobs.deliver, spec_delivers, 0),
	SPEC_U("backlog", VFWD_APPLY_RESTART, backlog, 1, 1048576, 1000),
	{"pipeline", SPEC_PIPELINE, VFWD_APPLY_RESTART, 0, 0, 1, VFWD_MAX_PIPE, NULL, 0},
	SPEC_U("tx-batch", VFWD_APPLY_LIVE, knobs.tx_batch, 1, 512, 1),
	SPEC_U("tx-flush-us", VFWD_APPLY_LIVE, knobs.tx_flush_us, 0, 1000000, 50),
	SPEC_W("tx-hold-idle", VFWD_APPLY_LIVE, knobs.tx_hold_idle, spec_on_off, 0),
	SPEC_U("vq-weight-pkts", VFWD_APPLY_LIVE, knobs.vq_weight_pkts, 0, 65535, 256),
	SPEC_U("vq-weight-bytes", VFWD_APPLY_LIVE, knobs.vq_weight_bytes, 0, 1073741824, 524288),
	SPEC_W("notify", VFWD_APPLY_LIVE, knobs.notify, spec_notify_modes, 0),
	SPEC_U("notify-usecs", VFWD_APPLY_LIVE, knobs.notify_usecs, 1, 1000000, 50),
	SPEC_U("notify-frames", VFWD_APPLY_LIVE, knobs.notify_frames, 1, 65535, 32),
	SPEC_W("latency", VFWD_APPLY_LIVE, knobs.latency, spec_on_off, 0),
	{"stats-period", SPEC_SECONDS, VFWD_APPLY_CONTROL, 0, 0, 0, 86400, NULL, 0},
	SPEC_W("stats-format", VFWD_APPLY_CONTROL, stats_format, spec_formats, 0),
};

static inline const struct knob_spec *
spec_find(const char *name)
{
	for (size_t i = 0; i < sizeof(knob_specs) / sizeof(knob_specs[0]); i++)
		if (strcmp(knob_specs[i].name, name) == 0)
			return &knob_specs[i];
	return NULL;
}

static inline unsigned int
spec_nb_words(const struct knob_spec *s)
{
	unsigned int n = 0;

	while (s->words[n] != NULL)
		n++;
	return n;
}

/* The field of a UINT or WORDS knob, whatever its width. */
static inline uint64_t
spec_get(const struct knob_spec *s, const struct vfwd_options *o)
{
	const uint8_t *p = (const uint8_t *)o + s->off;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (s->size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

static inline void
spec_put(const struct knob_spec *s, struct vfwd_options *o, uint64_t v)
{
	uint8_t *p = (uint8_t *)o + s->off;
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (s->size) {
	case 1:
		memcpy(p, &u8, 1);
		break;
	case 2:
		memcpy(p, &u16, 2);
		break;
	case 4:
		memcpy(p, &u32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

/* One value a knob accepts and what it must leave in the options. */
struct spec_value {
	char text[32];
	uint64_t v;    /* UINT: the number; WORDS: the index; PIPELINE: R << 16 | W */
	double secs;   /* SECONDS (0: off) */
};

/* Apply an accepted value to o the way the knob should. */
static inline void
spec_apply(const struct knob_spec *s, struct vfwd_options *o, const struct spec_value *v)
{
	switch (s->kind) {
	case SPEC_UINT:
	case SPEC_WORDS:
		spec_put(s, o, v->v);
		break;
	case SPEC_SECONDS:
		o->stats_period_s = v->secs;
		break;
	case SPEC_PIPELINE:
		o->pipe_rx = (uint16_t)(v->v >> 16);
		o->pipe_work = (uint16_t)(v->v & 0xffff);
		break;
	}
}

static inline unsigned int
spec_add_uint(struct spec_value *out, unsigned int n, unsigned long v)
{
	snprintf(out[n].text, sizeof(out[n].text), "%lu", v);
	out[n].v = v;
	return n + 1;
}

/* The values a knob must accept: its boundaries, their neighbours
 * inside, a middle one, and the other spellings it takes. */
static inline unsigned int
spec_good_values(const struct knob_spec *s, struct spec_value *out)
{
	unsigned int n = 0;

	memset(out, 0, 16 * sizeof(*out));
	switch (s->kind) {
	case SPEC_UINT:
		n = spec_add_uint(out, n, s->min);
		n = spec_add_uint(out, n, s->min + 1);
		n = spec_add_uint(out, n, s->min + (s->max - s->min) / 2);
		n = spec_add_uint(out, n, s->max - 1);
		n = spec_add_uint(out, n, s->max);
		/* leading zeros are still decimal */
		snprintf(out[n].text, sizeof(out[n].text), "00%lu", s->max);
		out[n++].v = s->max;
		break;
	case SPEC_WORDS:
		for (unsigned int i = 0; s->words[i] != NULL; i++) {
			snprintf(out[n].text, sizeof(out[n].text), "%s", s->words[i]);
			out[n++].v = i;
		}
		break;
	case SPEC_SECONDS: {
		static const struct {
			const char *t;
			double v;
		} secs[] = {{"off", 0},        {"0.001", 0.001}, {".5", 0.5},   {"1", 1},
			    {"2.5", 2.5},      {"60", 60},       {"1e2", 100},  {"86400", 86400},
			    {"86399.9", 86399.9}};

		for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
			snprintf(out[n].text, sizeof(out[n].text), "%s", secs[i].t);
			out[n++].secs = secs[i].v;
		}
		break;
	}
	case SPEC_PIPELINE: {
		static const unsigned int rw[][2] = {{1, 1}, {1, 16}, {16, 1}, {16, 16}, {3, 5}};

		snprintf(out[n].text, sizeof(out[n].text), "off");
		out[n++].v = 0;
		for (size_t i = 0; i < sizeof(rw) / sizeof(rw[0]); i++) {
			snprintf(out[n].text, sizeof(out[n].text), "%u:%u", rw[i][0], rw[i][1]);
			out[n++].v = (uint64_t)rw[i][0] << 16 | rw[i][1];
		}
		break;
	}
	}
	return n;
}

/* A value unlike the default (for round trips from non-default state). */
static inline struct spec_value
spec_non_default(const struct knob_spec *s)
{
	struct spec_value v;

	memset(&v, 0, sizeof(v));
	switch (s->kind) {
	case SPEC_UINT:
		/* neither the default nor a boundary */
		v.v = s->def == s->max - 1 ? s->max - 2 : s->max - 1;
		snprintf(v.text, sizeof(v.text), "%lu", (unsigned long)v.v);
		break;
	case SPEC_WORDS:
		v.v = s->def == 0 ? spec_nb_words(s) - 1 : 0;
		snprintf(v.text, sizeof(v.text), "%s", s->words[v.v]);
		break;
	case SPEC_SECONDS:
		v.secs = 2.5;
		snprintf(v.text, sizeof(v.text), "2.5");
		break;
	case SPEC_PIPELINE:
		v.v = 3u << 16 | 5u;
		snprintf(v.text, sizeof(v.text), "3:5");
		break;
	}
	return v;
}

/* Digits of a random stats-period (decimal, as the options take it):
 * every one of them must survive get -> set. */
#define SPEC_SECONDS_DIGITS 8

/* A random accepted value. */
static inline struct spec_value
spec_random(const struct knob_spec *s, unsigned int (*rnd)(void))
{
	struct spec_value v;

	memset(&v, 0, sizeof(v));
	switch (s->kind) {
	case SPEC_UINT: {
		uint64_t span = (uint64_t)s->max - s->min + 1;
		uint64_t r = ((uint64_t)rnd() << 32 | rnd()) % span;

		v.v = s->min + r;
		snprintf(v.text, sizeof(v.text), "%lu", (unsigned long)v.v);
		break;
	}
	case SPEC_WORDS:
		v.v = rnd() % spec_nb_words(s);
		snprintf(v.text, sizeof(v.text), "%s", s->words[v.v]);
		break;
	case SPEC_SECONDS:
		if (rnd() % 8 == 0) {
			snprintf(v.text, sizeof(v.text), "off");
			v.secs = 0;
		} else {
			/* SPEC_SECONDS_DIGITS digits with the point anywhere in
			 * them: 0.00012345678 .. 99.999999 */
			char digits[24];
			int point = (int)(rnd() % 6) - 3, nd = SPEC_SECONDS_DIGITS;

			digits[0] = (char)('1' + rnd() % 9);
			for (int d = 1; d < nd && d < 20; d++)
				digits[d] = (char)('0' + rnd() % 10);
			digits[nd < 20 ? nd : 20] = '\0';
			if (point <= 0)
				snprintf(v.text, sizeof(v.text), "0.%.*s%s", -point, "000", digits);
			else
				snprintf(v.text, sizeof(v.text), "%.*s.%s", point, digits, digits + point);
			sscanf(v.text, "%lf", &v.secs);
			if (v.secs > 86400) {
				snprintf(v.text, sizeof(v.text), "86400");
				v.secs = 86400;
			}
		}
		break;
	case SPEC_PIPELINE:
		if (rnd() % 8 == 0) {
			snprintf(v.text, sizeof(v.text), "off");
		} else {
			unsigned int r = 1 + rnd() % VFWD_MAX_PIPE, w = 1 + rnd() % VFWD_MAX_PIPE;

			snprintf(v.text, sizeof(v.text), "%u:%u", r, w);
			v.v = (uint64_t)r << 16 | w;
		}
		break;
	}
	return v;
}

/* Values the knob must refuse. */
static inline unsigned int
spec_bad_values(const struct knob_spec *s, char (*out)[40])
{
	static const char *const common[] = {"", " ", "x", "-", "+", "\t1", "#"};
	unsigned int n = 0;

	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		snprintf(out[n++], 40, "%s", common[i]);
	switch (s->kind) {
	case SPEC_UINT:
		if (s->min > 0)
			snprintf(out[n++], 40, "%lu", s->min - 1);
		snprintf(out[n++], 40, "%lu", s->max + 1);
		snprintf(out[n++], 40, "%lu0", s->max);
		snprintf(out[n++], 40, "-%lu", s->min + 1);
		snprintf(out[n++], 40, "+%lu", s->min + 1);
		snprintf(out[n++], 40, " %lu", s->min + 1);
		snprintf(out[n++], 40, "%lu ", s->min + 1);
		snprintf(out[n++], 40, "%lux", s->min + 1);
		snprintf(out[n++], 40, "%lu.0", s->min + 1);
		snprintf(out[n++], 40, "%lu.5", s->min);
		snprintf(out[n++], 40, "1e3");
		snprintf(out[n++], 40, "0x10");
		snprintf(out[n++], 40, "99999999999999999999999");
		snprintf(out[n++], 40, "18446744073709551617"); /* 2^64 + 1 */
		snprintf(out[n++], 40, "4294967297");           /* 2^32 + 1 */
		snprintf(out[n++], 40, "on");
		break;
	case SPEC_WORDS:
		for (unsigned int i = 0; s->words[i] != NULL; i++) {
			const char *w = s->words[i];
			char up[32];

			snprintf(up, sizeof(up), "%s", w);
			up[0] = (char)(up[0] - 'a' + 'A');
			snprintf(out[n++], 40, "%s", up);      /* case matters */
			snprintf(out[n++], 40, "%s ", w);      /* trailing blank */
			snprintf(out[n++], 40, " %s", w);      /* leading blank */
			snprintf(out[n++], 40, "%.*s", (int)strlen(w) - 1, w); /* a prefix */
			snprintf(out[n++], 40, "%sx", w);      /* longer */
			snprintf(out[n++], 40, "%u", i);       /* its index */
		}
		snprintf(out[n++], 40, "%s", s->words == spec_on_off ? "yes" : "on");
		break;
	case SPEC_SECONDS:
		snprintf(out[n++], 40, "0");
		snprintf(out[n++], 40, "0.0");
		snprintf(out[n++], 40, "-1");
		snprintf(out[n++], 40, "+1");
		snprintf(out[n++], 40, "86400.01");
		snprintf(out[n++], 40, "86401");
		snprintf(out[n++], 40, "1e99");
		snprintf(out[n++], 40, "1e999");
		snprintf(out[n++], 40, "nan");
		snprintf(out[n++], 40, "inf");
		snprintf(out[n++], 40, "1s");
		snprintf(out[n++], 40, "1 ");
		snprintf(out[n++], 40, " 1");
		snprintf(out[n++], 40, "OFF");
		snprintf(out[n++], 40, "off ");
		snprintf(out[n++], 40, "1e-400"); /* underflows to 0 */
		break;
	case SPEC_PIPELINE: {
			static const char *const bad[] = {
				"0:1", "1:0", "17:1", "1:17", "1", "1:", ":1", ":", "a:b", "1:2:3",
				"-1:2", "1:-2", "+1:2", "1:2 ", " 1:2", "1 :2", "1: 2", "1x:2",
				"1;2", "0:0", "OFF", "on", "00000000000001:1", "99999999999999999999:1"};

			for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
				snprintf(out[n++], 40, "%s", bad[i]);
			break;
		}
	}
	return n;
}

#define SPEC_MAX_BAD 64

#endif

/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The knob table: names, accepted values, defaults, help and how a change
 * is applied; the options, their usage and the prompt's set are made from it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knobs.h"

/* A decimal integer in [min, max], nothing else: no sign, no blanks, no
 * trailing characters, no overflow. */
int
vfwd_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Seconds: a positive decimal number up to max (e.g. "2", "0.5"). */
int
vfwd_parse_seconds(const char *s, double max, double *out)
{
	char *end;
	double v;

	/* decimal (an exponent allowed): strtod would also take hex ("0x10") */
	if (s == NULL || ((*s < '0' || *s > '9') && *s != '.') ||
	    strspn(s, "0123456789.eE+-") != strlen(s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v) || v <= 0 || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int
vfwd_parse_word(const char *s, const char *const *words)
{
	for (int i = 0; words[i] != NULL; i++)
		if (strcmp(s, words[i]) == 0)
			return i;
	return -1;
}

static const char *const on_off[] = {"off", "on", NULL};
static const char *const gro_modes[] = {"light", "heavy", NULL};
static const char *const gro_engines[] = {"vfwd", "dpdk", NULL};
static const char *const gro_flushes[] = {"complete", "timeout", NULL};
static const char *const formats[] = {"text", "json", NULL};
static const char *const rx_modes[] = {"poll", "napi", "adaptive", NULL};
static const char *const nap_wakes[] = {"timer", "kick", NULL};
static const char *const delivers[] = {"direct", "deferred", NULL};
static const char *const notify_modes[] = {"immediate", "coalesce", "adaptive", NULL};

#define UINT_KNOB(fn, field, min, max)                                                    \
	static int set_##fn(struct vfwd_options *o, const char *val)                      \
	{                                                                                 \
		unsigned long v;                                                          \
		if (vfwd_parse_uint(val, (min), (max), &v) != 0)                          \
			return -EINVAL;                                                   \
		o->field = v;                                                             \
		return 0;                                                                 \
	}                                                                                 \
	static void get_##fn(const struct vfwd_options *o, char *buf, size_t len)         \
	{                                                                                 \
		snprintf(buf, len, "%lu", (unsigned long)o->field);                       \
	}

#define WORD_KNOB(fn, field, words, type)                                                 \
	static int set_##fn(struct vfwd_options *o, const char *val)                      \
	{                                                                                 \
		int i = vfwd_parse_word(val, words);                                           \
		if (i < 0)                                                                \
			return -EINVAL;                                                   \
		o->field = (type)i;                                                       \
		return 0;                                                                 \
	}                                                                                 \
	static void get_##fn(const struct vfwd_options *o, char *buf, size_t len)         \
	{                                                                                 \
		snprintf(buf, len, "%s", words[o->field]);                                \
	}

UINT_KNOB(burst, knobs.burst, 1, VFWD_MAX_BURST)
UINT_KNOB(tx_retry, knobs.tx_retry, 0, VFWD_MAX_TX_RETRY)
UINT_KNOB(gro_flush_us, knobs.gro.flush_us, 0, 1000000)
UINT_KNOB(gro_flows, knobs.gro.max_flows, 1, VFWD_GRO_MAX_FLOWS)
UINT_KNOB(napi_weight, knobs.napi_weight, 1, 4096)
UINT_KNOB(round_budget, knobs.round_budget, 0, 1000000)
UINT_KNOB(round_budget_us, knobs.round_budget_us, 0, 1000000)
UINT_KNOB(defer_polls, knobs.defer_polls, 0, 1000000)
UINT_KNOB(sleep_max_us, knobs.sleep_max_us, 1, 100000)
UINT_KNOB(busy_poll_us, knobs.busy_poll_us, 0, 1000000)
UINT_KNOB(tx_batch, knobs.tx_batch, 1, VFWD_MAX_TX_BATCH)
UINT_KNOB(tx_flush_us, knobs.tx_flush_us, 0, 1000000)
WORD_KNOB(tx_hold_idle, knobs.tx_hold_idle, on_off, bool)
UINT_KNOB(vq_weight_pkts, knobs.vq_weight_pkts, 0, 65535)
UINT_KNOB(vq_weight_bytes, knobs.vq_weight_bytes, 0, 1u << 30)
UINT_KNOB(backlog, backlog, 1, 1u << 20)
UINT_KNOB(notify_usecs, knobs.notify_usecs, 1, 1000000)
UINT_KNOB(notify_frames, knobs.notify_frames, 1, 65535)
WORD_KNOB(gro, knobs.gro.enabled, on_off, bool)
WORD_KNOB(rx_mode, knobs.rx_mode, rx_modes, enum vfwd_rx_mode)
WORD_KNOB(nap_wake, knobs.nap_wake, nap_wakes, enum vfwd_nap_wake)
WORD_KNOB(deliver, knobs.deliver, delivers, enum vfwd_deliver)
WORD_KNOB(notify, knobs.notify, notify_modes, enum vfwd_notify_mode)
WORD_KNOB(latency, knobs.latency, on_off, bool)
WORD_KNOB(gro_mode, knobs.gro.mode, gro_modes, enum vfwd_gro_mode)
WORD_KNOB(gro_engine, knobs.gro.engine, gro_engines, enum vfwd_gro_engine)
WORD_KNOB(gro_flush_policy, knobs.gro.flush, gro_flushes, enum vfwd_gro_flush)
WORD_KNOB(stats_format, stats_format, formats, enum vfwd_stats_format)

static int
set_stats_period(struct vfwd_options *o, const char *val)
{
	double v;

	if (strcmp(val, "off") == 0) {
		o->stats_period_s = 0;
		return 0;
	}
	if (vfwd_parse_seconds(val, 86400, &v) != 0)
		return -EINVAL;
	o->stats_period_s = v;
	return 0;
}

static void
get_stats_period(const struct vfwd_options *o, char *buf, size_t len)
{
	if (o->stats_period_s == 0)
		snprintf(buf, len, "off");
	else
		/* the shortest form that reads back as the same value */
		for (int prec = 0; prec <= 20; prec++) {
			snprintf(buf, len, "%.*f", prec, o->stats_period_s);
			if (strtod(buf, NULL) == o->stats_period_s)
				break;
		}
}

/* "off" or "R:W": R rx lcores feeding W work lcores */
static int
set_pipeline(struct vfwd_options *o, const char *val)
{
	unsigned long r, w;
	char buf[16], *colon;

	if (strcmp(val, "off") == 0) {
		o->pipe_rx = o->pipe_work = 0;
		return 0;
	}
	if (strlen(val) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, val);
	colon = strchr(buf, ':');
	if (colon == NULL)
		return -EINVAL;
	*colon = '\0';
	if (vfwd_parse_uint(buf, 1, VFWD_MAX_PIPE, &r) != 0 ||
	    vfwd_parse_uint(colon + 1, 1, VFWD_MAX_PIPE, &w) != 0)
		return -EINVAL;
	o->pipe_rx = r;
	o->pipe_work = w;
	return 0;
}

static void
get_pipeline(const struct vfwd_options *o, char *buf, size_t len)
{
	if (o->pipe_rx == 0)
		snprintf(buf, len, "off");
	else
		snprintf(buf, len, "%u:%u", o->pipe_rx, o->pipe_work);
}

/* The defaults are the kernel's where it has the knob (doc/modes.md). */
const struct vfwd_knob vfwd_knobs[] = {
	{"burst", "1..512", "32", "packets asked of each rx burst (and the most sent at once)",
	 VFWD_APPLY_LIVE, set_burst, get_burst},
	{"tx-retry", "0..10000", "8", "extra tx attempts, made while the ring still takes packets",
	 VFWD_APPLY_LIVE, set_tx_retry, get_tx_retry},
	{"gro", "on|off", "off",
	 "merge TCP segments toward the VM (sent as GSO to guests that negotiated "
	 "GUEST_TSO4/6 + GUEST_CSUM)",
	 VFWD_APPLY_LIVE, set_gro, get_gro, "on"},
	{"gro-mode", "light|heavy", "heavy", "light: within a burst; heavy: across bursts",
	 VFWD_APPLY_LIVE, set_gro_mode, get_gro_mode},
	{"gro-engine", "vfwd|dpdk", "vfwd",
	 "vfwd: the kernel's GRO rules (TCP over IPv4/IPv6, VLAN, PSH); dpdk: librte_gro, "
	 "as dpdk-testpmd",
	 VFWD_APPLY_LIVE, set_gro_engine, get_gro_engine},
	{"gro-flush-policy", "complete|timeout", "timeout",
	 "heavy GRO: complete: all held goes when a poll runs the rx queue empty "
	 "(napi_complete, gro_flush_timeout 0); timeout: held across empty polls "
	 "until gro-flush-us (gro_flush_timeout + napi_defer_hard_irqs)",
	 VFWD_APPLY_LIVE, set_gro_flush_policy, get_gro_flush_policy},
	{"gro-flush-us", "0..1000000", "500",
	 "heavy GRO: nothing is held longer than this (us)",
	 VFWD_APPLY_LIVE, set_gro_flush_us, get_gro_flush_us},
	{"gro-flows", "1..1024", "64",
	 "flows GRO tracks at once (rebuilds GRO state: workers restart)",
	 VFWD_APPLY_RESTART, set_gro_flows, get_gro_flows},
	{"rx-mode", "poll|napi|adaptive", "poll",
	 "poll: busy; napi: sleep when idle (interrupts/naps); adaptive: on load",
	 VFWD_APPLY_LIVE, set_rx_mode, get_rx_mode},
	/* NAPI_POLL_WEIGHT */
	{"napi-weight", "1..4096", "64", "napi/adaptive: packets one queue may give per visit",
	 VFWD_APPLY_LIVE, set_napi_weight, get_napi_weight},
	/* netdev_budget */
	{"round-budget", "0..1000000", "300",
	 "napi/adaptive: packets per round over all queues (0: none)",
	 VFWD_APPLY_LIVE, set_round_budget, get_round_budget},
	/* netdev_budget_usecs */
	{"round-budget-us", "0..1000000", "2000", "napi/adaptive: microseconds per round (0: none)",
	 VFWD_APPLY_LIVE, set_round_budget_us, get_round_budget_us},
	{"defer-polls", "0..1000000", "32", "napi: empty rounds before sleeping",
	 VFWD_APPLY_LIVE, set_defer_polls, get_defer_polls},
	/* net.core.busy_poll: 50 is the usual setting */
	{"busy-poll-us", "0..1000000", "50", "napi: ... and this long without a packet (busy_poll)",
	 VFWD_APPLY_LIVE, set_busy_poll_us, get_busy_poll_us},
	{"sleep-max-us", "1..100000", "10000", "napi: longest sleep; an rx interrupt ends it sooner",
	 VFWD_APPLY_LIVE, set_sleep_max_us, get_sleep_max_us},
	/* napi_defer_hard_irqs + gro_flush_timeout (timer), or not (kick) */
	{"nap-wake", "timer|kick", "timer",
	 "napi: what ends a short nap (taken when a port has no rx interrupts): timer: its end "
	 "only, the other queues' interrupts kept off meanwhile (a guest does not kick); kick: "
	 "also a guest's kick or an rx interrupt (sooner, at more wake-ups)",
	 VFWD_APPLY_LIVE, set_nap_wake, get_nap_wake},
	{"deliver", "direct|deferred", "direct",
	 "direct: run to completion; deferred: via the lcore's backlog ring",
	 VFWD_APPLY_LIVE, set_deliver, get_deliver},
	/* netdev_max_backlog */
	{"backlog", "1..1048576", "1000", "deferred: backlog ring size (rebuilt: workers restart)",
	 VFWD_APPLY_RESTART, set_backlog, get_backlog},
	{"pipeline", "off|R:W (1..16 each)", "off",
	 "R rx lcores hand bursts to W work lcores through rings (needs --txq >= W; "
	 "re-planned: workers restart)",
	 VFWD_APPLY_RESTART, set_pipeline, get_pipeline},
	{"tx-batch", "1..512", "1", "hold tx until this many wait (1: send each burst)",
	 VFWD_APPLY_LIVE, set_tx_batch, get_tx_batch},
	{"tx-flush-us", "0..1000000", "50", "tx batching: send what waited this long (us)",
	 VFWD_APPLY_LIVE, set_tx_flush_us, get_tx_flush_us},
	/* off: vhost_net (a batch goes when the ring has no more); on: OVS's
	 * tx-flush-interval */
	{"tx-hold-idle", "on|off", "off",
	 "tx batching: keep the hold through polls that find nothing, until tx-batch or "
	 "tx-flush-us (off: send it when the rx side runs empty)",
	 VFWD_APPLY_LIVE, set_tx_hold_idle, get_tx_hold_idle},
	/* VHOST_NET_PKT_WEIGHT */
	{"vq-weight-pkts", "0..65535", "256", "the most a vhost queue gives per visit (0: no cap)",
	 VFWD_APPLY_LIVE, set_vq_weight_pkts, get_vq_weight_pkts},
	/* VHOST_NET_WEIGHT */
	{"vq-weight-bytes", "0..1073741824", "524288", "... in bytes (0: no cap)",
	 VFWD_APPLY_LIVE, set_vq_weight_bytes, get_vq_weight_bytes},
	/* ethtool -C rx-usecs / rx-frames on a NIC; virtio-net NOTF_COAL;
	 * net_dim for adaptive */
	{"notify", "immediate|coalesce|adaptive", "immediate",
	 "when a guest is told of the frames in its receive queue (--vhost-path lib, "
	 "DPDK 23.07+): at once; after notify-usecs or notify-frames; coalesced only "
	 "while frames come faster than one per notify-usecs",
	 VFWD_APPLY_LIVE, set_notify, get_notify},
	{"notify-usecs", "1..1000000", "50", "notify coalesce/adaptive: the longest a "
	 "notification waits (us)",
	 VFWD_APPLY_LIVE, set_notify_usecs, get_notify_usecs},
	{"notify-frames", "1..65535", "32", "... and the frames after which it goes at once",
	 VFWD_APPLY_LIVE, set_notify_frames, get_notify_frames},
	{"latency", "on|off", "off",
	 "per-stage residence time: how long packets wait in GRO, the backlog, the "
	 "pipeline rings, tx holds and tx retries (show latency)",
	 VFWD_APPLY_LIVE, set_latency, get_latency},
	{"stats-period", "seconds > 0|off", "off",
	 "print stats every this many seconds (off: only at exit)",
	 VFWD_APPLY_CONTROL, set_stats_period, get_stats_period},
	{"stats-format", "text|json", "text",
	 "format of stats reports and of show commands (json: one object per line)",
	 VFWD_APPLY_CONTROL, set_stats_format, get_stats_format},
};

const unsigned int vfwd_nb_knobs = sizeof(vfwd_knobs) / sizeof(vfwd_knobs[0]);
_Static_assert(sizeof(vfwd_knobs) / sizeof(vfwd_knobs[0]) <= VFWD_MAX_KNOBS,
	       "raise VFWD_MAX_KNOBS");

void
vfwd_knobs_defaults(struct vfwd_options *o)
{
	for (unsigned int i = 0; i < vfwd_nb_knobs; i++)
		/* a default its own setter refuses is a typo in the table: better
		 * no start at all than a knob left at 0 (burst 0 forwards nothing) */
		if (vfwd_knobs[i].set(o, vfwd_knobs[i].def) != 0) {
			fprintf(stderr, "knob %s: default '%s' refused\n", vfwd_knobs[i].name,
				vfwd_knobs[i].def);
			abort();
		}
}

const struct vfwd_knob *
vfwd_knob_find(const char *name)
{
	for (unsigned int i = 0; i < vfwd_nb_knobs; i++)
		if (strcmp(vfwd_knobs[i].name, name) == 0)
			return &vfwd_knobs[i];
	return NULL;
}

int
vfwd_knob_set(struct vfwd_options *o, const char *name, const char *val, const char *what,
	      char *err, size_t errlen)
{
	const struct vfwd_knob *k = vfwd_knob_find(name);

	if (k == NULL) {
		snprintf(err, errlen, "%s: no such knob '%s'", what, name);
		return -ENOENT;
	}
	if (val == NULL || k->set(o, val) != 0) {
		snprintf(err, errlen, "%s '%s': expected %s", what, val ? val : "", k->values);
		return -EINVAL;
	}
	return 0;
}

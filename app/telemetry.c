/* SPDX-License-Identifier: BSD-3-Clause
 *
 * DPDK telemetry commands /vfwd/lcores, /vfwd/pairs, /vfwd/ports and /vfwd/config, read
 * with dpdk-telemetry.py from a running vfwd. They run on the telemetry
 * thread and take the app lock around what the main lcore may change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "app.h"
#include "knobs.h"
#include "vfwd_compat.h"

/* rte_telemetry callbacks take no argument in 22.11: the one process-wide
 * pointer, set while the app can answer (NULL once it is torn down). */
static struct vfwd_app *tel_app;
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;


/* Telemetry names allow letters, digits, '_' and '/': "gro-mode" -> "gro_mode". */
static void
tel_name(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
	for (char *p = dst; *p; p++)
		if (*p == '-')
			*p = '_';
}

/* Where vfwd_counters_each's counters go: "<prefix><name>" in dict d. */
struct tel_counters {
	struct rte_tel_data *d;
	const char *prefix;
};

static void
tel_counter(const char *name, uint64_t value, void *arg)
{
	const struct tel_counters *tc = arg;
	char key[64];

	snprintf(key, sizeof(key), "%s%s", tc->prefix, name);
	vfwd_tel_dict_uint(tc->d, key, value);
}

/* A few figures per lcore: the reply buffer (16 KiB) must hold all 64. */
static void
add_lcore_brief(struct rte_tel_data *d, const struct vfwd_lcore_stats *s)
{
	struct vfwd_summary sum;

	vfwd_stats_summarize(s, &sum);
	vfwd_tel_dict_uint(d, "rx_pkts", sum.rx_pkts);
	vfwd_tel_dict_uint(d, "tx_pkts", sum.tx_pkts);
	vfwd_tel_dict_uint(d, "drops", sum.drops_total);
	vfwd_tel_dict_uint(d, "busy_pct_x100", (uint64_t)(sum.busy_pct * 100));
	vfwd_tel_dict_uint(d, "sleep_pct_x100", (uint64_t)(sum.sleep_pct * 100));
}

static void
add_lcore(struct rte_tel_data *d, const struct vfwd_lcore_stats *s)
{
	struct vfwd_summary sum;
	struct tel_counters tc = {.d = d, .prefix = ""};
	char key[64], prefix[16];

	vfwd_stats_summarize(s, &sum);
	vfwd_tel_dict_uint(d, "rx_pkts", sum.rx_pkts);
	vfwd_tel_dict_uint(d, "tx_pkts", sum.tx_pkts);
	vfwd_tel_dict_uint(d, "drops", sum.drops_total);
	/* no floats in 22.11 telemetry: hundredths */
	vfwd_tel_dict_uint(d, "busy_pct_x100", (uint64_t)(sum.busy_pct * 100));
	vfwd_tel_dict_uint(d, "cycles_per_pkt_x100", (uint64_t)(sum.cycles_per_pkt * 100));
	vfwd_counters_each(vfwd_lcore_counters, VFWD_NB_LCORE_COUNTERS, s, VFWD_SHOW_TEL,
			   tel_counter, &tc);
	tc.prefix = prefix;
	for (int i = 0; i < VFWD_DIR_COUNT; i++) {
		const struct vfwd_dir_summary *ds = &sum.dir[i];

		snprintf(prefix, sizeof(prefix), "%s/", vfwd_dir_keys[i]);
		vfwd_counters_each(vfwd_dir_counters, VFWD_NB_DIR_COUNTERS, &s->dir[i],
				   VFWD_SHOW_TEL, tel_counter, &tc);
		for (int k = 0; k < VFWD_DROP_COUNT; k++) {
			snprintf(key, sizeof(key), "%s/drop_%s", vfwd_dir_keys[i], vfwd_drop_names[k]);
			vfwd_tel_dict_uint(d, key, ds->drops[k]);
		}
		snprintf(key, sizeof(key), "%s/polls", vfwd_dir_keys[i]);
		vfwd_tel_dict_uint(d, key, ds->polls);
		snprintf(key, sizeof(key), "%s/bursts", vfwd_dir_keys[i]);
		vfwd_tel_dict_uint(d, key, ds->bursts);
	}
}

/* Worker w's counters less its base. This thread is neither the worker
 * nor control, which may be re-initialising the worker right now (a
 * re-plan does not take app->lock for that): vfwd_worker_stats_read waits
 * out a re-init, and a copy with any counter below the base (gone
 * backwards: it would show as nearly 2^64) is read again, then given up
 * on. Returns 0 or -EAGAIN. */
#define READ_TRIES 3

static int
read_lcore(const struct vfwd_app *app, uint16_t w, struct vfwd_lcore_stats *now)
{
	struct vfwd_lcore_stats raw;

	for (int t = 0; t < READ_TRIES; t++) {
		if (vfwd_worker_stats_read(app->workers[w], &raw) == 0 &&
		    !vfwd_stats_behind(&raw, &app->base[w])) {
			vfwd_stats_sub(now, &raw, &app->base[w]);
			return 0;
		}
	}
	return -EAGAIN;
}

/* An endpoint's ",<N>": N in [0, max), -1 when there is none, -EINVAL
 * when it is not such a number. */
static long
param_index(const char *params, long max)
{
	char *end;
	long n;

	if (params == NULL || *params == '\0')
		return -1;
	n = strtol(params, &end, 10);
	return *end != '\0' || n < 0 || n >= max ? -EINVAL : n;
}

/* /vfwd/lcores: each lcore briefly and the total in full;
 * /vfwd/lcores,<lcore id>: that lcore in full. A reply with a worker
 * that could not be read consistently is null (-EAGAIN): ask again. */
static int
tel_lcores(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct vfwd_app *app;
	int ret = -EAGAIN;
	long only = param_index(params, RTE_MAX_LCORE);

	if (only == -EINVAL)
		return -EINVAL;
	pthread_mutex_lock(&tel_lock);
	app = tel_app;
	if (app != NULL) {
		struct vfwd_lcore_stats *now, total;
		uint16_t nb;
		char name[16];
		bool ok;

		memset(&total, 0, sizeof(total));
		pthread_mutex_lock(&app->lock);
		nb = app->nb_workers;
		now = malloc(RTE_MAX(nb, 1) * sizeof(*now));
		ret = now == NULL ? -ENOMEM : 0;
		/* every worker read first: a reply is all good figures or none */
		for (uint16_t w = 0; ret == 0 && w < nb; w++) {
			ret = read_lcore(app, w, &now[w]);
			if (ret == 0)
				vfwd_stats_add(&total, &now[w]);
		}
		ok = ret == 0;
		if (ok) {
			rte_tel_data_start_dict(d);
			ret = only >= 0 ? -EINVAL : 0;
		}
		for (uint16_t w = 0; ok && w < nb; w++) {
			struct rte_tel_data *c;

			if (only >= 0) {
				if (vfwd_worker_lcore(app->workers[w]) == only) {
					add_lcore(d, &now[w]);
					ret = 0;
				}
				continue;
			}
			c = rte_tel_data_alloc();
			if (c == NULL)
				continue;
			rte_tel_data_start_dict(c);
			add_lcore_brief(c, &now[w]);
			snprintf(name, sizeof(name), "%u", vfwd_worker_lcore(app->workers[w]));
			if (rte_tel_data_add_dict_container(d, name, c, 0) != 0)
				rte_tel_data_free(c);
		}
		pthread_mutex_unlock(&app->lock);
		free(now);
		if (ret == 0 && only < 0) {
			struct rte_tel_data *c = rte_tel_data_alloc();

			if (c != NULL) {
				rte_tel_data_start_dict(c);
				add_lcore(c, &total);
				if (rte_tel_data_add_dict_container(d, "total", c, 0) != 0)
					rte_tel_data_free(c);
			}
		}
	}
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

/* "<prefix>rx_pkts", ... of one stream or a pair's sum of them */
static void
add_stream_counts(struct rte_tel_data *d, const char *prefix, const struct vfwd_stream_stats *ss)
{
	struct tel_counters tc = {.d = d, .prefix = prefix};

	vfwd_counters_each(vfwd_stream_counters, VFWD_NB_STREAM_COUNTERS, ss, VFWD_SHOW_TEL,
			   tel_counter, &tc);
}

/* One pair: its ports and per direction its streams summed; with
 * per_queue, each of its streams too ("q<Q>/<dir>/rx_pkts", ...). */
static void
add_pair(struct rte_tel_data *d, const struct vfwd_app *app, uint16_t p,
	 const struct vfwd_lcore_stats *total, bool per_queue)
{
	struct vfwd_pair_summary sum;
	char prefix[48];

	vfwd_stats_pair_summarize(total, p, app->opt.nb_rxq, &sum);
	vfwd_tel_dict_uint(d, "vm_port", app->pairs[p].vm_port);
	vfwd_tel_dict_uint(d, "wire_port", app->pairs[p].wire_port);
	for (uint8_t k = 0; k < VFWD_DIR_COUNT; k++) {
		snprintf(prefix, sizeof(prefix), "%s/", vfwd_dir_keys[k]);
		add_stream_counts(d, prefix, &sum.dir[k].sum);
	}
	for (uint16_t q = 0; per_queue && q < app->opt.nb_rxq; q++)
		for (uint8_t k = 0; k < VFWD_DIR_COUNT; k++) {
			snprintf(prefix, sizeof(prefix), "q%u/%s/", q, vfwd_dir_keys[k]);
			add_stream_counts(d, prefix, &total->stream[vfwd_stream_key(p, q, k)]);
		}
}

/* /vfwd/pairs: each pair per direction, summed over lcores and queues,
 * and "total" from the direction counters (counted beside the streams');
 * /vfwd/pairs,<pair>: that pair with each of its streams. Null (-EAGAIN)
 * when a worker could not be read consistently, as /vfwd/lcores. */
static int
tel_pairs(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct vfwd_app *app;
	int ret = -EAGAIN;
	long only = param_index(params, VFWD_MAX_PAIRS);

	if (only == -EINVAL)
		return -EINVAL;
	pthread_mutex_lock(&tel_lock);
	app = tel_app;
	if (app != NULL) {
		/* static: ~50 KB each, and tel_lock keeps one caller at a time */
		static struct vfwd_lcore_stats total, now;
		struct vfwd_summary sum;
		char prefix[48], name[16];

		memset(&total, 0, sizeof(total));
		pthread_mutex_lock(&app->lock);
		ret = 0;
		for (uint16_t w = 0; ret == 0 && w < app->nb_workers; w++) {
			ret = read_lcore(app, w, &now);
			if (ret == 0)
				vfwd_stats_add(&total, &now);
		}
		if (ret == 0 && only >= app->nb_pairs)
			ret = -EINVAL;
		if (ret == 0) {
			rte_tel_data_start_dict(d);
			if (only >= 0)
				add_pair(d, app, (uint16_t)only, &total, true);
		}
		for (uint16_t p = 0; ret == 0 && only < 0 && p < app->nb_pairs; p++) {
			struct rte_tel_data *c = rte_tel_data_alloc();

			if (c == NULL)
				continue;
			rte_tel_data_start_dict(c);
			add_pair(c, app, p, &total, false);
			snprintf(name, sizeof(name), "%u", p);
			if (rte_tel_data_add_dict_container(d, name, c, 0) != 0)
				rte_tel_data_free(c);
		}
		pthread_mutex_unlock(&app->lock);
		if (ret == 0 && only < 0) {
			struct rte_tel_data *c = rte_tel_data_alloc();

			vfwd_stats_summarize(&total, &sum);
			if (c != NULL) {
				rte_tel_data_start_dict(c);
				for (uint8_t k = 0; k < VFWD_DIR_COUNT; k++) {
					const struct vfwd_dir_summary *ds = &sum.dir[k];
					/* as a stream's: the dir's traffic
					 * counters are the stream's first ones */
#define FROM_DIR(name, show, help) .name = ds->name,
					const struct vfwd_stream_stats dir = {
						VFWD_DIR_TRAFFIC_COUNTERS(FROM_DIR)
						.drops = ds->drops_total,
					};
#undef FROM_DIR

					snprintf(prefix, sizeof(prefix), "%s/", vfwd_dir_keys[k]);
					add_stream_counts(c, prefix, &dir);
				}
				if (rte_tel_data_add_dict_container(d, "total", c, 0) != 0)
					rte_tel_data_free(c);
			}
		}
	}
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

static int
tel_ports(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	struct vfwd_app *app;
	int ret = -EAGAIN;

	pthread_mutex_lock(&tel_lock);
	app = tel_app;
	if (app != NULL) {
		/* a port may be closed and made again (replug.c) under app->lock */
		pthread_mutex_lock(&app->lock);
		rte_tel_data_start_dict(d);
		for (uint16_t i = 0; i < app->nb_ports; i++) {
			uint16_t port = app->ports[i];
			const struct vfwd_port_state *st = &app->port_state[port];
			struct rte_tel_data *c = rte_tel_data_alloc();
			struct rte_eth_stats s;
			char name[RTE_ETH_NAME_MAX_LEN], key[16];
			uint64_t calls;

			if (c == NULL)
				continue;
			vfwd_port_stats(port, st, &s, 0, NULL, 0, NULL);
			vfwd_port_name(port, name);
			rte_tel_data_start_dict(c);
			rte_tel_data_add_dict_string(c, "name", name);
			rte_tel_data_add_dict_string(c, "role", st->is_vhost ? "vm" : "wire");
			vfwd_tel_dict_uint(c, "link_up", st->link_up);
			vfwd_tel_dict_uint(c, "mtu", st->max_frame - RTE_ETHER_HDR_LEN);
			if (st->is_vhost) {
				vfwd_tel_dict_uint(c, "guest_mtu", st->guest_mtu);
				vfwd_tel_dict_uint(c, "guest_features", st->guest_features);
				/* librte_vhost's per-vring xstats (guest_calls) */
				vfwd_tel_dict_uint(c, "vhost_xstats", !st->vhost_lean);
			}
			vfwd_tel_dict_uint(c, "guest_gso", st->guest_gso);
			vfwd_tel_dict_uint(c, "ipackets", s.ipackets);
			vfwd_tel_dict_uint(c, "opackets", s.opackets);
			vfwd_tel_dict_uint(c, "ibytes", s.ibytes);
			vfwd_tel_dict_uint(c, "obytes", s.obytes);
			vfwd_tel_dict_uint(c, "imissed", s.imissed);
			vfwd_tel_dict_uint(c, "ierrors", s.ierrors);
			vfwd_tel_dict_uint(c, "oerrors", s.oerrors);
			vfwd_tel_dict_uint(c, "rx_nombuf", s.rx_nombuf);
			/* On request only, never in the periodic report: the
			 * vhost library frees a device's rings when the guest goes
			 * without waiting for a reader of their stats (DPDK's own
			 * /ethdev/xstats has the same window), so read only while
			 * the guest is there. */
			if (st->is_vhost && st->link_up && vfwd_port_guest_calls(port, &calls) == 0)
				vfwd_tel_dict_uint(c, "guest_calls", calls);
			snprintf(key, sizeof(key), "%u", port);
			if (rte_tel_data_add_dict_container(d, key, c, 0) != 0)
				rte_tel_data_free(c);
		}
		pthread_mutex_unlock(&app->lock);
		ret = 0;
	}
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

/* "<stage>/count", "<stage>/mean_ns", "<stage>/p50_ns", ... for each
 * stage (flat: telemetry nests one container deep) */
static void
add_latency(struct rte_tel_data *d, const struct vfwd_lcore_stats *s, uint64_t tsc_hz)
{
	double ns = tsc_hz ? 1e9 / (double)tsc_hz : 0.0;

	static const char *const fig[] = {"mean_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns",
					  "max_ns"};

	for (int k = 0; k < VFWD_LAT_COUNT; k++) {
		struct vfwd_lat_summary l;
		char key[48];

		vfwd_lat_summarize(&s->lat[k], &l);
		const double v[RTE_DIM(fig)] = {l.mean, l.p50, l.p90, l.p99, l.p999, l.max};

		snprintf(key, sizeof(key), "%s/count", vfwd_lat_names[k]);
		vfwd_tel_dict_uint(d, key, l.count);
		for (unsigned int f = 0; f < RTE_DIM(fig); f++) {
			snprintf(key, sizeof(key), "%s/%s", vfwd_lat_names[k], fig[f]);
			vfwd_tel_dict_uint(d, key, (uint64_t)(v[f] * ns));
		}
	}
}

/* /vfwd/latency: per-stage residence time (--latency on) per lcore and
 * in total, in ns, since the start or clear fwd stats. Null (-EAGAIN)
 * when a worker could not be read consistently, as /vfwd/lcores. */
static int
tel_latency(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	struct vfwd_app *app;
	int ret = -EAGAIN;

	pthread_mutex_lock(&tel_lock);
	app = tel_app;
	if (app != NULL) {
		/* static: large, and tel_lock keeps one caller at a time */
		static struct vfwd_lcore_stats now, total;
		struct rte_tel_data *per[VFWD_MAX_WORKERS] = {NULL};
		unsigned int lcore[VFWD_MAX_WORKERS];
		uint16_t nb;

		memset(&total, 0, sizeof(total));
		pthread_mutex_lock(&app->lock);
		nb = RTE_MIN(app->nb_workers, (uint16_t)VFWD_MAX_WORKERS);
		ret = 0;
		for (uint16_t w = 0; ret == 0 && w < nb; w++) {
			ret = read_lcore(app, w, &now);
			if (ret != 0)
				break;
			vfwd_stats_add(&total, &now);
			lcore[w] = vfwd_worker_lcore(app->workers[w]);
			per[w] = rte_tel_data_alloc();
			if (per[w] != NULL) {
				rte_tel_data_start_dict(per[w]);
				add_latency(per[w], &now, app->tsc_hz);
			}
		}
		if (ret == 0) {
			struct rte_tel_data *c = rte_tel_data_alloc();
			char name[16];

			rte_tel_data_start_dict(d);
			rte_tel_data_add_dict_string(d, "latency", app->opt.knobs.latency ? "on" : "off");
			for (uint16_t w = 0; w < nb; w++) {
				snprintf(name, sizeof(name), "%u", lcore[w]);
				if (per[w] != NULL && rte_tel_data_add_dict_container(d, name, per[w], 0) == 0)
					per[w] = NULL;
			}
			if (c != NULL) {
				rte_tel_data_start_dict(c);
				add_latency(c, &total, app->tsc_hz);
				if (rte_tel_data_add_dict_container(d, "total", c, 0) != 0)
					rte_tel_data_free(c);
			}
		}
		for (uint16_t w = 0; w < nb; w++)
			if (per[w] != NULL)
				rte_tel_data_free(per[w]);
		pthread_mutex_unlock(&app->lock);
	}
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

static int
tel_config(const char *cmd __rte_unused, const char *params __rte_unused,
	   struct rte_tel_data *d)
{
	struct vfwd_app *app;
	int ret = -EAGAIN;

	pthread_mutex_lock(&tel_lock);
	app = tel_app;
	if (app != NULL) {
		char val[64], name[64];
		unsigned long num;

		rte_tel_data_start_dict(d);
		pthread_mutex_lock(&app->lock);
		rte_tel_data_add_dict_string(d, "forwarding", app->running ? "started" : "stopped");
		for (unsigned int i = 0; i < vfwd_nb_knobs; i++) {
			vfwd_knobs[i].get(&app->opt, val, sizeof(val));
			tel_name(name, sizeof(name), vfwd_knobs[i].name);
			if (vfwd_parse_uint(val, 0, UINT32_MAX, &num) == 0)
				vfwd_tel_dict_uint(d, name, num);
			else
				rte_tel_data_add_dict_string(d, name, val);
		}
		vfwd_tel_dict_uint(d, "rxq", app->opt.nb_rxq);
		vfwd_tel_dict_uint(d, "txq", app->opt.nb_txq);
		vfwd_tel_dict_uint(d, "workers", app->nb_workers);
		vfwd_tel_dict_uint(d, "pairs", app->nb_pairs);
		rte_tel_data_add_dict_string(d, "vhost_path",
					     app->opt.vhost_path == VFWD_VHOST_PATH_LIB ? "lib"
											: "pmd");
		pthread_mutex_unlock(&app->lock);
		ret = 0;
	}
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

int
vfwd_telemetry_register(struct vfwd_app *app)
{
	int ret;

	pthread_mutex_lock(&tel_lock);
	tel_app = app;
	pthread_mutex_unlock(&tel_lock);
	ret = rte_telemetry_register_cmd("/vfwd/lcores", tel_lcores,
					 "Forwarding counters per lcore (brief) and total. Parameter: an lcore id, in full");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/vfwd/pairs", tel_pairs,
						 "Forwarding counters per pair and direction, over lcores and queues, and total. Parameter: a pair, with its streams");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/vfwd/ports", tel_ports,
						 "Counters of vfwd's ports. No parameters");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/vfwd/config", tel_config,
						 "Knob values and layout. No parameters");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/vfwd/latency", tel_latency,
						 "Per-stage residence time (set latency on), ns, per lcore and total. No parameters");
	return ret;
}

void
vfwd_telemetry_unregister(struct vfwd_app *app)
{
	pthread_mutex_lock(&tel_lock);
	if (tel_app == app)
		tel_app = NULL;
	pthread_mutex_unlock(&tel_lock);
}

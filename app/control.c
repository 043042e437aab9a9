/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Run control on the main lcore: start and stop the workers, apply knob
 * changes to the running data path, clear stats, the periodic report.
 * Called from the prompt, command files and the main loop alike.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <rte_ring.h>
#include <rte_version.h>
#include <stdlib.h>

#include "app.h"
#include "vfwd_compat.h"
#include "vfwd_pool.h"
#include "knobs.h"
#include "unmap_guard.h"

/* A worker takes new knobs between two rounds: microseconds, unless it is
 * stuck in a driver call. */
#define PUBLISH_TIMEOUT_US 200000

const char *
vfwd_port_name(uint16_t port, char buf[RTE_ETH_NAME_MAX_LEN])
{
	if (rte_eth_dev_get_name_by_port(port, buf) != 0)
		snprintf(buf, RTE_ETH_NAME_MAX_LEN, "port%u", port);
	return buf;
}

/* The workers of one plan with everything they use: built beside the
 * running plan's (a rebuild) and put in place only once complete, so that
 * a failure leaves the running plan as it was. */
struct stage {
	/* [nb_alloc]: all max_workers, so that the counters of an lcore the
	 * plan leaves idle carry on too; the first nb_workers run */
	struct vfwd_worker **workers;
	uint16_t nb_alloc;
	uint16_t nb_workers;
	uint16_t nb_state; /* workers whose GRO tables, tx holds, backlog exist */
	struct rte_ring *rings[VFWD_MAX_PIPE * VFWD_MAX_PIPE]; /* [rx][work] */
	unsigned int nb_rings;
};

/* Everything of s freed; its workers must not run. What their rings,
 * holds and backlog still held goes back to the pool. */
static void
stage_free(struct stage *s)
{
	for (uint16_t w = 0; w < s->nb_state; w++) {
		vfwd_worker_offload_fini(s->workers[w]);
		vfwd_worker_queues_fini(s->workers[w]);
	}
	for (uint16_t w = 0; w < s->nb_alloc; w++) {
		vfwd_worker_fini(s->workers[w]);
		vfwd_worker_free(s->workers[w]);
	}
	for (unsigned int i = 0; i < s->nb_rings; i++) {
		struct rte_mbuf *m;

		while (rte_ring_dequeue(s->rings[i], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(s->rings[i]);
	}
	free(s->workers);
	memset(s, 0, sizeof(*s));
}

/* Workers allocated for the plan in place: all or (none yet) none. */
static uint16_t
old_alloc(const struct vfwd_app *app)
{
	return app->workers != NULL ? app->max_workers : 0;
}

/* The plan in place <-> s, the workers stopped. Counters stay with the
 * lcore index: the new workers carry on from the old ones' counts. */
static void
stage_swap(struct vfwd_app *app, struct stage *s)
{
	struct stage old = {
		.workers = app->workers,
		.nb_alloc = old_alloc(app),
		.nb_workers = app->nb_workers,
		.nb_state = app->nb_offload_init,
		.nb_rings = app->nb_pipe_rings,
	};

	memcpy(old.rings, app->pipe_rings, sizeof(old.rings));
	for (uint16_t w = 0; w < old.nb_alloc; w++)
		vfwd_worker_counters_carry(s->workers[w], old.workers[w]);
	pthread_mutex_lock(&app->lock);
	app->workers = s->workers;
	app->nb_workers = s->nb_workers;
	app->nb_offload_init = s->nb_state;
	memcpy(app->pipe_rings, s->rings, sizeof(app->pipe_rings));
	app->nb_pipe_rings = s->nb_rings;
	pthread_mutex_unlock(&app->lock);
	*s = old;
}

void
vfwd_ctl_workers_free(struct vfwd_app *app)
{
	struct stage old = {0};

	pthread_mutex_lock(&app->lock);
	old.workers = app->workers;
	old.nb_alloc = old_alloc(app);
	old.nb_workers = app->nb_workers;
	old.nb_state = app->nb_offload_init;
	memcpy(old.rings, app->pipe_rings, sizeof(old.rings));
	old.nb_rings = app->nb_pipe_rings;
	app->workers = NULL;
	app->nb_workers = app->nb_offload_init = 0;
	memset(app->pipe_rings, 0, sizeof(app->pipe_rings));
	app->nb_pipe_rings = 0;
	pthread_mutex_unlock(&app->lock);
	stage_free(&old);
}

static void
print_plan(const struct vfwd_app *app, const struct vfwd_options *o)
{
	static const char *const role[] = {"", "rx   ", "work "};
	char a[RTE_ETH_NAME_MAX_LEN], b[RTE_ETH_NAME_MAX_LEN];

	if (o->pipe_rx)
		printf("pipeline: %u rx lcore(s) -> %u work lcore(s) by flow hash; work lcore k "
		       "sends on tx queue k\n",
		       o->pipe_rx, o->pipe_work);
	for (uint16_t w = 0; w < app->nb_workers; w++) {
		const struct vfwd_worker *wk = app->workers[w];
		enum vfwd_role r = vfwd_worker_role(wk);

		if (r == VFWD_ROLE_WORK) {
			printf("  lcore %u: work: GRO/TSO and tx for every stream, tx queue %u\n",
			       vfwd_worker_lcore(wk), w - o->pipe_rx);
			continue;
		}
		for (uint16_t i = 0; i < vfwd_worker_nb_streams(wk); i++) {
			const struct vfwd_stream *st = vfwd_worker_stream(wk, i);

			printf("  lcore %u: %s%s port %u (%s) q%u -> port %u (%s) q%u\n",
			       vfwd_worker_lcore(wk), role[r], st->dir == VFWD_DIR_VM_TO_WIRE ? "vm->wire" : "wire->vm",
			       st->rx_port, vfwd_port_name(st->rx_port, a), st->rx_queue, st->tx_port,
			       vfwd_port_name(st->tx_port, b), st->tx_queue);
		}
	}
	for (uint16_t w = app->nb_workers; w < app->max_workers; w++)
		printf("  lcore %u: idle (more lcores than streams)\n", app->lcore_ids[w]);
}

/* Plan the lcores for o and build, into s, workers with all they need:
 * pipeline rings, GRO tables, tx holds, backlog rings. Touches nothing in
 * place (the running plan's workers go on meanwhile). Returns 0, or
 * -errno with err saying why and s empty. */
static int
stage_build(struct vfwd_app *app, const struct vfwd_options *o, struct stage *s, char *err,
	    size_t errlen)
{
	struct vfwd_plan *plan = malloc(sizeof(*plan));
	int lat_field;
	uint16_t nb;
	int ret;

	memset(s, 0, sizeof(*s));
	if (plan == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (o->pipe_rx) {
		if (o->pipe_rx + o->pipe_work > app->max_workers) {
			snprintf(err, errlen, "pipeline %u:%u needs %u worker lcores, there are %u",
				 o->pipe_rx, o->pipe_work, o->pipe_rx + o->pipe_work,
				 app->max_workers);
			ret = -EINVAL;
			goto out;
		}
		if (o->pipe_work > o->nb_txq) {
			snprintf(err, errlen, "pipeline %u:%u: each work lcore sends on its own tx "
				 "queue, there are %u (--txq, and net_vhost queues=N)",
				 o->pipe_rx, o->pipe_work, o->nb_txq);
			ret = -EINVAL;
			goto out;
		}
		ret = vfwd_plan_build_pipeline(plan, app->pairs, app->nb_pairs, o->nb_rxq,
					       o->pipe_rx, o->pipe_work);
		nb = o->pipe_rx + o->pipe_work;
	} else {
		ret = vfwd_plan_build(plan, app->pairs, app->nb_pairs, o->nb_rxq, app->max_workers);
		/* workers without a stream are not used */
		nb = RTE_MIN(app->max_workers, plan->nb_streams);
	}
	if (ret != 0) {
		snprintf(err, errlen, "cannot plan the lcores: %s", strerror(-ret));
		goto out;
	}
	s->workers = calloc(app->max_workers, sizeof(s->workers[0]));
	for (; s->workers != NULL && s->nb_alloc < app->max_workers; s->nb_alloc++) {
		unsigned int lcore = app->lcore_ids[s->nb_alloc];

		s->workers[s->nb_alloc] = vfwd_worker_alloc((int)rte_lcore_to_socket_id(lcore));
		if (s->workers[s->nb_alloc] == NULL)
			break;
	}
	if (s->workers == NULL || s->nb_alloc < app->max_workers) {
		snprintf(err, errlen, "cannot allocate the workers: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	/* named by plan: the running plan's rings exist beside these */
	app->plan_gen++;
	for (uint16_t r = 0; r < o->pipe_rx; r++) {
		for (uint16_t k = 0; k < o->pipe_work; k++) {
			char name[RTE_RING_NAMESIZE];
			struct rte_ring *ring;

			snprintf(name, sizeof(name), "vfwd_pipe%u_%u_%u", app->plan_gen, r, k);
			ring = rte_ring_create(name, VFWD_PIPE_RING_SIZE,
					       (int)rte_lcore_to_socket_id(app->lcore_ids[r]),
					       RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (ring == NULL) {
				snprintf(err, errlen, "cannot create pipeline rings: %s",
					 rte_strerror(rte_errno));
				ret = -ENOMEM;
				goto out;
			}
			s->rings[s->nb_rings++] = ring;
		}
	}
	/* --latency's stamp (the same field each time: registering is
	 * idempotent), made whether or not latency is on now: a set at the
	 * prompt must find it */
	lat_field = vfwd_latency_field_register();
	if (lat_field < 0) {
		snprintf(err, errlen, "cannot register the latency stamp (an mbuf dynamic field): %s",
			 rte_strerror(-lat_field));
		ret = lat_field;
		goto out;
	}
	for (uint16_t w = 0; w < nb; w++) {
		struct vfwd_worker *wk = s->workers[w];
		struct rte_ring *rings[VFWD_MAX_PIPE];

		ret = vfwd_worker_init(wk, app->lcore_ids[w], &plan->worker[w], app->port_state,
				       &o->knobs);
		if (ret != 0) {
			snprintf(err, errlen, "cannot allocate the workers' streams: out of memory");
			goto out;
		}
		vfwd_worker_set_latency_field(wk, lat_field);
		if (vfwd_worker_role(wk) == VFWD_ROLE_RX) {
			for (uint16_t k = 0; k < o->pipe_work; k++)
				rings[k] = s->rings[w * o->pipe_work + k];
			vfwd_worker_set_rings(wk, rings, o->pipe_work);
		} else if (vfwd_worker_role(wk) == VFWD_ROLE_WORK) {
			uint16_t k = w - o->pipe_rx;

			for (uint16_t r = 0; r < o->pipe_rx; r++)
				rings[r] = s->rings[r * o->pipe_work + k];
			vfwd_worker_set_rings(wk, rings, o->pipe_rx);
		}
	}
	s->nb_workers = nb;
	for (uint16_t w = 0; w < nb; w++) {
		struct vfwd_worker *wk = s->workers[w];
		int socket = (int)rte_lcore_to_socket_id(vfwd_worker_lcore(wk));

		ret = vfwd_worker_offload_init(wk, app->pool, app->indirect_pool,
					       o->knobs.gro.max_flows, socket);
		if (ret == 0) {
			ret = vfwd_worker_queues_init(wk, o->backlog, socket);
			if (ret != 0)
				vfwd_worker_offload_fini(wk);
		}
		if (ret != 0) {
			snprintf(err, errlen, "cannot build the workers' GRO tables, tx holds or "
				 "backlog rings: %s", strerror(-ret));
			goto out;
		}
		s->nb_state = w + 1;
	}
out:
	free(plan);
	if (ret != 0)
		stage_free(s);
	return ret;
}

int
vfwd_ctl_plan(struct vfwd_app *app, const struct vfwd_options *o, bool verbose, char *err,
	      size_t errlen)
{
	struct stage s;
	int ret;

	if (app->running) {
		snprintf(err, errlen, "the workers are running");
		return -EBUSY;
	}
	ret = stage_build(app, o, &s, err, errlen);
	if (ret != 0)
		return ret;
	stage_swap(app, &s);
	stage_free(&s); /* the plan that was in place, if any */
	if (verbose)
		print_plan(app, o);
	return 0;
}

int
vfwd_ctl_start(struct vfwd_app *app)
{
	uint64_t now = rte_rdtsc();

	if (app->running)
		return -EALREADY;
	if (app->nb_offload_init < app->nb_workers)
		return -ENOMEM; /* a failed rebuild left workers without state */
	vfwd_unmap_guard_set(app->workers, app->nb_workers);
	for (uint16_t w = 0; w < app->nb_workers; w++) {
		int ret = vfwd_worker_launch(app->workers[w], vfwd_unmap_guard_epoch());

		if (ret != 0) {
			pthread_mutex_lock(&app->lock);
			app->running = true; /* so that stop collects the launched ones */
			pthread_mutex_unlock(&app->lock);
			vfwd_ctl_stop(app);
			return ret;
		}
	}
	pthread_mutex_lock(&app->lock);
	app->running = true;
	pthread_mutex_unlock(&app->lock);
	if (app->start_tsc == 0) {
		app->start_tsc = now;
		app->report_view.last_tsc = app->show_view.last_tsc = now;
	}
	if (app->opt.duration_s > 0 && app->stop_tsc == 0)
		app->stop_tsc = now + (uint64_t)(app->opt.duration_s * app->tsc_hz);
	app->next_report_tsc = 0; /* from now on, see vfwd_ctl_tick */
	return 0;
}

int
vfwd_ctl_stop(struct vfwd_app *app)
{
	if (!app->running)
		return -EALREADY;
	/* pipeline: rx lcores first, so that work lcores drain all they were
	 * handed before they stop */
	for (uint16_t w = 0; w < app->nb_workers; w++)
		if (vfwd_worker_role(app->workers[w]) == VFWD_ROLE_RX)
			vfwd_worker_stop(app->workers[w]);
	for (uint16_t w = 0; w < app->nb_workers; w++)
		if (vfwd_worker_role(app->workers[w]) == VFWD_ROLE_RX)
			rte_eal_wait_lcore(vfwd_worker_lcore(app->workers[w]));
	for (uint16_t w = 0; w < app->nb_workers; w++)
		vfwd_worker_stop(app->workers[w]);
	rte_eal_mp_wait_lcore();
	vfwd_unmap_guard_set(NULL, 0);
	pthread_mutex_lock(&app->lock);
	app->running = false;
	pthread_mutex_unlock(&app->lock);
	return 0;
}

/* New knobs for every worker, or for none (vfwd_workers_publish). */
static int
publish_all(struct vfwd_app *app, const struct vfwd_knobs *knobs, char *err, size_t errlen)
{
	uint16_t who = 0;
	int ret = vfwd_workers_publish(app->workers, app->nb_workers, knobs, PUBLISH_TIMEOUT_US,
				       &who);

	if (ret == -ETIMEDOUT) { /* written: it takes it when it comes back */
		printf("warning: lcore %u did not take the change within %u ms\n",
		       vfwd_worker_lcore(app->workers[who]), PUBLISH_TIMEOUT_US / 1000);
		return 0;
	}
	if (ret != 0)
		snprintf(err, errlen, "lcore %u is stuck: it has not taken the previous change "
			 "yet; nothing changed", vfwd_worker_lcore(app->workers[who]));
	return ret;
}

/* Knobs that size per-worker state (GRO flows, the backlog) or the plan
 * (pipeline): the new workers are built beside the running ones first;
 * only then are the old ones stopped and replaced, and started again if
 * they ran. Any failure leaves the plan that ran in place (running again
 * if it ran), its rings and state never freed while it may use them. */
static int
rebuild_workers(struct vfwd_app *app, const struct vfwd_options *next, char *err, size_t errlen)
{
	bool was_running = app->running;
	struct stage s;
	int ret, back;

	ret = stage_build(app, next, &s, err, errlen);
	if (ret != 0)
		return ret; /* nothing touched: the old plan runs on */
	if (was_running)
		vfwd_ctl_stop(app);
	stage_swap(app, &s); /* s: the old plan, stopped and drained */
	if (!was_running) {
		stage_free(&s);
		print_plan(app, next);
		return 0;
	}
	ret = vfwd_ctl_start(app);
	if (ret == 0) {
		stage_free(&s);
		print_plan(app, next);
		return 0;
	}
	/* back to the plan that ran: all of it is still there */
	stage_swap(app, &s);
	stage_free(&s);
	back = vfwd_ctl_start(app);
	if (back == 0) {
		snprintf(err, errlen, "cannot start the workers of the new plan: %s; the old one "
			 "runs on", strerror(-ret));
		return ret;
	}
	snprintf(err, errlen, "cannot start the workers of the new plan (%s) nor those of the "
		 "old one (%s): forwarding stopped", strerror(-ret), strerror(-back));
	if (!app->opt.interactive)
		app->quit = true; /* nobody is there to type start */
	return ret;
}

void
vfwd_ctl_note_rx_mode(struct vfwd_app *app)
{
	if (app->opt.knobs.rx_mode == VFWD_RX_POLL || app->noted_naps)
		return;
	app->noted_naps = true;
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		uint16_t port = app->ports[i];
		char name[RTE_ETH_NAME_MAX_LEN];

		if (app->port_state[port].rx_intr)
			continue;
		vfwd_port_name(port, name);
		printf("note: port %u (%s) has no rx interrupts here: an idle napi lcore "
		       "polling it naps (16 us .. 1 ms) instead of waiting for one\n",
		       port, name);
	}
}

int
vfwd_ctl_notify_check(const struct vfwd_app *app, const struct vfwd_options *o, char *err,
		      size_t errlen)
{
	static const char *const modes[] = {"immediate", "coalesce", "adaptive"};
	const char *mode = modes[o->knobs.notify];

	if (o->knobs.notify == VFWD_NOTIFY_IMMEDIATE)
		return 0;
	if (o->vhost_path != VFWD_VHOST_PATH_LIB) {
		snprintf(err, errlen, "notify %s: needs --vhost-path lib (net_vhost's tx sends "
			 "every notification itself)", mode);
		return -ENOTSUP;
	}
	if (!vfwd_compat_notify_supported()) {
		snprintf(err, errlen, "notify %s: needs DPDK 23.07 or later (the guest_notify "
			 "device op); this is %s", mode, rte_version());
		return -ENOTSUP;
	}
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		const struct vfwd_port_state *st = &app->port_state[app->ports[i]];

		if (st->is_vhost && !st->notify_ok) {
			snprintf(err, errlen, "notify %s: port %u: its vhost-user socket was "
				 "registered without vfwd's guest_notify op", mode, app->ports[i]);
			return -ENOTSUP;
		}
	}
	return 0;
}

int
vfwd_ctl_set(struct vfwd_app *app, const char *knob, const char *val, char *err, size_t errlen)
{
	struct vfwd_options next = app->opt;
	const struct vfwd_knob *k;
	char what[64];
	int ret;

	snprintf(what, sizeof(what), "set %s", knob);
	ret = vfwd_knob_set(&next, knob, val, what, err, errlen);
	if (ret != 0)
		return ret;
	/* only a change of mode is refused: a port left without the op by
	 * a replug must not make every other knob fail */
	ret = strcmp(knob, "notify") == 0 ? vfwd_ctl_notify_check(app, &next, err, errlen) : 0;
	if (ret != 0)
		return ret;
	k = vfwd_knob_find(knob);
	switch (k->apply) {
	case VFWD_APPLY_LIVE:
		ret = publish_all(app, &next.knobs, err, errlen);
		if (ret != 0)
			return ret; /* no worker took it: what is committed stays */
		break;
	case VFWD_APPLY_RESTART:
		if (next.knobs.gro.max_flows == app->opt.knobs.gro.max_flows &&
		    next.backlog == app->opt.backlog && next.pipe_rx == app->opt.pipe_rx &&
		    next.pipe_work == app->opt.pipe_work)
			break;
		if (next.backlog > app->pool_backlog) {
			snprintf(err, errlen, "set backlog %u: the mbuf pool was sized at start for "
				 "backlog rings of up to %u packets; start with --backlog %u",
				 next.backlog, app->pool_backlog, next.backlog);
			return -ENOSPC;
		}
		ret = rebuild_workers(app, &next, err, errlen);
		if (ret != 0)
			return ret; /* the plan that ran is in place */
		break;
	case VFWD_APPLY_CONTROL:
		app->next_report_tsc = 0;
		break;
	}
	pthread_mutex_lock(&app->lock);
	app->opt = next;
	pthread_mutex_unlock(&app->lock);
	vfwd_ctl_note_rx_mode(app);
	return ret;
}

void
vfwd_ctl_clear_fwd_stats(struct vfwd_app *app)
{
	struct vfwd_lcore_stats *snap = malloc(app->nb_workers * sizeof(*snap));
	uint64_t now;

	/* exact: each worker copies its counters between two rounds, with
	 * what waits in holds counted, not sent (see vfwd_worker_snapshot) */
	if (snap != NULL)
		vfwd_stats_read(app, snap);
	now = rte_rdtsc(); /* the counters' time: after the snapshot's wait */
	pthread_mutex_lock(&app->lock);
	if (snap != NULL)
		memcpy(app->base, snap, app->nb_workers * sizeof(*snap));
	else
		vfwd_stats_read(app, app->base);
	free(snap);
	memcpy(app->report_view.last, app->base, app->nb_workers * sizeof(app->base[0]));
	memcpy(app->show_view.last, app->base, app->nb_workers * sizeof(app->base[0]));
	app->start_tsc = app->report_view.last_tsc = app->show_view.last_tsc = now;
	pthread_mutex_unlock(&app->lock);
}

bool
vfwd_ctl_quitting(const struct vfwd_app *app)
{
	return app->quit || *app->quit_signal;
}

/* Once per guest connection: a guest whose MTU is not its wire's sends
 * (or is sent) frames the other side drops, counted oversize. Say so. */
static void
note_guest_mtu(struct vfwd_app *app)
{
	for (uint16_t i = 0; i < app->nb_pairs; i++) {
		uint16_t vm = app->pairs[i].vm_port, wire = app->pairs[i].wire_port;
		const struct vfwd_port_state *v = &app->port_state[vm], *w = &app->port_state[wire];
		uint32_t gen = v->conn_gen;
		uint16_t guest = v->guest_mtu, wire_mtu = w->max_frame - RTE_ETHER_HDR_LEN;
		char vn[RTE_ETH_NAME_MAX_LEN], wn[RTE_ETH_NAME_MAX_LEN];

		if (gen == app->mtu_seen_gen[vm] || !v->link_up)
			continue;
		app->mtu_seen_gen[vm] = gen;
		if (guest == 0 || guest == wire_mtu)
			continue;
		vfwd_port_name(vm, vn);
		vfwd_port_name(wire, wn);
		printf("note: port %u (%s): the guest's MTU is %u, port %u (%s)'s %u: frames "
		       "longer than the smaller are dropped (oversize)%s\n",
		       vm, vn, guest, wire, wn, wire_mtu,
		       app->opt.mtu ? "" : "; --mtu sets both");
		fflush(stdout);
	}
}

void
vfwd_ctl_tick(struct vfwd_app *app)
{
	uint64_t now = rte_rdtsc();
	uint64_t period = (uint64_t)(app->opt.stats_period_s * app->tsc_hz);

	note_guest_mtu(app);

	for (uint16_t i = 0; i < app->nb_ports; i++)
		if (!app->wire_iface[app->ports[i]].gone) /* its PMD would say up */
			vfwd_port_wire_link_poll(app->ports[i], &app->port_state[app->ports[i]]);
	vfwd_replug_tick(app);
	if (!app->running)
		return;
	if (app->stop_tsc && now >= app->stop_tsc) {
		app->quit = true;
		return;
	}
	if (period == 0)
		return;
	if (app->next_report_tsc == 0) {
		app->next_report_tsc = now + period;
	} else if (now >= app->next_report_tsc) {
		vfwd_report(app, &app->report_view, false,
			    app->opt.stats_format == VFWD_STATS_JSON);
		app->next_report_tsc += period;
		if (app->next_report_tsc < now) /* we were busy: do not print a backlog */
			app->next_report_tsc = now + period;
	}
}

void
vfwd_ctl_sleep_ms(unsigned int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL); /* a signal cuts it short, which is what we want */
}

void
vfwd_ctl_sleep(struct vfwd_app *app, double secs)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(secs * app->tsc_hz);

	while (!vfwd_ctl_quitting(app) && rte_rdtsc() < end) {
		vfwd_ctl_tick(app);
		vfwd_ctl_sleep_ms(10);
	}
}

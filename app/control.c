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

#include "app.h"
#include "knobs.h"

/* A worker takes new knobs between two rounds: microseconds, unless it is
 * stuck in a driver call. */
#define PUBLISH_TIMEOUT_US 200000

int
vfwd_ctl_start(struct vfwd_app *app)
{
	uint64_t now = rte_rdtsc();

	if (app->running)
		return -EALREADY;
	if (app->nb_offload_init < app->nb_workers)
		return -ENOMEM; /* a failed rebuild left workers without state */
	for (uint16_t w = 0; w < app->nb_workers; w++) {
		int ret;

		app->workers[w].running = 1;
		ret = rte_eal_remote_launch(vfwd_worker_main, &app->workers[w],
					    app->workers[w].lcore_id);
		if (ret != 0) {
			app->workers[w].running = 0;
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
	for (uint16_t w = 0; w < app->nb_workers; w++)
		app->workers[w].running = 0;
	rte_eal_mp_wait_lcore();
	pthread_mutex_lock(&app->lock);
	app->running = false;
	pthread_mutex_unlock(&app->lock);
	return 0;
}

static int
publish_all(struct vfwd_app *app, const struct vfwd_knobs *knobs, char *err, size_t errlen)
{
	int ret = 0;

	for (uint16_t w = 0; w < app->nb_workers; w++) {
		int r = vfwd_worker_publish(&app->workers[w], knobs, PUBLISH_TIMEOUT_US);

		if (r == -ETIMEDOUT) /* written: it takes it when it comes back */
			printf("warning: lcore %u did not take the change within %u ms\n",
			       app->workers[w].lcore_id, PUBLISH_TIMEOUT_US / 1000);
		else if (r != 0) {
			snprintf(err, errlen, "lcore %u is stuck: it has not taken the previous "
				 "change yet", app->workers[w].lcore_id);
			ret = r;
		}
	}
	return ret;
}

static void
worker_state_fini(struct vfwd_app *app)
{
	for (uint16_t w = 0; w < app->nb_offload_init; w++) {
		vfwd_worker_offload_fini(&app->workers[w]);
		vfwd_worker_queues_fini(&app->workers[w]);
	}
	app->nb_offload_init = 0;
}

/* GRO tables and the tx holds / backlog of every worker, sized by o. */
int
vfwd_ctl_worker_state_init(struct vfwd_app *app, const struct vfwd_options *o)
{
	uint16_t w;
	int ret = 0;

	for (w = 0; w < app->nb_workers; w++) {
		struct vfwd_worker *wk = &app->workers[w];
		int socket = (int)rte_lcore_to_socket_id(wk->lcore_id);

		ret = vfwd_worker_offload_init(wk, app->pool, app->indirect_pool,
					       o->knobs.gro.max_flows, socket);
		if (ret != 0)
			break;
		ret = vfwd_worker_queues_init(wk, o->backlog, socket);
		if (ret != 0) {
			vfwd_worker_offload_fini(wk);
			break;
		}
		app->nb_offload_init = w + 1;
	}
	if (ret != 0)
		worker_state_fini(app);
	return ret;
}

/* Knobs that size per-worker state (GRO flows, the backlog): rebuild it
 * with the workers stopped, then start them again if they ran. */
static int
rebuild_workers(struct vfwd_app *app, const struct vfwd_options *next, char *err, size_t errlen)
{
	bool was_running = app->running;
	int ret;

	vfwd_ctl_stop(app);
	worker_state_fini(app);
	ret = vfwd_ctl_worker_state_init(app, next);
	if (ret != 0) {
		snprintf(err, errlen, "cannot rebuild the workers' state: %s", strerror(-ret));
		/* the old sizes fitted before */
		if (vfwd_ctl_worker_state_init(app, &app->opt) != 0)
			return ret; /* workers stay stopped: start says why */
	} else {
		publish_all(app, &next->knobs, err, errlen);
	}
	if (was_running)
		vfwd_ctl_start(app);
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
		if (rte_eth_dev_get_name_by_port(port, name) != 0)
			snprintf(name, sizeof(name), "port%u", port);
		printf("note: port %u (%s) has no rx interrupts here: an idle napi lcore "
		       "polling it naps (16 us .. 1 ms) instead of waiting for one\n",
		       port, name);
	}
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
	k = vfwd_knob_find(knob);
	switch (k->apply) {
	case VFWD_APPLY_LIVE:
		ret = publish_all(app, &next.knobs, err, errlen);
		break;
	case VFWD_APPLY_RESTART:
		if (next.knobs.gro.max_flows == app->opt.knobs.gro.max_flows &&
		    next.backlog == app->opt.backlog)
			break;
		ret = rebuild_workers(app, &next, err, errlen);
		if (ret != 0)
			return ret; /* the old sizes are back in place */
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
	uint64_t now = rte_rdtsc();

	pthread_mutex_lock(&app->lock);
	vfwd_stats_read(app, app->base);
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

void
vfwd_ctl_tick(struct vfwd_app *app)
{
	uint64_t now = rte_rdtsc();
	uint64_t period = (uint64_t)(app->opt.stats_period_s * app->tsc_hz);

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

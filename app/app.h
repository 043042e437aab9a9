/* SPDX-License-Identifier: BSD-3-Clause
 *
 * State of one dpdk-vfwd process, owned by the main lcore. Workers get
 * their own struct vfwd_worker and never see this.
 */
#ifndef VFWD_APP_H
#define VFWD_APP_H

#include <limits.h>
#include <net/if.h>
#include <pthread.h>
#include <signal.h>

#include <rte_ethdev.h>

#include "options.h"
#include "vfwd.h"
#include "vfwd_port.h"

struct rte_mempool;
struct cmdline;

/* Where a reader of the counters was last time: for rates over a period.
 * The periodic report and the prompt's show commands keep one each, so
 * one does not shorten the other's period. */
struct vfwd_stats_view {
	struct vfwd_lcore_stats *last; /* [nb_workers], raw counters */
	uint64_t last_tsc;
};

/* A wire port bound to a kernel interface by index (net_af_packet):
 * followed by name, see replug.c. ifindex 0: not followed. */
struct vfwd_wire_iface {
	char name[IF_NAMESIZE];
	unsigned int ifindex;
	bool gone; /* no interface of that name now: the link poll skips it */
};

struct vfwd_app {
	/* Written by the main lcore under lock, read by it freely and by the
	 * telemetry thread under lock. */
	pthread_mutex_t lock;
	struct vfwd_options opt;

	struct rte_mempool *pool;
	struct rte_mempool *indirect_pool; /* for software segmentation */
	unsigned int pool_in_use_at_start; /* after ports started, before workers */
	uint32_t pool_backlog; /* the largest backlog the pool is sized for */

	uint16_t nb_pairs;
	struct vfwd_pair pairs[VFWD_MAX_PAIRS];
	uint16_t nb_ports; /* ports in pairs, in pair order: vm, wire, vm, ... */
	uint16_t ports[2 * VFWD_MAX_PAIRS];
	struct vfwd_port_state port_state[VFWD_MAX_PORTS];
	bool port_started[VFWD_MAX_PORTS];
	/* the vhost connection (conn_gen) whose guest MTU was last looked at */
	uint32_t mtu_seen_gen[VFWD_MAX_PORTS];
	struct vfwd_port_conf port_conf; /* what every port was set up with */
	struct vfwd_wire_iface wire_iface[VFWD_MAX_PORTS];
	unsigned int replugs;            /* ports made again */

	uint16_t nb_workers;           /* workers in the current plan */
	uint16_t max_workers;          /* worker lcores: capacity of the arrays */
	unsigned int lcore_ids[VFWD_MAX_WORKERS];
	struct vfwd_worker **workers;  /* [max_workers] (NULL beyond nb_workers), by vfwd_ctl_plan */
	struct rte_ring *pipe_rings[VFWD_MAX_PIPE * VFWD_MAX_PIPE]; /* [rx][work] */
	unsigned int nb_pipe_rings;
	uint16_t nb_offload_init;      /* workers whose offload state exists */
	unsigned int plan_gen;         /* plans built: names their rings */
	bool running;                  /* workers launched */

	/* Counters are never reset under their writer: "clear fwd stats"
	 * keeps a base, and everything shown is raw - base. */
	struct vfwd_lcore_stats *base; /* [max_workers] */
	struct vfwd_stats_view report_view, show_view;
	uint64_t tsc_hz;
	uint64_t start_tsc;  /* of the first start or the last clear */
	uint64_t stop_tsc;   /* --duration: quit when running past it; 0: never */
	uint64_t next_report_tsc;
	/* show port stats: rates since the previous show */
	struct rte_eth_stats port_last[VFWD_MAX_PORTS];
	uint64_t port_last_tsc[VFWD_MAX_PORTS]; /* 0: never shown since clear */

	/* control loop */
	volatile sig_atomic_t *quit_signal; /* set by SIGINT/SIGTERM */
	bool quit;                          /* quit command, or --duration over */
	int cmd_status;                     /* 0, or -1 once a command failed */
	const char *cmd_where;              /* "file:line" while a script runs */
	unsigned int load_depth;            /* nested load commands */
	struct cmdline *cl;                 /* the prompt or the script parser */
	bool pdump_init;                    /* dpdk-dumpcap can attach */
	bool noted_naps;                    /* said which ports lack rx interrupts */

	char vhost_sock[PATH_MAX]; /* the embedded default's socket, or "" */
	char tap_name[32];
};

/* control.c */
/* The port's ethdev name, or "port<N>": in buf, returned. */
const char *vfwd_port_name(uint16_t port, char buf[RTE_ETH_NAME_MAX_LEN]);
/* Plan which worker lcore does what (direct or pipeline, from o), build
 * the workers for it with their rings, GRO tables, tx holds and backlog
 * (their stats carry over), put them in place of the previous ones (freed)
 * and print the plan if verbose. Workers must be stopped. On error nothing
 * changed and err says why. */
int vfwd_ctl_plan(struct vfwd_app *app, const struct vfwd_options *o, bool verbose, char *err,
		  size_t errlen);
/* Free the workers in place and all they hold (stopped; at exit). */
void vfwd_ctl_workers_free(struct vfwd_app *app);
int vfwd_ctl_start(struct vfwd_app *app);
/* Say once which ports make a napi lcore nap instead of waiting for an rx
 * interrupt. */
void vfwd_ctl_note_rx_mode(struct vfwd_app *app);
int vfwd_ctl_stop(struct vfwd_app *app);
/* Whether --notify mode can work with these ports, this DPDK and
 * --vhost-path; if not, -ENOTSUP and err says why. */
int vfwd_ctl_notify_check(const struct vfwd_app *app, const struct vfwd_options *o, char *err,
			  size_t errlen);
/* Set a knob (knobs.c) on the running data path; on error nothing changed
 * and err says why. */
int vfwd_ctl_set(struct vfwd_app *app, const char *knob, const char *val, char *err,
		 size_t errlen);
void vfwd_ctl_clear_fwd_stats(struct vfwd_app *app);
/* Periodic work of the main lcore: reports, --duration. */
void vfwd_ctl_tick(struct vfwd_app *app);
bool vfwd_ctl_quitting(const struct vfwd_app *app);
/* Sleep while ticking; returns early when quitting. */
void vfwd_ctl_sleep(struct vfwd_app *app, double secs);
void vfwd_ctl_sleep_ms(unsigned int ms);

/* replug.c: wire ports whose kernel interface may go and come back */
void vfwd_replug_init(struct vfwd_app *app);
/* From the control loop: a port whose interface came back is made again
 * (the workers stop meanwhile); on failure it sets app->quit. */
void vfwd_replug_tick(struct vfwd_app *app);

/* report.c */
void vfwd_report(struct vfwd_app *app, struct vfwd_stats_view *view, bool final, bool json);
void vfwd_show_lcores(struct vfwd_app *app, bool json);
/* show latency [json]: per-stage residence time (--latency on) */
void vfwd_show_latency(struct vfwd_app *app, bool json);
/* Per pair and direction, summed over lcores and queues; json adds each
 * stream (pair, queue, direction) and the direction totals. */
void vfwd_show_pairs(struct vfwd_app *app, bool json);
void vfwd_show_port_stats(struct vfwd_app *app, int port, bool json); /* port < 0: all */
void vfwd_show_port_info(struct vfwd_app *app, int port, bool json);
void vfwd_show_config(struct vfwd_app *app, bool json);
int vfwd_view_init(struct vfwd_stats_view *v, uint16_t nb_workers);
void vfwd_view_fini(struct vfwd_stats_view *v);
/* How long a report waits for the workers' snapshots: a napi lcore answers
 * when its sleep ends (sleep-max-us, 100 ms at most) */
#define VFWD_SNAPSHOT_TIMEOUT_US 200000
/* Raw counters of every worker into now[nb_workers], each a consistent
 * set (vfwd_workers_snapshot; control thread only). */
void vfwd_stats_read(const struct vfwd_app *app, struct vfwd_lcore_stats *now);

/* cli.c */
/* Run a command file; returns 0, or -1 after the first failing line not
 * prefixed with '-' (its file:line printed). */
int vfwd_cli_run_file(struct vfwd_app *app, const char *path);
/* One command line (no newline). Returns 0 or -1 (the error printed). */
int vfwd_cli_run_line(struct vfwd_app *app, const char *line);
/* The interactive prompt on stdin until quit, EOF or a signal. */
int vfwd_cli_prompt(struct vfwd_app *app);
/* A failing command says why (with file:line inside scripts). */
void vfwd_cli_error(struct vfwd_app *app, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* sockets.c: mode and owner of the vhost-user server sockets */
int vfwd_sockets_secure(struct vfwd_app *app);

/* telemetry.c */
int vfwd_telemetry_register(struct vfwd_app *app);
void vfwd_telemetry_unregister(struct vfwd_app *app);

#endif

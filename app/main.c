/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dpdk-vfwd: set up from the command line, launch the workers, report,
 * shut down cleanly. The main lcore does control and reporting only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie */
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "app.h"
#include "vfwd_pool.h"
#include <cmdline.h>
#include <rte_pdump.h>

#include "default_ports.h"
#include "unmap_guard.h"

#define NB_RXD 1024
#define NB_TXD 1024
#define POOL_CACHE 256

static volatile sig_atomic_t quit_signal;

static void
on_signal(int sig)
{
	quit_signal = sig;
}

static const char *
port_name(uint16_t port)
{
	static char name[RTE_ETH_NAME_MAX_LEN];

	return vfwd_port_name(port, name);
}

/* Split argv at the first "--": EAL's part, then ours (with a program name
 * in front). Our part is parsed before EAL starts anything. */
static int
split_args(int argc, char **argv, int *app_argc, char ***app_argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			argv[i] = argv[0];
			*app_argc = argc - i;
			*app_argv = &argv[i];
			return i;
		}
	}
	*app_argc = 1;
	*app_argv = argv; /* only argv[0] is looked at */
	return argc;
}

/* Pairs from --pair, or the k-th vhost port with the k-th other port. */
static int
choose_pairs(struct vfwd_app *app)
{
	const struct vfwd_options *o = &app->opt;
	uint16_t vm[VFWD_MAX_PORTS], wire[VFWD_MAX_PORTS], nb_vm = 0, nb_wire = 0, port;

	if (o->nb_pairs) {
		for (uint16_t i = 0; i < o->nb_pairs; i++) {
			const struct vfwd_pair *p = &o->pairs[i];

			if (!rte_eth_dev_is_valid_port(p->vm_port) ||
			    !rte_eth_dev_is_valid_port(p->wire_port)) {
				fprintf(stderr, "dpdk-vfwd: error: --pair %u:%u: no such port (%u ports)\n",
					p->vm_port, p->wire_port, rte_eth_dev_count_avail());
				return -ENODEV;
			}
			if (!vfwd_port_is_vhost(p->vm_port)) {
				fprintf(stderr,
					"dpdk-vfwd: error: --pair %u:%u: port %u (%s) is not a vhost port\n",
					p->vm_port, p->wire_port, p->vm_port, port_name(p->vm_port));
				return -EINVAL;
			}
			if (vfwd_port_is_vhost(p->wire_port)) {
				fprintf(stderr,
					"dpdk-vfwd: error: --pair %u:%u: port %u (%s) is a vhost port, "
					"the wire side must be another driver\n",
					p->vm_port, p->wire_port, p->wire_port, port_name(p->wire_port));
				return -EINVAL;
			}
			app->pairs[i] = *p;
		}
		app->nb_pairs = o->nb_pairs;
		return 0;
	}

	RTE_ETH_FOREACH_DEV(port) {
		if (port >= VFWD_MAX_PORTS) {
			fprintf(stderr, "dpdk-vfwd: error: port %u: at most %d ports\n", port,
				VFWD_MAX_PORTS);
			return -E2BIG;
		}
		if (vfwd_port_is_vhost(port))
			vm[nb_vm++] = port;
		else
			wire[nb_wire++] = port;
	}
	if (nb_vm == 0 || nb_wire == 0) {
		fprintf(stderr,
			"dpdk-vfwd: error: need a vhost port and a wire port, found %u vhost and %u "
			"other\n",
			nb_vm, nb_wire);
		return -ENODEV;
	}
	app->nb_pairs = RTE_MIN(RTE_MIN(nb_vm, nb_wire), (uint16_t)VFWD_MAX_PAIRS);
	for (uint16_t i = 0; i < app->nb_pairs; i++) {
		app->pairs[i].vm_port = vm[i];
		app->pairs[i].wire_port = wire[i];
	}
	for (uint16_t i = app->nb_pairs; i < nb_vm; i++)
		printf("note: port %u (%s) has no wire port to pair with: unused\n", vm[i],
		       port_name(vm[i]));
	for (uint16_t i = app->nb_pairs; i < nb_wire; i++)
		printf("note: port %u (%s) has no vhost port to pair with: unused\n", wire[i],
		       port_name(wire[i]));
	return 0;
}

static int
setup_ports(struct vfwd_app *app)
{
	const struct vfwd_port_conf pconf = {
		.nb_rxq = app->opt.nb_rxq,
		.nb_txq = app->opt.nb_txq,
		.nb_rxd = NB_RXD,
		.nb_txd = NB_TXD,
		.mtu = app->opt.mtu,
		.vhost_path = app->opt.vhost_path,
		.vhost_xstats = app->opt.vhost_xstats,
		.quiesce = vfwd_workers_quiesce,
	};
	struct vfwd_pool_need need;
	unsigned int nb_mbufs;
	uint32_t data_room = RTE_MBUF_DEFAULT_DATAROOM;
	mode_t mask;

	app->nb_ports = 0;
	for (uint16_t i = 0; i < app->nb_pairs; i++) {
		app->ports[app->nb_ports++] = app->pairs[i].vm_port;
		app->ports[app->nb_ports++] = app->pairs[i].wire_port;
	}

	/* --mtu within what every port takes; mbufs big enough for a port
	 * that copies each frame into one (net_af_packet, a NIC without rx
	 * scatter), else chains of the default size */
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		struct vfwd_port_mtu_caps caps;
		uint16_t port = app->ports[i];
		int ret = vfwd_port_mtu_caps(port, app->opt.mtu, RTE_MBUF_DEFAULT_DATAROOM, &caps);

		if (ret != 0) {
			fprintf(stderr, "dpdk-vfwd: error: port %u (%s): %s\n", port, port_name(port),
				strerror(-ret));
			return ret;
		}
		if (app->opt.mtu > caps.max_mtu) {
			fprintf(stderr, "dpdk-vfwd: error: port %u (%s): --mtu %u: it takes at most "
					"%u (%s)\n",
				port, port_name(port), app->opt.mtu, caps.max_mtu, caps.limit_why);
			return -EINVAL;
		}
		if (caps.rx_room > data_room) {
			data_room = RTE_ALIGN_CEIL(caps.rx_room, RTE_CACHE_LINE_SIZE);
			printf("note: port %u (%s) takes each frame into one mbuf: mbufs of %u bytes\n",
			       port, port_name(port), data_room);
		}
	}
	if (data_room + RTE_PKTMBUF_HEADROOM > UINT16_MAX) {
		fprintf(stderr, "dpdk-vfwd: error: mbufs of %u bytes: more than an mbuf holds\n",
			data_room);
		return -EINVAL;
	}

	/* Everything the configuration can hold at once (vfwd_pool_size): the
	 * runtime knobs up to the largest values they allow, pipelines up to
	 * what the lcores allow, backlog rings up to --backlog (set backlog
	 * may not go beyond it: the pool cannot grow). */
	app->pool_backlog = app->opt.backlog;
	need = (struct vfwd_pool_need){
		.nb_ports = app->nb_ports,
		.nb_rxq = pconf.nb_rxq, .nb_txq = pconf.nb_txq,
		.nb_rxd = NB_RXD, .nb_txd = NB_TXD,
		.nb_lcores = rte_lcore_count(),
		.cache_size = POOL_CACHE,
		.nb_workers = RTE_MIN(rte_lcore_count() - 1, (unsigned int)VFWD_MAX_WORKERS),
		.nb_streams = app->nb_pairs * pconf.nb_rxq * 2,
		.backlog = app->pool_backlog,
		.data_room = (uint16_t)data_room,
		.max_frame = app->opt.mtu ? (uint32_t)app->opt.mtu + RTE_ETHER_HDR_LEN +
						    2 * RTE_VLAN_HLEN + RTE_ETHER_CRC_LEN
					  : 0,
	};
	nb_mbufs = vfwd_pool_size(&need);
	app->pool = rte_pktmbuf_pool_create("vfwd_pool", nb_mbufs, POOL_CACHE, 0,
					    (uint16_t)(data_room + RTE_PKTMBUF_HEADROOM),
					    rte_socket_id());
	if (app->pool == NULL) {
		fprintf(stderr, "dpdk-vfwd: error: cannot create a pool of %u mbufs: %s\n", nb_mbufs,
			rte_strerror(rte_errno));
		return -rte_errno;
	}

	/* GSO segments: a header in a direct mbuf, the payload in indirect
	 * ones pointing into the guest's frame */
	app->indirect_pool = rte_pktmbuf_pool_create("vfwd_indirect", nb_mbufs, POOL_CACHE, 0, 0,
						     rte_socket_id());
	if (app->indirect_pool == NULL) {
		fprintf(stderr, "dpdk-vfwd: error: cannot create a pool of %u indirect mbufs: %s\n",
			nb_mbufs, rte_strerror(rte_errno));
		return -rte_errno;
	}

	/* net_vhost creates its server socket in rte_eth_dev_configure: with
	 * at most owner read/write (and nothing --socket-mode does not give)
	 * until vfwd_sockets_secure sets its mode and owner */
	vfwd_unmap_guard_ports(app->port_state, VFWD_MAX_PORTS);
	mask = umask(vfwd_socket_umask(app->opt.socket_mode));
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		uint16_t port = app->ports[i];
		int ret = vfwd_port_setup(port, &pconf, app->pool, &app->port_state[port]);

		if (ret != 0) {
			umask(mask);
			fprintf(stderr, "dpdk-vfwd: error: port %u (%s): setup with %u rxq/%u txq "
					"failed: %s%s\n",
				port, port_name(port), pconf.nb_rxq, pconf.nb_txq, strerror(-ret),
				ret == -EINVAL && vfwd_port_is_vhost(port)
					? " (give net_vhost queues=N for N > 1)"
					: "");
			return ret;
		}
		app->port_started[port] = true;
		if (app->port_state[port].mtu_not_set)
			printf("note: port %u (%s): its PMD sets no MTU: vfwd sends it frames up to "
			       "--mtu %u, what lies behind it may take less\n",
			       port, port_name(port), app->opt.mtu);
		if (app->port_state[port].withheld_features & (1ULL << VFWD_VIRTIO_NET_F_HOST_UFO))
			printf("note: port %u (%s): HOST_UFO not offered to the guest (vfwd does not "
			       "fragment UDP)\n", port, port_name(port));
	}
	umask(mask);
	app->port_conf = pconf;
	vfwd_replug_init(app);
	return 0;
}

static int
setup_workers(struct vfwd_app *app)
{
	unsigned int lcore;
	char err[256];
	int ret;

	if (rte_lcore_count() < 2) {
		fprintf(stderr, "dpdk-vfwd: error: need at least one worker lcore besides the main "
				"one (e.g. -l 0-1)\n");
		return -EINVAL;
	}
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (app->max_workers == VFWD_MAX_WORKERS)
			break;
		app->lcore_ids[app->max_workers++] = lcore;
	}
	app->base = calloc(app->max_workers, sizeof(app->base[0]));
	if (app->base == NULL ||
	    vfwd_view_init(&app->report_view, app->max_workers) != 0 ||
	    vfwd_view_init(&app->show_view, app->max_workers) != 0)
		return -ENOMEM;

	printf("forwarding %u pair(s) x %u queue(s), burst %u, tx-retry %u, gro %s, vhost path "
	       "%s:\n",
	       app->nb_pairs, app->opt.nb_rxq, app->opt.knobs.burst, app->opt.knobs.tx_retry,
	       !app->opt.knobs.gro.enabled ? "off"
	       : app->opt.knobs.gro.mode == VFWD_GRO_HEAVY ? "heavy" : "light",
	       app->opt.vhost_path == VFWD_VHOST_PATH_LIB ? "lib" : "pmd");
	ret = vfwd_ctl_plan(app, &app->opt, true, err, sizeof(err));
	if (ret != 0)
		fprintf(stderr, "dpdk-vfwd: error: %s\n", err);
	return ret;
}

static void
cleanup(struct vfwd_app *app)
{
	vfwd_ctl_stop(app);
	vfwd_telemetry_unregister(app);
	if (app->pdump_init) {
		rte_pdump_uninit();
		app->pdump_init = false;
	}
	if (app->cl != NULL) {
		cmdline_free(app->cl);
		app->cl = NULL;
	}
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		uint16_t port = app->ports[i];

		if (app->port_started[port]) {
			vfwd_port_teardown(port, &app->port_state[port]);
			app->port_started[port] = false;
		}
	}
	vfwd_default_ports_remove(app);
	vfwd_ctl_workers_free(app);
	rte_mempool_free(app->pool);
	rte_mempool_free(app->indirect_pool);
	free(app->base);
	vfwd_view_fini(&app->report_view);
	vfwd_view_fini(&app->show_view);
}

/* Non-interactive: forward until a signal, --duration or a script's quit. */
static void
run_batch(struct vfwd_app *app)
{
	if (!vfwd_ctl_quitting(app) && !app->running) {
		int ret = vfwd_ctl_start(app);

		if (ret != 0) {
			fprintf(stderr, "dpdk-vfwd: error: cannot start the workers: %s\n",
				strerror(-ret));
			return;
		}
		printf("forwarding started on %u lcore(s)\n", app->nb_workers);
	}
	while (!vfwd_ctl_quitting(app)) {
		vfwd_ctl_tick(app);
		vfwd_ctl_sleep_ms(10);
	}
}

/* DPDK's log lines, to stderr as DPDK writes them, but only while no report
 * is being written to stdout (reports hold stdout's lock until flushed).
 * On a terminal both streams are one device, and a report line is longer
 * than what the tty takes in one go: a log line from the vhost thread
 * ("Tx csum will be done in SW") landed inside a JSON report. */
static ssize_t
log_write(void *cookie __rte_unused, const char *buf, size_t size)
{
	size_t n;

	flockfile(stdout);
	n = fwrite(buf, 1, size, stderr);
	fflush(stderr);
	funlockfile(stdout);
	/* what fopencookie wants: the bytes taken, 0 on error, never -1 */
	return n;
}

static void
log_beside_reports(void)
{
	static const cookie_io_functions_t log_funcs = {.write = log_write};
	FILE *f = fopencookie(NULL, "w", log_funcs);

	if (f != NULL)
		rte_openlog_stream(f);
}

int
main(int argc, char **argv)
{
	struct vfwd_app app;
	char err[256];
	int app_argc, eal_argc, ret, status = 0;
	char **app_argv;

	memset(&app, 0, sizeof(app));
	pthread_mutex_init(&app.lock, NULL);
	app.quit_signal = &quit_signal;
	/* reports are read live by people and scripts, through pipes too;
	 * a buffer that holds a whole JSON report makes each line one write,
	 * which another writer to the same terminal (a log line from the
	 * vhost thread) cannot split (the default, st_blksize, is 1 KiB on a
	 * pty) */
	setvbuf(stdout, NULL, _IOLBF, 1 << 18);
	eal_argc = split_args(argc, argv, &app_argc, &app_argv);
	if (vfwd_options_parse(app_argc, app_argv, &app.opt, err, sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-vfwd: error: %s\n", err);
		return 2;
	}
	if (app.opt.help) {
		fputs(vfwd_usage(), stdout);
		return 0;
	}

	ret = rte_eal_init(eal_argc, argv);
	if (ret < 0) {
		fprintf(stderr, "dpdk-vfwd: error: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	log_beside_reports();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* a vhost-user or memif peer that vanishes must not take us down */
	signal(SIGPIPE, SIG_IGN);
	app.tsc_hz = rte_get_tsc_hz();

	if (rte_eth_dev_count_avail() == 0) {
		ret = vfwd_default_ports_create(&app);
		if (ret != 0)
			goto fail;
	}
	ret = choose_pairs(&app);
	if (ret == 0)
		ret = setup_ports(&app);
	if (ret == 0) {
		ret = vfwd_ctl_notify_check(&app, &app.opt, err, sizeof(err));
		if (ret != 0)
			fprintf(stderr, "dpdk-vfwd: error: --%s\n", err);
	}
	if (ret == 0)
		ret = vfwd_sockets_secure(&app);
	if (ret == 0)
		ret = setup_workers(&app);
	if (ret != 0)
		goto fail;
	if (app.vhost_sock[0])
		vfwd_default_ports_explain(&app);
	vfwd_ctl_note_rx_mode(&app);
	app.pool_in_use_at_start = rte_mempool_in_use_count(app.pool);

	/* dpdk-dumpcap attaches as a secondary process: not with --in-memory */
	if (rte_pdump_init() != 0)
		printf("note: packet capture (dpdk-dumpcap) unavailable: %s\n",
		       rte_strerror(rte_errno));
	else
		app.pdump_init = true;
	/* capture hooks ethdev's rx/tx callbacks, which the lib path skips */
	if (app.pdump_init && app.opt.vhost_path == VFWD_VHOST_PATH_LIB)
		printf("note: --vhost-path lib: packet capture sees nothing on vhost ports "
		       "(capture on the wire port)\n");
	if (vfwd_telemetry_register(&app) != 0)
		printf("note: telemetry commands /vfwd/* not registered\n");

	if (app.opt.cmdline_file[0] && vfwd_cli_run_file(&app, app.opt.cmdline_file) != 0) {
		status = 1;
		if (!app.opt.interactive)
			app.quit = true;
	}
	if (app.opt.interactive) {
		if (!vfwd_ctl_quitting(&app) && vfwd_cli_prompt(&app) != 0) {
			fprintf(stderr, "dpdk-vfwd: error: cannot start the prompt\n");
			status = 1;
		}
	} else {
		run_batch(&app);
	}
	vfwd_ctl_stop(&app);
	if (*app.quit_signal)
		printf("\nsignal %d received, stopping\n", (int)*app.quit_signal);
	vfwd_report(&app, &app.report_view, true, app.opt.stats_format == VFWD_STATS_JSON);
	cleanup(&app);
	rte_eal_cleanup();
	return status;

fail:
	cleanup(&app);
	rte_eal_cleanup();
	return 1;
}

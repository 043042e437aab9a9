/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dpdk-vfwd-gen: a traffic generator and checker for forwarders between
 * VMs and the wire. See gen_options.c for the command line, gen_run.c and vfwd_gen.h for
 * what it sends and checks.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "gen.h"

#define RING_SIZE 1024
/* rx descriptors asked for: a virtio port posts at most its ring (a
 * virtio-user port's queue_size), so that devarg alone sizes it; a deep
 * ring rides out the moments the generator is not scheduled */
#define RX_RING_SIZE 4096

static struct gen_ctx *signal_ctx;
static volatile sig_atomic_t stop_lingering;

static void
on_signal(int sig)
{
	RTE_SET_USED(sig);
	stop_lingering = 1;
	if (signal_ctx != NULL)
		signal_ctx->quit = true;
}

struct lcore_share {
	struct gen_ctx *ctx;
	struct gen_task tasks[GEN_MAX_TASKS];
	unsigned int n;
	uint64_t end_tsc;
};

static int
lcore_main(void *arg)
{
	struct lcore_share *share = arg;

	gen_run_tasks(share->ctx, share->tasks, share->n);
	share->end_tsc = rte_rdtsc();
	return 0;
}

static const char *
port_name(uint16_t port, char *buf, size_t len)
{
	if (rte_eth_dev_get_name_by_port(port, buf) != 0)
		snprintf(buf, len, "port%u", port);
	return buf;
}

static int
port_init(const struct gen_opts *o, uint16_t port, bool vm_side, struct rte_mempool *pool)
{
	const struct gen_conf *c = &o->conf;
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	char name[RTE_ETH_NAME_MAX_LEN];
	int ret = rte_eth_dev_info_get(port, &info);
	uint16_t nq = c->queues;
	uint32_t frame;

	if (ret != 0)
		return ret;
	if (info.max_rx_queues < nq || info.max_tx_queues < nq) {
		/* virtio-user has the queue pairs its vdev's queues= gives */
		fprintf(stderr, "dpdk-vfwd-gen: --queues %u: %s (%s side) has %u rx / %u tx "
			"queues (a net_virtio_user vdev needs queues=%u)\n", nq,
			port_name(port, name, sizeof(name)), vm_side ? "VM" : "wire",
			info.max_rx_queues, info.max_tx_queues, nq);
		return -EINVAL;
	}
	if (c->profile == GEN_PROFILE_TCP && vm_side && !o->no_lro)
		/* take what a forwarder's GRO hands a guest: GSO frames in chains */
		conf.rxmode.offloads = info.rx_offload_capa &
			(RTE_ETH_RX_OFFLOAD_TCP_LRO | RTE_ETH_RX_OFFLOAD_TCP_CKSUM |
			 RTE_ETH_RX_OFFLOAD_SCATTER);
	if (c->profile == GEN_PROFILE_TCP && vm_side && c->tso > 1 && c->dir_on[GEN_VM_TO_WIRE]) {
		if (!(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_TSO)) {
			fprintf(stderr, "dpdk-vfwd-gen: --tso: %s has no TSO (a vhost port needs "
				"tso=1 on the forwarder's side)\n", port_name(port, name, sizeof(name)));
			return -ENOTSUP;
		}
		conf.txmode.offloads = info.tx_offload_capa &
			(RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
			 RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	}
	frame = c->profile == GEN_PROFILE_TCP ? gen_hdrs_tcp(&c->shape) + c->mss : c->frame_len;
	/* the MTU counts from the IP header: a VLAN tag is not in it */
	if (frame - gen_l2_len(&c->shape) > RTE_ETHER_MTU)
		conf.rxmode.mtu = frame - gen_l2_len(&c->shape);
	/* N rx and N tx queues on both ports. The memif PMD of 22.11: the
	 * client adds as many rings each way as it has queues (c2s: its tx
	 * queues, s2c: its rx queues); the server refuses a ring index its own
	 * queues do not have ("Invalid ring index") and leaves a queue without
	 * a ring unused. So the forwarder's memif port wants N rx and N tx
	 * queues as well; a virtio-user vdev, queues=N */
	ret = rte_eth_dev_configure(port, nq, nq, &conf);
	for (uint16_t q = 0; ret == 0 && q < nq; q++)
		ret = rte_eth_rx_queue_setup(port, q, RX_RING_SIZE, rte_eth_dev_socket_id(port),
					     NULL, pool);
	for (uint16_t q = 0; ret == 0 && q < nq; q++)
		ret = rte_eth_tx_queue_setup(port, q, RING_SIZE, rte_eth_dev_socket_id(port), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret != 0)
		fprintf(stderr, "dpdk-vfwd-gen: %s (%s side): set-up failed: %s (is the forwarder "
			"up, on the same socket?)\n", port_name(port, name, sizeof(name)),
			vm_side ? "VM" : "wire", rte_strerror(-ret));
	return ret;
}

/* both links up, or say which is not */
static int
wait_links(const struct gen_opts *o)
{
	uint64_t deadline = rte_get_timer_cycles() + (uint64_t)(o->link_timeout_s *
								 (double)rte_get_timer_hz());

	for (;;) {
		int down = -1;

		for (int s = 0; s < GEN_SIDE_COUNT; s++) {
			struct rte_eth_link link;

			if (rte_eth_link_get_nowait(o->conf.port[s], &link) != 0 ||
			    link.link_status != RTE_ETH_LINK_UP)
				down = s;
		}
		if (down < 0)
			return 0;
		if (stop_lingering || rte_get_timer_cycles() > deadline) {
			char name[RTE_ETH_NAME_MAX_LEN];

			fprintf(stderr, "dpdk-vfwd-gen: %s (%s side) link down after %.0f s: is "
				"the forwarder up, on the same socket?%s\n",
				port_name(o->conf.port[down], name, sizeof(name)),
				down == GEN_SIDE_VM ? "VM" : "wire", o->link_timeout_s,
				/* a memif server with fewer queues refuses the rings */
				o->conf.queues > 1 ? " With --queues, does its port have as many "
				"rx and tx queues?" : "");
			return -ETIMEDOUT;
		}
		rte_delay_us_sleep(10000);
	}
}

static int
write_json(const char *path, const struct gen_ctx *ctx, const struct gen_run_info *info)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		fprintf(stderr, "dpdk-vfwd-gen: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	gen_report_json(f, ctx, info);
	return fclose(f) == 0 ? 0 : -EIO;
}

static void
close_ports(void)
{
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port) {
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
}

int
main(int argc, char **argv)
{
	static struct gen_ctx ctx;
	static struct lcore_share shares[RTE_MAX_LCORE];
	struct gen_task tasks[GEN_MAX_TASKS];
	struct rte_mempool *pool, *big_pool = NULL;
	struct gen_run_info info = {0};
	struct gen_opts o;
	char err[256] = "";
	unsigned int ntasks, nlcores, i, lcore;
	uint32_t buf_len;
	uint64_t start, end;
	int ret = rte_eal_init(argc, argv);

	if (ret < 0) {
		fprintf(stderr, "dpdk-vfwd-gen: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argv[ret] = argv[0];
	if (gen_parse_args(argc - ret, argv + ret, &o, err, sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-vfwd-gen: %s\n", err);
		gen_usage(stderr);
		rte_eal_cleanup();
		return 2;
	}
	if (o.help) {
		gen_usage(stdout);
		rte_eal_cleanup();
		return 0;
	}
	for (int s = 0; s < GEN_SIDE_COUNT; s++) {
		if (!rte_eth_dev_is_valid_port(o.conf.port[s])) {
			fprintf(stderr, "dpdk-vfwd-gen: no port %u for the %s side: give it with "
				"--vdev (e.g. %s)\n", o.conf.port[s], s == GEN_SIDE_VM ? "VM" : "wire",
				s == GEN_SIDE_VM ? "net_virtio_user0,path=SOCK"
						 : "net_memif0,role=client,socket=SOCK");
			rte_eal_cleanup();
			return 2;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	buf_len = RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE,
			  (uint32_t)RTE_PKTMBUF_HEADROOM + o.conf.frame_len);
	if (o.conf.profile == GEN_PROFILE_TCP)
		buf_len = RTE_MAX(buf_len, (uint32_t)RTE_PKTMBUF_HEADROOM +
				  gen_hdrs_tcp(&o.conf.shape) + o.conf.mss);
	/* each rx queue beyond the first may hold a ring's worth on each port */
	pool = rte_pktmbuf_pool_create("gen_pool", 16383 + 2u * (o.conf.queues - 1u) * RX_RING_SIZE,
				       256, 0, buf_len, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "dpdk-vfwd-gen: mbuf pool: %s\n", rte_strerror(rte_errno));
		rte_eal_cleanup();
		return 1;
	}
	if (o.conf.profile == GEN_PROFILE_TCP && o.conf.tso > 1) {
		big_pool = rte_pktmbuf_pool_create("gen_tso", 2047, 32, 0,
						   RTE_PKTMBUF_HEADROOM +
						   gen_hdrs_tcp(&o.conf.shape) +
						   o.conf.mss * o.conf.tso, rte_socket_id());
		if (big_pool == NULL) {
			fprintf(stderr, "dpdk-vfwd-gen: TSO pool: %s\n", rte_strerror(rte_errno));
			rte_eal_cleanup();
			return 1;
		}
	}
	if (port_init(&o, o.conf.port[GEN_SIDE_VM], true, pool) != 0 ||
	    port_init(&o, o.conf.port[GEN_SIDE_WIRE], false, pool) != 0 || wait_links(&o) != 0) {
		close_ports();
		rte_eal_cleanup();
		return 1;
	}
	ret = gen_ctx_init(&ctx, &o.conf, pool, big_pool);
	if (ret != 0) {
		fprintf(stderr, "dpdk-vfwd-gen: %s\n", rte_strerror(-ret));
		close_ports();
		rte_eal_cleanup();
		return 1;
	}
	signal_ctx = &ctx;

	/* the tasks in turn over the lcores, the main one first */
	ntasks = gen_tasks(&o.conf, tasks);
	nlcores = RTE_MIN(rte_lcore_count(), ntasks);
	i = 0;
	RTE_LCORE_FOREACH(lcore) {
		if (i < nlcores)
			shares[lcore].ctx = &ctx;
		for (unsigned int t = i; i < nlcores && t < ntasks; t += nlcores)
			shares[lcore].tasks[shares[lcore].n++] = tasks[t];
		i++;
	}
	if (rte_lcore_count() > ntasks)
		fprintf(stderr, "dpdk-vfwd-gen: %u lcores, %u tasks: %u lcores idle\n",
			rte_lcore_count(), ntasks, rte_lcore_count() - ntasks);
	fprintf(stderr, "dpdk-vfwd-gen: running %u task%s on %u lcore%s\n", ntasks,
		ntasks == 1 ? "" : "s", nlcores, nlcores == 1 ? "" : "s");

	start = rte_rdtsc();
	ctx.start_tsc = start;
	ctx.deadline_tsc = start + (uint64_t)(o.conf.timeout_s * (double)ctx.hz);
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (shares[lcore].n > 0)
			rte_eal_remote_launch(lcore_main, &shares[lcore], lcore);
	}
	lcore_main(&shares[rte_get_main_lcore()]);
	rte_eal_mp_wait_lcore();
	end = start;
	RTE_LCORE_FOREACH(lcore) {
		if (shares[lcore].n > 0 && shares[lcore].end_tsc > end)
			end = shares[lcore].end_tsc;
	}
	info.lcores = nlcores;
	info.tasks = ntasks;
	info.secs = (double)(end - start) / (double)ctx.hz;

	if (o.json)
		gen_report_json(stdout, &ctx, &info);
	else
		gen_report_text(stdout, &ctx, &info);
	fflush(stdout);
	ret = o.json_file ? write_json(o.json_file, &ctx, &info) : 0;
	if (ctx.timed_out)
		fprintf(stderr, "dpdk-vfwd-gen: stopped at --timeout %.0f s\n", o.conf.timeout_s);

	/* the memif PMD of DPDK 22.11 unmaps on disconnect without waiting
	 * for the other side's data path: let the forwarder go first */
	while (o.linger && !stop_lingering)
		rte_delay_us_sleep(10000);
	signal_ctx = NULL;
	close_ports();
	gen_ctx_free(&ctx);
	rte_mempool_free(pool);
	rte_mempool_free(big_pool);
	rte_eal_cleanup();
	/* 3: the run completed, and found something wrong (the report says what) */
	return ret != 0 ? 1 : gen_report_ok(&ctx) ? 0 : 3;
}

/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target over the packet stages, as they meet guest and wire
 * frames: header typing, GRO (light and heavy, across bursts), and the
 * guest-TSO / partial-checksum path toward the wire (what net_vhost makes
 * of a virtio-net header: RX_LRO + gso_size, RX_L4_CKSUM_NONE), software
 * segmentation included. Built with clang -fsanitize=fuzzer,address,
 * undefined (meson -Dfuzz=true); each input must leave no mbuf behind.
 *
 * Input: [flags][gso_size lo][gso_size hi][nseg] then frames, each
 * [len lo][len hi][bytes...]; frames are split into chains of nseg%4+1
 * segments, some marked as guest TSO frames with the given gso_size.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "vfwd.h"

#define MAX_FRAMES 64

static struct rte_mempool *pool, *indirect_pool;
static struct vfwd_gro gro_light, gro_heavy;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char prefix[64];
	char *eal[] = {(*argv)[0], "-l", "0", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
		       "--log-level=*:crit", "--file-prefix", prefix};
	const struct vfwd_gro_conf conf = {.max_flows = 64};

	(void)argc;
	snprintf(prefix, sizeof(prefix), "vfwd-fuzz-%d", getpid());
	if (rte_eal_init(RTE_DIM(eal), eal) < 0)
		abort();
	pool = rte_pktmbuf_pool_create("f_pool", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	indirect_pool = rte_pktmbuf_pool_create("f_indirect", 4095, 0, 0, 0, 0);
	if (pool == NULL || indirect_pool == NULL || vfwd_gro_init(&gro_light, &conf, 0) != 0 ||
	    vfwd_gro_init(&gro_heavy, &conf, 0) != 0)
		abort();
	return 0;
}

/* A frame as a chain of up to nseg mbufs. */
static struct rte_mbuf *
frame(const uint8_t *p, uint16_t len, unsigned int nseg)
{
	struct rte_mbuf *head = NULL, *prev = NULL;
	uint16_t per = (uint16_t)(len / nseg + 1);

	do {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint16_t n = RTE_MIN(per, len);
		char *dst;

		if (m == NULL)
			goto fail;
		n = RTE_MIN(n, rte_pktmbuf_tailroom(m));
		dst = rte_pktmbuf_append(m, n);
		memcpy(dst, p, n);
		p += n;
		len -= n;
		if (head == NULL) {
			head = m;
		} else {
			prev->next = m;
			head->nb_segs++;
			head->pkt_len += n;
		}
		prev = m;
	} while (len > 0);
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

static void
free_all(struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *pkts[MAX_FRAMES + VFWD_GRO_HOLD_MAX];
	struct rte_mbuf *out[VFWD_MAX_BURST + VFWD_GSO_MAX_SEGS];
	struct vfwd_dir_stats st;
	unsigned int in_use = rte_mempool_in_use_count(pool);
	uint16_t n = 0, gso_size, nseg;
	uint8_t flags;

	if (size < 4)
		return 0;
	memset(&st, 0, sizeof(st));
	flags = data[0];
	gso_size = (uint16_t)(data[1] | data[2] << 8);
	nseg = data[3] % 4 + 1;
	data += 4;
	size -= 4;
	while (size >= 2 && n < MAX_FRAMES) {
		uint16_t len = (uint16_t)(data[0] | data[1] << 8) % 9100;
		struct rte_mbuf *m;

		data += 2;
		size -= 2;
		len = (uint16_t)RTE_MIN((size_t)len, size);
		if (len == 0)
			break;
		m = frame(data, len, nseg);
		data += len;
		size -= len;
		if (m == NULL)
			break;
		/* what net_vhost makes of a virtio-net header */
		if (flags & (1 << (n % 8))) {
			m->ol_flags = RTE_MBUF_F_RX_LRO | RTE_MBUF_F_RX_L4_CKSUM_NONE;
			m->tso_segsz = gso_size;
		} else if (flags & 0x80) {
			m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_NONE;
		}
		vfwd_parse(m);
		pkts[n++] = m;
	}
	if (n == 0)
		return 0;

	if (flags & 1) {
		/* toward the wire: segmentation and checksums, with and
		 * without the port's offloads */
		struct vfwd_wire_tx wtx = {
			.tso_offload = flags & 2,
			.ip_cksum_offload = flags & 4,
			.l4_cksum_offload = flags & 4,
			.max_frame = (flags & 8) ? 1514 : 9014,
			.gso = {.direct_pool = pool, .indirect_pool = indirect_pool,
				.gso_types = RTE_ETH_TX_OFFLOAD_TCP_TSO},
		};

		for (uint16_t i = 0; i < n; i++) {
			uint16_t k = vfwd_needs_prep(pkts[i])
					     ? vfwd_wire_tx_prepare(&wtx, pkts[i], out, RTE_DIM(out), &st)
					     : (out[0] = pkts[i], 1);

			free_all(out, k);
		}
	} else {
		/* toward the VM: GRO, light within the burst or heavy across
		 * two bursts, then everything flushed */
		struct vfwd_gro_conf conf = {.enabled = true, .max_flows = 64};
		struct vfwd_gro *g = (flags & 2) ? &gro_heavy : &gro_light;
		uint16_t half = (flags & 2) ? n / 2 : n, k;

		conf.mode = (flags & 2) ? VFWD_GRO_HEAVY : VFWD_GRO_LIGHT;
		k = vfwd_gro_burst(g, &conf, pkts, half, 1000, &st);
		free_all(pkts, k);
		if (half < n) {
			memmove(pkts, pkts + half, (n - half) * sizeof(pkts[0]));
			k = vfwd_gro_burst(g, &conf, pkts, n - half, 2000, &st);
			free_all(pkts, k);
		}
		while (vfwd_gro_held(g)) {
			k = vfwd_gro_flush(g, 0, 3000, out, RTE_DIM(out), &st);
			free_all(out, k);
		}
	}
	/* nothing leaked: every mbuf back in the pools */
	if (rte_mempool_in_use_count(pool) != in_use ||
	    rte_mempool_in_use_count(indirect_pool) != 0)
		abort();
	return 0;
}

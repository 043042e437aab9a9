/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The parts of the DPDK version seam (vfwd_compat.h) that are more than a
 * name. Control plane only: never called from a worker.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vfwd_compat.h"

#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)

/* The per-queue xstats names PMDs give, the more trusted first: ethdev's
 * own fill for the PMDs that leave it to ethdev (rx_qN_packets), then the
 * PMD's own (rx_qN_good_packets). net_vhost 25.11 gives both, and names
 * every queue's own counters "q0" (seen with 2 queues: e2e/scale), so a
 * later format never overrides an earlier one. */
static const char *const rx_fmts[] = {"rx_q%u_packets", "rx_q%u_good_packets"};
static const char *const tx_fmts[] = {"tx_q%u_packets", "tx_q%u_good_packets"};

/* Which queue's packet count xstat name is (one of fmts, all of them
 * "rx_q%u..." or "tx_q%u..."), or -1; *rank: which of fmts. */
static int
queue_of(const char *name, const char *const *fmts, unsigned int nb_fmts, unsigned int *rank)
{
	char want[RTE_ETH_XSTATS_NAME_SIZE];
	unsigned int q;

	if (strncmp(name, fmts[0], 4) != 0 || sscanf(name + 4, "%u", &q) != 1 ||
	    q >= VFWD_COMPAT_MAX_QSTATS)
		return -1;
	for (unsigned int f = 0; f < nb_fmts; f++) {
		snprintf(want, sizeof(want), fmts[f], q);
		if (strcmp(name, want) == 0) {
			*rank = f;
			return (int)q;
		}
	}
	return -1;
}

/* Keeps value for queue q unless a better-ranked name gave it already. */
static void
take(uint64_t *pkts, uint8_t *ranks, int q, unsigned int rank, uint64_t value)
{
	if (rank < ranks[q]) {
		ranks[q] = (uint8_t)rank;
		pkts[q] = value;
	}
}

int
vfwd_port_queue_pkts(uint16_t port, const struct rte_eth_stats *st, uint16_t nb_rxq,
		     uint64_t *rxq_pkts, uint16_t nb_txq, uint64_t *txq_pkts)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *vals = NULL;
	uint8_t rx_rank[VFWD_COMPAT_MAX_QSTATS], tx_rank[VFWD_COMPAT_MAX_QSTATS];
	int n, found = 0, ret = 0;

	RTE_SET_USED(st);
	nb_rxq = RTE_MIN(nb_rxq, (uint16_t)VFWD_COMPAT_MAX_QSTATS);
	nb_txq = RTE_MIN(nb_txq, (uint16_t)VFWD_COMPAT_MAX_QSTATS);
	memset(rxq_pkts, 0, sizeof(*rxq_pkts) * nb_rxq);
	memset(txq_pkts, 0, sizeof(*txq_pkts) * nb_txq);
	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n <= 0)
		return n < 0 ? n : -ENOTSUP;
	names = calloc((size_t)n, sizeof(*names));
	vals = calloc((size_t)n, sizeof(*vals));
	if (names == NULL || vals == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	if (rte_eth_xstats_get_names(port, names, (unsigned int)n) != n ||
	    rte_eth_xstats_get(port, vals, (unsigned int)n) != n) {
		/* the count changed under us (a queue set up between the
		 * calls): the next report reads them again */
		ret = -EAGAIN;
		goto out;
	}
	memset(rx_rank, UINT8_MAX, sizeof(rx_rank));
	memset(tx_rank, UINT8_MAX, sizeof(tx_rank));
	for (int i = 0; i < n; i++) {
		const char *name = names[vals[i].id].name;
		unsigned int rank;
		int q;

		if ((q = queue_of(name, rx_fmts, RTE_DIM(rx_fmts), &rank)) >= 0 && q < nb_rxq) {
			take(rxq_pkts, rx_rank, q, rank, vals[i].value);
			found++;
		} else if ((q = queue_of(name, tx_fmts, RTE_DIM(tx_fmts), &rank)) >= 0 &&
			   q < nb_txq) {
			take(txq_pkts, tx_rank, q, rank, vals[i].value);
			found++;
		}
	}
	if (!found && (nb_rxq || nb_txq))
		ret = -ENOTSUP;
out:
	free(names);
	free(vals);
	return ret;
}

#else

int
vfwd_port_queue_pkts(uint16_t port, const struct rte_eth_stats *st, uint16_t nb_rxq,
		     uint64_t *rxq_pkts, uint16_t nb_txq, uint64_t *txq_pkts)
{
	RTE_SET_USED(port);
	nb_rxq = RTE_MIN(nb_rxq, (uint16_t)RTE_MIN(VFWD_COMPAT_MAX_QSTATS,
						   RTE_ETHDEV_QUEUE_STAT_CNTRS));
	nb_txq = RTE_MIN(nb_txq, (uint16_t)RTE_MIN(VFWD_COMPAT_MAX_QSTATS,
						   RTE_ETHDEV_QUEUE_STAT_CNTRS));
	memcpy(rxq_pkts, st->q_ipackets, sizeof(*rxq_pkts) * nb_rxq);
	memcpy(txq_pkts, st->q_opackets, sizeof(*txq_pkts) * nb_txq);
	return 0;
}

#endif

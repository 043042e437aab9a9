/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The EAL of a unit test that needs DPDK: no hugepages, no PCI, one lcore,
 * and the two pools the data path takes (frames, and the indirect mbufs
 * of software segmentation).
 */
#ifndef VFWD_UNIT_EAL_H
#define VFWD_UNIT_EAL_H

#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_debug.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

/* 0, or -1 after the TAP line that says the EAL did not start. */
static inline int
unit_eal_init(const char *argv0, const char *name, struct rte_mempool **pool,
	      struct rte_mempool **indirect_pool)
{
	char prefix[64];
	char *eal[] = {(char *)argv0, "-l", "0", "--no-huge", "-m", "512", "--no-pci",
		       "--no-shconf", "--no-telemetry", "--log-level=*:error", "--file-prefix",
		       prefix};

	/* the runner (the parent) in the name: its leftover check removes only
	 * what it can tie to its own run */
	snprintf(prefix, sizeof(prefix), "vfwd-unit-%s-%d-%d", name, (int)getppid(), (int)getpid());
	if (rte_eal_init(RTE_DIM(eal), eal) < 0) {
		printf("not ok 1 - eal_init\n1..1\n");
		return -1;
	}
	*pool = rte_pktmbuf_pool_create("t_pool", 16383, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	*indirect_pool = rte_pktmbuf_pool_create("t_indirect", 4095, 0, 0, 0, 0);
	RTE_VERIFY(*pool && *indirect_pool);
	return 0;
}

/* Stops the EAL and removes its runtime directory, which rte_eal_cleanup
 * leaves (a benchmark run by hand has no runner to remove it). */
static inline void
unit_eal_fini(void)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	rmdir(dir); /* empty with --no-shconf and --no-telemetry; else it stays */
}

#endif

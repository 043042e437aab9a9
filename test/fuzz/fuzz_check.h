/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What the libFuzzer targets share: a promise that does not hold aborts
 * with its name (libFuzzer keeps the input), and the EAL they run on (one
 * lcore, no hugepages, no devices).
 */
#ifndef VFWD_FUZZ_CHECK_H
#define VFWD_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>

static void __attribute__((noreturn))
fuzz_broken(const char *target, const char *invariant, int line, const char *detail)
{
	fprintf(stderr, "%s: invariant %s broken (%s.c:%d): %s\n", target, invariant, target, line,
		detail);
	abort();
}

/* FUZZ_TARGET names the target in the message: define it before use. */
#define INVARIANT(name, cond)                                                          \
	do {                                                                           \
		if (!(cond))                                                           \
			fuzz_broken(FUZZ_TARGET, name, __LINE__, #cond);               \
	} while (0)

/* The EAL for argv0, its runtime files under a prefix of the target's
 * name, the runner's PID and this process; aborts if it does not start. */
static inline void
fuzz_eal_init(const char *argv0, const char *target)
{
	static char prefix[64];
	char *eal[] = {(char *)argv0, "-l", "0", "--no-huge", "-m", "256", "--no-pci",
		       "--no-shconf", "--log-level=*:crit", "--file-prefix", prefix};

	/* the runner (the parent) in the name, as in unit_eal.h */
	snprintf(prefix, sizeof(prefix), "vfwd-%s-%d-%d", target, (int)getppid(), (int)getpid());
	if (rte_eal_init(RTE_DIM(eal), eal) < 0)
		abort();
}

#endif

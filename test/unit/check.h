/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A minimal TAP producer for unit tests: one "ok"/"not ok" line per test
 * case, which test/runner.py counts.
 */
#ifndef VFWD_CHECK_H
#define VFWD_CHECK_H

#include <stdio.h>

static int check_failed, check_cases, check_bad_cases;

#define CHECK(cond)                                                                    \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "# %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, \
				#cond);                                                \
			check_failed = 1;                                              \
		}                                                                      \
	} while (0)

#define RUN(fn)                                                                        \
	do {                                                                           \
		check_failed = 0;                                                      \
		fn();                                                                  \
		check_cases++;                                                         \
		check_bad_cases += check_failed;                                       \
		printf("%s %d - %s\n", check_failed ? "not ok" : "ok", check_cases, #fn); \
		fflush(stdout);                                                        \
	} while (0)

#define CHECK_DONE() (printf("1..%d\n", check_cases), check_bad_cases ? 1 : 0)

#endif

/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Option parsing: defaults, every option's good and bad values, and that
 * each error message names the option.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "options.h"

#define ARGV(...) ((char *[]){"dpdk-vfwd", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"dpdk-vfwd", __VA_ARGS__}) / sizeof(char *)))

static struct vfwd_options o;
static char err[256];

static int
parse(int argc, char **argv)
{
	err[0] = '\0';
	return vfwd_options_parse(argc, argv, &o, err, sizeof(err));
}

#define PARSE(...) parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

/* The value is rejected and the message names the option and the value. */
static void
check_rejects(const char *opt, const char *val)
{
	char *argv[] = {"dpdk-vfwd", (char *)opt, (char *)val, NULL};

	CHECK(parse(3, argv) == -EINVAL);
	CHECK(strstr(err, opt) != NULL);
	CHECK(strstr(err, val) != NULL);
	if (strstr(err, opt) == NULL || strstr(err, val) == NULL)
		fprintf(stderr, "# %s %s -> '%s'\n", opt, val, err);
}

static void
defaults(void)
{
	char *argv[] = {"dpdk-vfwd", NULL};

	CHECK(parse(1, argv) == 0);
	CHECK(o.knobs.burst == 32);
	CHECK(o.knobs.tx_retry == 8);
	CHECK(o.nb_rxq == 1 && o.nb_txq == 1);
	CHECK(o.nb_pairs == 0);
	CHECK(o.stats_period_s == 0 && o.duration_s == 0);
	CHECK(o.stats_format == VFWD_STATS_TEXT);
	CHECK(!o.help);
	CHECK(!o.knobs.gro.enabled && o.knobs.gro.mode == VFWD_GRO_LIGHT);
	CHECK(o.knobs.gro.flush_us == 50 && o.knobs.gro.max_flows == 64);
}

static void
good_values(void)
{
	CHECK(PARSE("--burst", "1") == 0 && o.knobs.burst == 1);
	CHECK(PARSE("--burst", "512") == 0 && o.knobs.burst == 512);
	CHECK(PARSE("--burst=16") == 0 && o.knobs.burst == 16);
	CHECK(PARSE("--rxq", "4") == 0 && o.nb_rxq == 4 && o.nb_txq == 4);
	CHECK(PARSE("--rxq", "2", "--txq", "3") == 0 && o.nb_rxq == 2 && o.nb_txq == 3);
	CHECK(PARSE("--tx-retry", "0") == 0 && o.knobs.tx_retry == 0);
	CHECK(PARSE("--stats-period", "0.5") == 0 && o.stats_period_s == 0.5);
	CHECK(PARSE("--duration", "3") == 0 && o.duration_s == 3);
	CHECK(PARSE("--stats-format", "json") == 0 && o.stats_format == VFWD_STATS_JSON);
	CHECK(PARSE("--gro") == 0 && o.knobs.gro.enabled);
	CHECK(PARSE("--gro-mode", "heavy") == 0 && o.knobs.gro.mode == VFWD_GRO_HEAVY);
	CHECK(PARSE("--gro-flush-us", "0") == 0 && o.knobs.gro.flush_us == 0);
	CHECK(PARSE("--gro-flows", "1024") == 0 && o.knobs.gro.max_flows == 1024);
	CHECK(PARSE("-h") == 0 && o.help);
	CHECK(PARSE("--help") == 0 && o.help);
}

static void
pairs(void)
{
	CHECK(PARSE("--pair", "0:1", "--pair", "2:3") == 0);
	CHECK(o.nb_pairs == 2);
	CHECK(o.pairs[0].vm_port == 0 && o.pairs[0].wire_port == 1);
	CHECK(o.pairs[1].vm_port == 2 && o.pairs[1].wire_port == 3);
	/* a port in two pairs would have two senders on one tx queue */
	CHECK(PARSE("--pair", "0:1", "--pair", "0:2") == -EINVAL);
	CHECK(strstr(err, "--pair") && strstr(err, "0:2"));
	CHECK(PARSE("--pair", "0:1", "--pair", "2:1") == -EINVAL);
}

static void
bad_values(void)
{
	static const char *const burst_bad[] = {"0", "513", "-1", "abc", "", "3x", " 3", "+3",
						"99999999999999999999999", "1.5"};
	static const char *const q_bad[] = {"0", "17", "-2", "x", ""};
	static const char *const pair_bad[] = {"1", "1:", ":1", "1:1", "a:b", "1:2:3", "-1:2",
					       "0:32", "0:1x", ""};
	static const char *const secs_bad[] = {"0", "-1", "x", "", "1s", "nan", "inf", "1e99"};

	for (size_t i = 0; i < RTE_DIM(burst_bad); i++)
		check_rejects("--burst", burst_bad[i]);
	for (size_t i = 0; i < RTE_DIM(q_bad); i++) {
		check_rejects("--rxq", q_bad[i]);
		check_rejects("--txq", q_bad[i]);
	}
	for (size_t i = 0; i < RTE_DIM(pair_bad); i++)
		check_rejects("--pair", pair_bad[i]);
	for (size_t i = 0; i < RTE_DIM(secs_bad); i++) {
		check_rejects("--stats-period", secs_bad[i]);
		check_rejects("--duration", secs_bad[i]);
	}
	check_rejects("--tx-retry", "10001");
	check_rejects("--tx-retry", "-1");
	check_rejects("--gro-mode", "medium");
	check_rejects("--gro-flush-us", "1000001");
	check_rejects("--gro-flush-us", "-1");
	check_rejects("--gro-flows", "0");
	check_rejects("--gro-flows", "1025");
	check_rejects("--stats-format", "xml");
	check_rejects("--stats-format", "");
}

static void
bad_shapes(void)
{
	CHECK(PARSE("--bogus") == -EINVAL && strstr(err, "--bogus"));
	CHECK(PARSE("-x") == -EINVAL && strstr(err, "-x"));
	CHECK(PARSE("--burst") == -EINVAL && strstr(err, "--burst"));
	CHECK(PARSE("stray") == -EINVAL && strstr(err, "stray"));
	CHECK(PARSE("--help=yes") == -EINVAL && strstr(err, "--help"));
	CHECK(PARSE("--gro=on") == -EINVAL && strstr(err, "--gro"));
	CHECK(PARSE("--rxq", "4", "--txq", "2") == -EINVAL && strstr(err, "--txq"));
}

/* A failed parse after a good one must not keep stale getopt state. */
static void
reparse(void)
{
	CHECK(PARSE("--burst", "0") == -EINVAL);
	CHECK(PARSE("--burst", "8") == 0 && o.knobs.burst == 8);
	CHECK(PARSE("--bogus", "--burst", "8") == -EINVAL);
	CHECK(PARSE("--tx-retry", "3") == 0 && o.knobs.tx_retry == 3 && o.knobs.burst == 32);
}

int
main(void)
{
	RUN(defaults);
	RUN(good_values);
	RUN(pairs);
	RUN(bad_values);
	RUN(bad_shapes);
	RUN(reparse);
	return CHECK_DONE();
}

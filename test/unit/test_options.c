/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Option parsing: defaults; every option the usage text lists (its count
 * pinned, so a new option without a test fails), each knob option driven
 * from the knob table and knob_spec.h with its good values (boundaries,
 * both spellings, only its own field set) and bad ones; the other options
 * one by one; and that each message names the option and the value. The
 * knob options and their usage entries are checked to be the table's.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "knob_spec.h"
#include "knobs.h"
#include "options.h"

#define ARGV(...) ((char *[]){"dpdk-vfwd", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"dpdk-vfwd", __VA_ARGS__}) / sizeof(char *)))

/* the long options vfwd_usage lists: the knobs with a value, and those of
 * other_options (--gro, a flag, and the options that are not knobs) */
#define EXPECTED_NB_OPTIONS 43

static struct vfwd_options o, def;
static char err[512];

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
	char quoted[600];

	snprintf(quoted, sizeof(quoted), "'%s'", val);
	CHECK(parse(3, argv) == -EINVAL);
	CHECK(strstr(err, opt) != NULL);
	CHECK(strstr(err, quoted) != NULL);
	if (strstr(err, opt) == NULL || strstr(err, quoted) == NULL)
		fprintf(stderr, "# %s %s -> '%s'\n", opt, val, err);
}

/* --opt=value: the same refusal */
static void
check_rejects_eq(const char *opt, const char *val)
{
	char arg[600], quoted[600];
	char *argv[] = {"dpdk-vfwd", arg, NULL};

	snprintf(arg, sizeof(arg), "%s=%s", opt, val);
	snprintf(quoted, sizeof(quoted), "'%s'", val);
	CHECK(parse(2, argv) == -EINVAL);
	CHECK(strstr(err, opt) != NULL && strstr(err, quoted) != NULL);
	if (strstr(err, opt) == NULL || strstr(err, quoted) == NULL)
		fprintf(stderr, "# %s -> '%s'\n", arg, err);
}

/* The options listed in the usage text: the first "--name" of each line
 * that starts with "  -". */
static unsigned int
usage_options(char names[][32], unsigned int max)
{
	unsigned int n = 0;

	for (const char *line = vfwd_usage(); line && *line; line = strchr(line, '\n'),
			line = line ? line + 1 : NULL) {
		const char *dd, *end;

		if (strncmp(line, "  -", 3) != 0)
			continue;
		dd = strstr(line, "--");
		end = strchr(line, '\n');
		if (dd == NULL || (end && dd > end) || n == max)
			continue;
		dd += 2;
		end = dd + strspn(dd, "abcdefghijklmnopqrstuvwxyz-");
		snprintf(names[n++], 32, "%.*s", (int)(end - dd), dd);
	}
	return n;
}

static const char *const other_options[] = {"gro", "rxq", "txq", "pair", "duration",
					    "interactive", "cmdline-file", "socket-mode",
					    "socket-owner", "tap-prefix", "mtu", "vhost-path",
					    "vhost-xstats", "help"};

static bool
is_other(const char *name)
{
	for (size_t i = 0; i < RTE_DIM(other_options); i++)
		if (strcmp(other_options[i], name) == 0)
			return true;
	return false;
}

/* Every option of the usage is tested here and known to the parser. */
static void
usage_lists_every_option(void)
{
	char names[64][32];
	unsigned int n = usage_options(names, 64), knobs = 0;

	CHECK(n == EXPECTED_NB_OPTIONS);
	if (n != EXPECTED_NB_OPTIONS)
		fprintf(stderr, "# usage lists %u options, expected %d\n", n, EXPECTED_NB_OPTIONS);
	for (unsigned int i = 0; i < n; i++) {
		char opt[40];
		char *argv[] = {"dpdk-vfwd", opt, NULL};
		bool knob = vfwd_knob_find(names[i]) != NULL;

		knobs += knob && strcmp(names[i], "gro") != 0;
		/* covered by a test below */
		CHECK(knob || is_other(names[i]));
		if (!knob && !is_other(names[i]))
			fprintf(stderr, "# option --%s has no test\n", names[i]);
		for (unsigned int j = 0; j < i; j++)
			CHECK(strcmp(names[i], names[j]) != 0);
		/* known to the parser: alone it is fine or needs a value */
		snprintf(opt, sizeof(opt), "--%.31s", names[i]);
		if (parse(2, argv) != 0) {
			CHECK(strstr(err, "needs a value") != NULL && strstr(err, opt) != NULL);
			if (strstr(err, "needs a value") == NULL)
				fprintf(stderr, "# %s -> '%s'\n", opt, err);
		}
	}
	/* every knob but --gro (a flag here) is an option of its name */
	CHECK(knobs == vfwd_nb_knobs - 1);
	for (unsigned int k = 0; k < vfwd_nb_knobs; k++) {
		bool listed = false;

		for (unsigned int i = 0; i < n; i++)
			listed |= strcmp(names[i], vfwd_knobs[k].name) == 0;
		CHECK(listed);
		if (!listed)
			fprintf(stderr, "# knob %s not in the usage\n", vfwd_knobs[k].name);
	}
	for (size_t i = 0; i < RTE_DIM(other_options); i++) {
		bool listed = false;

		for (unsigned int j = 0; j < n; j++)
			listed |= strcmp(names[j], other_options[i]) == 0;
		CHECK(listed);
	}
}

/* s with every run of blanks and newlines made one blank: the usage's
 * wrapping undone. */
static void
unwrap(const char *s, size_t len, char *out, size_t outlen)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 1 < outlen; i++) {
		if (s[i] == ' ' || s[i] == '\n') {
			if (n > 0 && out[n - 1] != ' ')
				out[n++] = ' ';
			continue;
		}
		out[n++] = s[i];
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

/* The knobs' part of the usage is made from the table: each knob has one
 * entry, an option line of its name, and the entry reads the knob's
 * values (none for a flag), its help and its default. */
static void
usage_knobs_from_table(void)
{
	const char *usage = vfwd_usage();

	CHECK(usage == vfwd_usage()); /* made once */
	CHECK(usage[strlen(usage) - 1] == '\n');
	for (unsigned int i = 0; i < vfwd_nb_knobs; i++) {
		const struct vfwd_knob *k = &vfwd_knobs[i];
		char opt[40], got[512], want[512];
		const char *entry = NULL, *end;
		unsigned int found = 0;

		snprintf(opt, sizeof(opt), "\n  --%s", k->name);
		for (const char *p = strstr(usage, opt); p != NULL; p = strstr(p + 1, opt)) {
			char after = p[strlen(opt)];

			/* the whole name: --gro is not --gro-mode */
			if (after == ' ' || after == '\n') {
				entry = p + 3;
				found++;
			}
		}
		CHECK(found == 1);
		if (found != 1) {
			fprintf(stderr, "# --%s: %u usage entries\n", k->name, found);
			continue;
		}
		/* up to the next option, or the end */
		end = strstr(entry, "\n  -");
		if (end == NULL)
			end = entry + strlen(entry);
		unwrap(entry, end - entry, got, sizeof(got));
		if (k->flag != NULL)
			snprintf(want, sizeof(want), "--%s %s (default %s)", k->name, k->help, k->def);
		else
			snprintf(want, sizeof(want), "--%s %s %s (default %s)", k->name, k->values,
				 k->help, k->def);
		unwrap(want, strlen(want), want, sizeof(want));
		CHECK(strcmp(got, want) == 0);
		if (strcmp(got, want) != 0)
			fprintf(stderr, "# usage says '%s'\n# table says '%s'\n", got, want);
		/* wrapped to 80 columns, but for an option longer than that */
		for (const char *line = entry - 2; line < end;) {
			size_t len = strcspn(line, "\n");

			CHECK(len < 80 || line == entry - 2);
			line += len + 1;
		}
	}
}

static struct vfwd_options expect_defaults(void);

static void
defaults(void)
{
	char *argv[] = {"dpdk-vfwd", NULL};
	struct vfwd_options want = expect_defaults();

	CHECK(parse(1, argv) == 0);
	CHECK(memcmp(&o, &want, sizeof(o)) == 0);
	CHECK(o.knobs.burst == 32);
	CHECK(o.knobs.tx_retry == 8);
	CHECK(o.nb_rxq == 1 && o.nb_txq == 1);
	CHECK(o.nb_pairs == 0);
	CHECK(o.stats_period_s == 0 && o.duration_s == 0);
	CHECK(o.stats_format == VFWD_STATS_TEXT);
	CHECK(!o.help && !o.interactive);
	CHECK(!o.knobs.gro.enabled && o.knobs.gro.mode == VFWD_GRO_HEAVY);
	CHECK(o.knobs.gro.engine == VFWD_GRO_ENGINE_VFWD &&
	      o.knobs.gro.flush == VFWD_GRO_FLUSH_TIMEOUT);
	CHECK(o.knobs.gro.flush_us == 500 && o.knobs.gro.max_flows == 64);
	CHECK(o.socket_mode == 0660 && !o.socket_owner_set);
	CHECK(o.cmdline_file[0] == '\0');
	CHECK(o.pipe_rx == 0 && o.pipe_work == 0);
	/* the knobs' defaults are the spec's */
	for (size_t i = 0; i < RTE_DIM(knob_specs); i++)
		if (knob_specs[i].kind == SPEC_UINT || knob_specs[i].kind == SPEC_WORDS)
			CHECK(spec_get(&knob_specs[i], &o) == knob_specs[i].def);
}

/* The options after parsing "opt" with defaults, nb_txq filled in. */
static struct vfwd_options
expect_defaults(void)
{
	struct vfwd_options e = def;

	e.nb_txq = e.nb_rxq;
	return e;
}

/* Each knob option (all but --gro) with each good value, as two words and
 * as --opt=value: that knob's field takes it, nothing else changes. */
static void
knob_options_good(void)
{
	for (size_t i = 0; i < RTE_DIM(knob_specs); i++) {
		const struct knob_spec *s = &knob_specs[i];
		struct spec_value good[16];
		unsigned int n;

		if (strcmp(s->name, "gro") == 0)
			continue;
		n = spec_good_values(s, good);
		for (unsigned int g = 0; g < n; g++) {
			struct vfwd_options want = expect_defaults();
			char opt[40], eq[80];
			char *argv[] = {"dpdk-vfwd", opt, good[g].text, NULL};
			char *argv_eq[] = {"dpdk-vfwd", eq, NULL};

			snprintf(opt, sizeof(opt), "--%s", s->name);
			snprintf(eq, sizeof(eq), "--%.32s=%.31s", s->name, good[g].text);
			spec_apply(s, &want, &good[g]);
			CHECK(parse(3, argv) == 0);
			CHECK(memcmp(&o, &want, sizeof(o)) == 0);
			if (memcmp(&o, &want, sizeof(o)) != 0)
				fprintf(stderr, "# %s %s: not as expected (%s)\n", opt, good[g].text,
					err);
			CHECK(parse(2, argv_eq) == 0);
			CHECK(memcmp(&o, &want, sizeof(o)) == 0);
		}
	}
	/* the last of a repeated option wins */
	CHECK(PARSE("--burst", "7", "--burst", "9") == 0 && o.knobs.burst == 9);
	CHECK(PARSE("--rx-mode", "napi", "--rx-mode", "poll") == 0 &&
	      o.knobs.rx_mode == VFWD_RX_POLL);
	CHECK(PARSE("--pipeline", "2:2", "--pipeline", "off") == 0 && o.pipe_rx == 0);
	/* every knob at once, off its default */
	{
		char *argv[2 * EXPECTED_NB_KNOBS + 2];
		struct spec_value v[EXPECTED_NB_KNOBS];
		char opts[EXPECTED_NB_KNOBS][40];
		struct vfwd_options want = expect_defaults();
		int argc = 1;

		argv[0] = "dpdk-vfwd";
		for (size_t i = 0; i < RTE_DIM(knob_specs) && i < EXPECTED_NB_KNOBS; i++) {
			v[i] = spec_non_default(&knob_specs[i]);
			spec_apply(&knob_specs[i], &want, &v[i]);
			if (strcmp(knob_specs[i].name, "gro") == 0) {
				argv[argc++] = "--gro";
				continue;
			}
			snprintf(opts[i], sizeof(opts[i]), "--%s", knob_specs[i].name);
			argv[argc++] = opts[i];
			argv[argc++] = v[i].text;
		}
		argv[argc] = NULL;
		CHECK(parse(argc, argv) == 0);
		CHECK(memcmp(&o, &want, sizeof(o)) == 0);
	}
}

/* The knob options are made from the table: each knob is an option of
 * its name, --<name> <def> leaves the defaults as they are, a flag knob's
 * bare --<name> sets its flag value and takes no value, the others need
 * one. */
static void
knob_options_from_table(void)
{
	for (unsigned int i = 0; i < vfwd_nb_knobs; i++) {
		const struct vfwd_knob *k = &vfwd_knobs[i];
		struct vfwd_options want = expect_defaults();
		char opt[40];
		char *alone[] = {"dpdk-vfwd", opt, NULL};
		char *with_def[] = {"dpdk-vfwd", opt, (char *)k->def, NULL};

		snprintf(opt, sizeof(opt), "--%s", k->name);
		if (k->flag != NULL) {
			CHECK(k->set(&want, k->flag) == 0);
			CHECK(parse(2, alone) == 0 && memcmp(&o, &want, sizeof(o)) == 0);
			CHECK(parse(3, with_def) == -EINVAL);
			continue;
		}
		CHECK(parse(2, alone) == -EINVAL && strstr(err, "needs a value") &&
		      strstr(err, opt));
		CHECK(parse(3, with_def) == 0 && memcmp(&o, &want, sizeof(o)) == 0);
		if (memcmp(&o, &want, sizeof(o)) != 0)
			fprintf(stderr, "# %s %s: not the defaults (%s)\n", opt, k->def, err);
	}
}

static void
knob_options_bad(void)
{
	for (size_t i = 0; i < RTE_DIM(knob_specs); i++) {
		const struct knob_spec *s = &knob_specs[i];
		char bad[SPEC_MAX_BAD][40], opt[40];
		unsigned int n;

		if (strcmp(s->name, "gro") == 0)
			continue;
		n = spec_bad_values(s, bad);
		snprintf(opt, sizeof(opt), "--%s", s->name);
		for (unsigned int b = 0; b < n && b < SPEC_MAX_BAD; b++) {
			check_rejects(opt, bad[b]);
			check_rejects_eq(opt, bad[b]);
		}
	}
}

static void
flags(void)
{
	struct vfwd_options want;

	want = expect_defaults();
	want.knobs.gro.enabled = true;
	CHECK(PARSE("--gro") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	want = expect_defaults();
	want.interactive = true;
	CHECK(PARSE("-i") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	CHECK(PARSE("--interactive") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	want = expect_defaults();
	want.help = true;
	CHECK(PARSE("-h") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	CHECK(PARSE("--help") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	CHECK(PARSE("-hi") == 0 && o.help && o.interactive);
	/* flags take no value */
	CHECK(PARSE("--gro=on") == -EINVAL && strstr(err, "--gro"));
	CHECK(PARSE("--help=yes") == -EINVAL && strstr(err, "--help"));
	CHECK(PARSE("--interactive=1") == -EINVAL && strstr(err, "--interactive"));
	/* ... and a word after one is a stray argument */
	CHECK(PARSE("--gro", "on") == -EINVAL && strstr(err, "'on'"));
}

static void
queues(void)
{
	struct vfwd_options want;

	for (unsigned int q = 1; q <= VFWD_MAX_QUEUES; q++) {
		char v[8];
		char *argv[] = {"dpdk-vfwd", "--rxq", v, NULL};

		snprintf(v, sizeof(v), "%u", q);
		want = def;
		want.nb_rxq = want.nb_txq = (uint16_t)q;
		CHECK(parse(3, argv) == 0 && memcmp(&o, &want, sizeof(o)) == 0);
		argv[1] = "--txq";
		want = def;
		want.nb_txq = (uint16_t)q;
		CHECK(parse(3, argv) == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	}
	CHECK(PARSE("--rxq", "2", "--txq", "3") == 0 && o.nb_rxq == 2 && o.nb_txq == 3);
	CHECK(PARSE("--txq", "16", "--rxq", "16") == 0 && o.nb_rxq == 16 && o.nb_txq == 16);
	CHECK(PARSE("--rxq=4") == 0 && o.nb_rxq == 4 && o.nb_txq == 4);
	/* --txq below --rxq: each rx queue sends on the tx queue of its index */
	CHECK(PARSE("--rxq", "4", "--txq", "2") == -EINVAL && strstr(err, "--txq") &&
	      strstr(err, "--rxq"));
	CHECK(PARSE("--txq", "1", "--rxq", "2") == -EINVAL && strstr(err, "--txq"));
	{
		static const char *const bad[] = {"0", "17", "-2", "+2", " 2", "2 ", "x", "",
						  "2x", "1.0", "0x2", "99999999999999999999",
						  "4294967297"};

		for (size_t i = 0; i < RTE_DIM(bad); i++) {
			check_rejects("--rxq", bad[i]);
			check_rejects("--txq", bad[i]);
			check_rejects_eq("--rxq", bad[i]);
		}
	}
}

static void
pairs(void)
{
	static const char *const pair_bad[] = {"1", "1:", ":1", "1:1", "a:b", "1:2:3", "-1:2",
					       "0:32", "32:0", "0:1x", "", " 0:1", "0:1 ", "0 :1",
					       "+0:1", "0:+1", "0:99999999999999999999",
					       "00000000000000000000000000000000:1"};

	CHECK(PARSE("--pair", "0:1", "--pair", "2:3") == 0);
	CHECK(o.nb_pairs == 2);
	CHECK(o.pairs[0].vm_port == 0 && o.pairs[0].wire_port == 1);
	CHECK(o.pairs[1].vm_port == 2 && o.pairs[1].wire_port == 3);
	CHECK(PARSE("--pair", "31:0") == 0 && o.nb_pairs == 1 && o.pairs[0].vm_port == 31 &&
	      o.pairs[0].wire_port == 0);
	CHECK(PARSE("--pair=5:4") == 0 && o.pairs[0].vm_port == 5 && o.pairs[0].wire_port == 4);
	/* 16 pairs, the most */
	{
		char *argv[2 * VFWD_MAX_PAIRS + 4];
		char vals[VFWD_MAX_PAIRS + 1][16];
		int argc = 1;

		argv[0] = "dpdk-vfwd";
		for (int p = 0; p < VFWD_MAX_PAIRS + 1; p++) {
			/* 16 pairs take ports 0..31; the 17th, whatever it is, is one too many */
			snprintf(vals[p], sizeof(vals[p]), "%d:%d", (2 * p) % 32, (2 * p + 1) % 32);
			argv[argc++] = "--pair";
			argv[argc++] = vals[p];
		}
		argv[argc] = NULL;
		CHECK(parse(argc, argv) == -EINVAL && strstr(err, "--pair") &&
		      strstr(err, "'0:1'") && strstr(err, "at most"));
		argv[argc - 2] = NULL;
		CHECK(parse(argc - 2, argv) == 0 && o.nb_pairs == VFWD_MAX_PAIRS);
		for (int p = 0; p < VFWD_MAX_PAIRS && o.nb_pairs == VFWD_MAX_PAIRS; p++)
			CHECK(o.pairs[p].vm_port == 2 * p && o.pairs[p].wire_port == 2 * p + 1);
	}
	/* a port in two pairs would have two senders on one tx queue */
	CHECK(PARSE("--pair", "0:1", "--pair", "0:2") == -EINVAL);
	CHECK(strstr(err, "--pair") && strstr(err, "0:2"));
	CHECK(PARSE("--pair", "0:1", "--pair", "2:1") == -EINVAL && strstr(err, "'2:1'"));
	CHECK(PARSE("--pair", "0:1", "--pair", "1:2") == -EINVAL && strstr(err, "'1:2'"));
	CHECK(PARSE("--pair", "0:1", "--pair", "2:0") == -EINVAL && strstr(err, "'2:0'"));
	CHECK(PARSE("--pair", "0:1", "--pair", "0:1") == -EINVAL);
	for (size_t i = 0; i < RTE_DIM(pair_bad); i++) {
		check_rejects("--pair", pair_bad[i]);
		check_rejects_eq("--pair", pair_bad[i]);
	}
}

static void
duration(void)
{
	static const struct {
		const char *v;
		double s;
	} good[] = {{"3", 3}, {"0.001", 0.001}, {".5", 0.5}, {"2.5", 2.5}, {"1e3", 1000},
		    {"31536000", 31536000}};
	static const char *const bad[] = {"0", "0.0", "-1", "+1", "x", "", "1s", " 1", "1 ",
					  "nan", "inf", "1e99", "31536000.5", "off", "1e-400"};

	for (size_t i = 0; i < RTE_DIM(good); i++) {
		struct vfwd_options want = expect_defaults();

		want.duration_s = good[i].s;
		CHECK(PARSE("--duration", (char *)good[i].v) == 0 && memcmp(&o, &want, sizeof(o)) == 0);
		if (memcmp(&o, &want, sizeof(o)) != 0)
			fprintf(stderr, "# --duration %s -> %g (%s)\n", good[i].v, o.duration_s, err);
	}
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		check_rejects("--duration", bad[i]);
		check_rejects_eq("--duration", bad[i]);
	}
}

static void
socket_mode(void)
{
	static const struct {
		const char *v;
		unsigned int m;
	} good[] = {{"0660", 0660}, {"0600", 0600}, {"0640", 0640}, {"0000", 0},
		    {"0", 0},       {"660", 0660},  {"0620", 0620}, {"00660", 0660}};
	static const char *const bad[] = {"0666", "0700", "0661", "0670", "0770", "1", "0001",
					  "4660", "7777", "8", "0668", "0o660", "-0660", "+0660",
					  "", " 0660", "0660 ", "0660x", "0x1b0",
					  "99999999999999999999999"};

	for (size_t i = 0; i < RTE_DIM(good); i++) {
		struct vfwd_options want = expect_defaults();

		want.socket_mode = good[i].m;
		CHECK(PARSE("--socket-mode", (char *)good[i].v) == 0 && memcmp(&o, &want, sizeof(o)) == 0);
		if (memcmp(&o, &want, sizeof(o)) != 0)
			fprintf(stderr, "# --socket-mode %s -> %o (%s)\n", good[i].v, o.socket_mode,
				err);
	}
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		check_rejects("--socket-mode", bad[i]);
		check_rejects_eq("--socket-mode", bad[i]);
	}
}

/* The umask vhost sockets are created under: never more than owner rw,
 * never more than --socket-mode, whatever the process's umask was. */
static void
socket_umask(void)
{
	static const unsigned int modes[] = {0660, 0640, 0620, 0600, 0400, 0200, 0};

	for (size_t i = 0; i < RTE_DIM(modes); i++) {
		unsigned int created = 0777 & ~vfwd_socket_umask(modes[i]);

		CHECK((created & ~0600u) == 0);        /* nobody but the owner */
		CHECK((created & ~modes[i]) == 0);     /* nothing the mode denies */
		CHECK(created == (modes[i] & 0600u));  /* the owner's bits it allows */
	}
}

static void
socket_owner(void)
{
	struct vfwd_options want;
	char longname[300];

	want = expect_defaults();
	want.socket_owner_set = true;
	want.socket_uid = 0;
	want.socket_gid = 0;
	CHECK(PARSE("--socket-owner", "root") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	CHECK(PARSE("--socket-owner", "root:root") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	want.socket_gid = 65534;
	CHECK(PARSE("--socket-owner=root:nogroup") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	want.socket_uid = 1;
	want.socket_gid = 1; /* the user's group */
	CHECK(PARSE("--socket-owner", "daemon") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	check_rejects("--socket-owner", "");
	check_rejects("--socket-owner", "vfwd-no-such-user");
	CHECK(strstr(err, "no user"));
	check_rejects("--socket-owner", "root:vfwd-no-such-group");
	CHECK(strstr(err, "no group"));
	check_rejects("--socket-owner", "root:");
	check_rejects("--socket-owner", ":root");
	check_rejects("--socket-owner", "0");
	check_rejects("--socket-owner", " root");
	check_rejects_eq("--socket-owner", "vfwd-no-such-user");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	check_rejects("--socket-owner", longname);
}

/* The embedded default's tap names: what a link name takes, two digits
 * more within IFNAMSIZ. */
static void
tap_prefix(void)
{
	struct vfwd_options want = expect_defaults();

	CHECK(strcmp(want.tap_prefix, "vfwd-tap") == 0);
	snprintf(want.tap_prefix, sizeof(want.tap_prefix), "vm_7.a-");
	CHECK(PARSE("--tap-prefix", "vm_7.a-") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	snprintf(want.tap_prefix, sizeof(want.tap_prefix), "abcdefghijklm");
	CHECK(PARSE("--tap-prefix=abcdefghijklm") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	check_rejects("--tap-prefix", "abcdefghijklmn"); /* 14: no room for 2 digits */
	CHECK(strstr(err, "--tap-prefix"));
	check_rejects("--tap-prefix", "");
	check_rejects("--tap-prefix", "a/b");
	check_rejects("--tap-prefix", "a b");
	check_rejects("--tap-prefix", "a:b");
	check_rejects("--tap-prefix", "tap%d");
	check_rejects_eq("--tap-prefix", "a/b");
}

/* --vhost-path: pmd (the default) or lib, nothing else */
static void
vhost_path(void)
{
	struct vfwd_options want = expect_defaults();

	CHECK(want.vhost_path == VFWD_VHOST_PATH_PMD);
	CHECK(PARSE("--vhost-path", "pmd") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	want.vhost_path = VFWD_VHOST_PATH_LIB;
	CHECK(PARSE("--vhost-path", "lib") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	CHECK(PARSE("--vhost-path=lib") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	check_rejects("--vhost-path", "LIB");
	CHECK(strstr(err, "--vhost-path") && strstr(err, "pmd or lib"));
	check_rejects("--vhost-path", "");
	check_rejects("--vhost-path", "ethdev");
}

/* --vhost-xstats: on or off (the default), and only on the lib path */
static void
vhost_xstats(void)
{
	struct vfwd_options want = expect_defaults();

	CHECK(!want.vhost_xstats);
	want.vhost_path = VFWD_VHOST_PATH_LIB;
	CHECK(PARSE("--vhost-path", "lib", "--vhost-xstats", "off") == 0 &&
	      memcmp(&o, &want, sizeof(o)) == 0);
	want.vhost_xstats = true;
	CHECK(PARSE("--vhost-xstats=on", "--vhost-path", "lib") == 0 &&
	      memcmp(&o, &want, sizeof(o)) == 0);
	CHECK(PARSE("--vhost-path", "lib", "--vhost-xstats", "yes") == -EINVAL);
	CHECK(strstr(err, "--vhost-xstats") && strstr(err, "'yes'") && strstr(err, "on or off"));
	/* the pmd path has them always: asking either way is a mistake */
	CHECK(PARSE("--vhost-xstats", "on") == -EINVAL);
	CHECK(strstr(err, "--vhost-xstats") && strstr(err, "--vhost-path lib"));
	CHECK(PARSE("--vhost-path", "pmd", "--vhost-xstats", "off") == -EINVAL);
}

/* --mtu: jumbo frames up to vfwd's largest, nothing below IPv4's least */
static void
mtu(void)
{
	struct vfwd_options want = expect_defaults();

	CHECK(want.mtu == 0);
	want.mtu = 9000;
	CHECK(PARSE("--mtu", "9000") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	want.mtu = 68;
	CHECK(PARSE("--mtu=68") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	want.mtu = 16000;
	CHECK(PARSE("--mtu", "16000") == 0 && memcmp(&o, &want, sizeof(o)) == 0);
	check_rejects("--mtu", "67");
	CHECK(strstr(err, "--mtu") && strstr(err, "68..16000"));
	check_rejects("--mtu", "16001");
	check_rejects("--mtu", "0");
	check_rejects("--mtu", "9000x");
	check_rejects("--mtu", "");
	check_rejects_eq("--mtu", "-1");
}

static void
cmdline_file(void)
{
	static char longpath[5000];
	struct vfwd_options want = expect_defaults();

	snprintf(want.cmdline_file, sizeof(want.cmdline_file), "config/burst-sweep.cmd");
	CHECK(PARSE("--cmdline-file", "config/burst-sweep.cmd") == 0 &&
	      memcmp(&o, &want, sizeof(o)) == 0);
	CHECK(PARSE("--cmdline-file=config/burst-sweep.cmd") == 0 &&
	      memcmp(&o, &want, sizeof(o)) == 0);
	/* the longest that fits, and one more */
	memset(longpath, 'f', sizeof(o.cmdline_file) - 1);
	longpath[sizeof(o.cmdline_file) - 1] = '\0';
	CHECK(PARSE("--cmdline-file", longpath) == 0 && strcmp(o.cmdline_file, longpath) == 0);
	longpath[sizeof(o.cmdline_file) - 1] = 'f';
	longpath[sizeof(o.cmdline_file)] = '\0';
	CHECK(PARSE("--cmdline-file", longpath) == -EINVAL && strstr(err, "--cmdline-file"));
	check_rejects("--cmdline-file", "");
}

static void
bad_shapes(void)
{
	CHECK(PARSE("--bogus") == -EINVAL && strstr(err, "--bogus"));
	CHECK(PARSE("-x") == -EINVAL && strstr(err, "-x"));
	CHECK(PARSE("--burst") == -EINVAL && strstr(err, "--burst"));
	CHECK(PARSE("stray") == -EINVAL && strstr(err, "stray"));
	CHECK(PARSE("--burst", "8", "stray") == -EINVAL && strstr(err, "stray"));
	CHECK(PARSE("--Burst", "8") == -EINVAL && strstr(err, "--Burst"));
	CHECK(PARSE("--rxq", "4", "--txq", "2") == -EINVAL && strstr(err, "--txq"));
	/* no abbreviations: getopt_long would take "--gro-f" for --gro-flush-us
	 * and "--round-b" for --round-budget without a word */
	CHECK(PARSE("--gro-f", "1") == -EINVAL && strstr(err, "'--gro-f'"));
	CHECK(PARSE("--round-b", "5") == -EINVAL && strstr(err, "'--round-b'"));
	CHECK(PARSE("--bur=8") == -EINVAL && strstr(err, "'--bur'"));
	CHECK(PARSE("--interact") == -EINVAL && strstr(err, "'--interact'"));
	/* seconds are decimal (strtod would take hex) */
	CHECK(PARSE("--stats-period", "0x10") == -EINVAL && strstr(err, "0x10"));
	CHECK(PARSE("--duration", "0x1p3") == -EINVAL && strstr(err, "0x1p3"));
	/* every option that takes a value, at the end without one */
	for (size_t i = 0; i < RTE_DIM(knob_specs); i++) {
		char opt[40];
		char *argv[] = {"dpdk-vfwd", opt, NULL};

		if (strcmp(knob_specs[i].name, "gro") == 0)
			continue;
		snprintf(opt, sizeof(opt), "--%s", knob_specs[i].name);
		CHECK(parse(2, argv) == -EINVAL && strstr(err, opt) && strstr(err, "needs a value"));
	}
}

/* A failed parse after a good one must not keep stale getopt state. */
static void
reparse(void)
{
	CHECK(PARSE("--burst", "0") == -EINVAL);
	CHECK(PARSE("--burst", "8") == 0 && o.knobs.burst == 8);
	CHECK(PARSE("--bogus", "--burst", "8") == -EINVAL);
	CHECK(PARSE("--tx-retry", "3") == 0 && o.knobs.tx_retry == 3 && o.knobs.burst == 32);
	CHECK(PARSE("--pair", "0:1") == 0 && o.nb_pairs == 1);
	CHECK(PARSE("--rxq", "2") == 0 && o.nb_pairs == 0 && o.nb_txq == 2);
	CHECK(PARSE("--socket-owner", "root") == 0 && o.socket_owner_set);
	CHECK(PARSE("--rxq", "2") == 0 && !o.socket_owner_set && o.socket_mode == 0660);
}

int
main(void)
{
	vfwd_options_defaults(&def);
	RUN(usage_lists_every_option);
	RUN(usage_knobs_from_table);
	RUN(defaults);
	RUN(knob_options_good);
	RUN(knob_options_from_table);
	RUN(knob_options_bad);
	RUN(flags);
	RUN(queues);
	RUN(pairs);
	RUN(duration);
	RUN(socket_mode);
	RUN(socket_umask);
	RUN(socket_owner);
	RUN(tap_prefix);
	RUN(vhost_path);
	RUN(vhost_xstats);
	RUN(mtu);
	RUN(cmdline_file);
	RUN(bad_shapes);
	RUN(reparse);
	return CHECK_DONE();
}

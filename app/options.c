/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Command line of dpdk-vfwd (the part after "--"). Every bad value is
 * rejected with a message that names the option, before anything starts.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knobs.h"
#include "options.h"
#include "vfwd_port.h"

/* The usage up to the knobs, which follow made from their table. */
static const char usage_head[] =
	"Usage: dpdk-vfwd [EAL options] -- [options]\n"
	"\n"
	"Forwards between vhost-user ports (the VM side, net_vhost) and any other\n"
	"ethdev (the wire side), both directions, on the worker lcores.\n"
	"With no ports on the EAL command line, creates a vhost-user server socket\n"
	"and a kernel tap and forwards between them.\n"
	"\n"
	"Options:\n"
	"  --rxq N              rx queues per port, 1..16 (default 1)\n"
	"  --txq N              tx queues per port, --rxq..16 (default: --rxq)\n"
	"  --mtu N              every port's MTU, 68..16000, jumbo frames included; the\n"
	"                       tap's or af_packet interface's too (default: each port's\n"
	"                       own, 1500; a vhost port the one its guest announces)\n"
	"  --pair VM:WIRE       forward between vhost port VM and port WIRE;\n"
	"                       repeatable (default: k-th vhost port with k-th other)\n"
	"  --duration S         stop after S seconds (default: run until SIGINT/SIGTERM)\n"
	"  --vhost-path P       how workers reach a vhost port's virtqueues: pmd, through\n"
	"                       net_vhost's rx/tx burst (default); lib, librte_vhost's\n"
	"                       dequeue/enqueue burst called directly (doc/modes.md)\n"
	"  --vhost-xstats on|off with --vhost-path lib: librte_vhost's per-vring xstats\n"
	"                       (size bins, multicast, guest notifications), counted\n"
	"                       per packet (default off; the pmd path always has them)\n"
	"  --socket-mode M      vhost-user server sockets' mode, within 0660 (default 0660)\n"
	"  --socket-owner U[:G] ... and owner (default: the user running vfwd)\n"
	"  --tap-prefix P       the embedded default's tap: the first of P0..P15 that no\n"
	"                       other process has (default vfwd-tap)\n"
	"  -i, --interactive    a command prompt (type help); forwarding waits for 'start'\n"
	"  --cmdline-file F     run the commands in F first (see config/*.cmd); with -i the\n"
	"                       prompt follows, without it forwarding goes on unless F quits\n"
	"  -h, --help           this text\n"
	"\n"
	"Knobs: each can also be changed while forwarding, with 'set <knob> <value>' at\n"
	"the prompt or in a command file (e.g. set burst 16, set gro on). The modes and\n"
	"the kernel's batching and NAPI knobs they follow: doc/modes.md.\n";

/* where an option's help starts, and the width it is wrapped to */
#define USAGE_HELP_COL 23
#define USAGE_WIDTH 80

struct text {
	char *buf;
	size_t size, len;
	bool truncated;
};

static void __attribute__((format(printf, 2, 3)))
text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= t->size - t->len)
		t->truncated = true;
	else
		t->len += n;
}

/* One word at column col, or at the help column of the next line if it
 * would reach past USAGE_WIDTH there; returns the column after it. */
static size_t
text_add_word(struct text *t, size_t col, const char *word, size_t len)
{
	if (col > USAGE_HELP_COL && col + 1 + len >= USAGE_WIDTH) {
		text_add(t, "\n%*s", USAGE_HELP_COL, "");
		col = USAGE_HELP_COL;
	} else if (col > USAGE_HELP_COL) {
		text_add(t, " ");
		col++;
	}
	text_add(t, "%.*s", (int)len, word);
	return col + len;
}

/* "  --burst 1..512       packets asked ... (default 32)": the option with
 * the values it takes, its help from the help column (which it starts on
 * a line of its own when the option reaches it) wrapped at USAGE_WIDTH,
 * and its default, never split. */
static void
text_add_knob(struct text *t, const struct vfwd_knob *k)
{
	char opt[64], def[64];
	size_t col;

	if (k->flag != NULL)
		snprintf(opt, sizeof(opt), "--%s", k->name);
	else
		snprintf(opt, sizeof(opt), "--%s %s", k->name, k->values);
	if (2 + strlen(opt) + 1 > USAGE_HELP_COL)
		text_add(t, "  %s\n%*s", opt, USAGE_HELP_COL, "");
	else
		text_add(t, "  %-*s", USAGE_HELP_COL - 2, opt);
	col = USAGE_HELP_COL;
	for (const char *s = k->help + strspn(k->help, " "); *s != '\0';) {
		size_t len = strcspn(s, " ");

		col = text_add_word(t, col, s, len);
		s += len;
		s += strspn(s, " ");
	}
	snprintf(def, sizeof(def), "(default %s)", k->def);
	text_add_word(t, col, def, strlen(def));
	text_add(t, "\n");
}

const char *
vfwd_usage(void)
{
	/* the table does not change: made once */
	static char buf[16384];
	struct text t = {.buf = buf, .size = sizeof(buf)};

	if (buf[0] != '\0')
		return buf;
	text_add(&t, "%s", usage_head);
	for (unsigned int i = 0; i < vfwd_nb_knobs; i++)
		text_add_knob(&t, &vfwd_knobs[i]);
	if (t.truncated) {
		/* the help and values strings grew past the buffer: a half
		 * usage would hide knobs without a word */
		fprintf(stderr, "usage text longer than %zu bytes\n", sizeof(buf));
		abort();
	}
	return buf;
}

enum {
	OPT_KNOB = 256, /* the option's name is a knob's (knobs.c) */
	OPT_RXQ,
	OPT_TXQ,
	OPT_MTU,
	OPT_PAIR,
	OPT_DURATION,
	OPT_INTERACTIVE,
	OPT_CMDLINE_FILE,
	OPT_SOCKET_MODE,
	OPT_SOCKET_OWNER,
	OPT_TAP_PREFIX,
	OPT_VHOST_PATH,
	OPT_VHOST_XSTATS,
};

/* The options that are not knobs; the knobs' come from their table. */
static const struct option other_opts[] = {
	{"rxq", required_argument, NULL, OPT_RXQ},
	{"txq", required_argument, NULL, OPT_TXQ},
	{"mtu", required_argument, NULL, OPT_MTU},
	{"pair", required_argument, NULL, OPT_PAIR},
	{"duration", required_argument, NULL, OPT_DURATION},
	{"interactive", no_argument, NULL, 'i'},
	{"cmdline-file", required_argument, NULL, OPT_CMDLINE_FILE},
	{"socket-mode", required_argument, NULL, OPT_SOCKET_MODE},
	{"socket-owner", required_argument, NULL, OPT_SOCKET_OWNER},
	{"tap-prefix", required_argument, NULL, OPT_TAP_PREFIX},
	{"vhost-path", required_argument, NULL, OPT_VHOST_PATH},
	{"vhost-xstats", required_argument, NULL, OPT_VHOST_XSTATS},
	{"help", no_argument, NULL, 'h'},
};

#define NB_OTHER_OPTS (sizeof(other_opts) / sizeof(other_opts[0]))
/* every knob, the other options and the terminating entry */
#define LONG_OPTS_MAX (VFWD_MAX_KNOBS + NB_OTHER_OPTS + 1)

/* getopt_long's table: the knobs first, in table order, so that an
 * option's index is its knob's; then the other options. */
static void
build_long_opts(struct option *opts)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < vfwd_nb_knobs; i++)
		opts[n++] = (struct option){
			.name = vfwd_knobs[i].name,
			.has_arg = vfwd_knobs[i].flag != NULL ? no_argument : required_argument,
			.val = OPT_KNOB,
		};
	memcpy(&opts[n], other_opts, sizeof(other_opts));
	n += NB_OTHER_OPTS;
	opts[n] = (struct option){0};
}

static int
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* getopt_long takes any unique prefix of a long option, and the knob
 * options share one value, so "--gro-f 1" would be taken as --gro-flush-us
 * without a word. Only whole option names are accepted. */
static int
check_whole_names(int argc, char **argv, const struct option *opts, char *err, size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct option *found = NULL;
		size_t len;

		if (strcmp(a, "--") == 0)
			break;
		if (strncmp(a, "--", 2) != 0)
			continue;
		len = strcspn(a + 2, "=");
		for (const struct option *o = opts; o->name != NULL; o++) {
			if (strlen(o->name) == len && strncmp(o->name, a + 2, len) == 0) {
				found = o;
				break;
			}
		}
		if (found == NULL)
			return fail(err, errlen, "unknown option '%.*s' (see --help)", (int)len + 2, a);
		/* its value is the next argument: skip it, whatever it looks like */
		if (found->has_arg == required_argument && a[2 + len] != '=')
			i++;
	}
	return 0;
}

static int
parse_pair(const char *s, struct vfwd_pair *p)
{
	char buf[32];
	char *colon;
	unsigned long vm, wire;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (colon == NULL)
		return -EINVAL;
	*colon = '\0';
	if (vfwd_parse_uint(buf, 0, VFWD_MAX_PORTS - 1, &vm) != 0 ||
	    vfwd_parse_uint(colon + 1, 0, VFWD_MAX_PORTS - 1, &wire) != 0 || vm == wire)
		return -EINVAL;
	p->vm_port = vm;
	p->wire_port = wire;
	return 0;
}

static bool
port_in_pairs(const struct vfwd_options *o, uint16_t port)
{
	for (uint16_t i = 0; i < o->nb_pairs; i++)
		if (o->pairs[i].vm_port == port || o->pairs[i].wire_port == port)
			return true;
	return false;
}

void
vfwd_options_defaults(struct vfwd_options *o)
{
	memset(o, 0, sizeof(*o));
	vfwd_knobs_defaults(o);
	o->socket_mode = 0660;
	o->nb_rxq = 1;
	strcpy(o->tap_prefix, VFWD_DEFAULT_TAP_PREFIX);
}

/* A link name's prefix: what the kernel takes in a name (no '/', ':',
 * blanks), short enough for two more digits within IFNAMSIZ. */
static bool
valid_tap_prefix(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > VFWD_TAP_PREFIX_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("-_.", s[i]) == NULL)
			return false;
	return true;
}

int
vfwd_options_parse(int argc, char **argv, struct vfwd_options *o, char *err, size_t errlen)
{
	struct option long_opts[LONG_OPTS_MAX];
	bool vhost_xstats_given = false;
	unsigned long v;
	int opt, idx = -1;

	vfwd_options_defaults(o);
	build_long_opts(long_opts);
	if (check_whole_names(argc, argv, long_opts, err, errlen) != 0)
		return -EINVAL;
	optind = 0; /* glibc: full reset, so the parser can run more than once */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":hi", long_opts, &idx)) != -1) {
		switch (opt) {
		case OPT_KNOB: {
			const struct vfwd_knob *k = &vfwd_knobs[idx];
			char what[64];

			snprintf(what, sizeof(what), "--%s", k->name);
			if (vfwd_knob_set(o, k->name, k->flag != NULL ? k->flag : optarg, what, err,
					  errlen) != 0)
				return -EINVAL;
			break;
		}
		case OPT_RXQ:
			if (vfwd_parse_uint(optarg, 1, VFWD_MAX_QUEUES, &v) != 0)
				return fail(err, errlen, "--rxq '%s': expected 1..%d", optarg,
					    VFWD_MAX_QUEUES);
			o->nb_rxq = v;
			break;
		case OPT_TXQ:
			if (vfwd_parse_uint(optarg, 1, VFWD_MAX_QUEUES, &v) != 0)
				return fail(err, errlen, "--txq '%s': expected 1..%d", optarg,
					    VFWD_MAX_QUEUES);
			o->nb_txq = v;
			break;
		case OPT_MTU:
			if (vfwd_parse_uint(optarg, VFWD_MTU_MIN, VFWD_MTU_MAX, &v) != 0)
				return fail(err, errlen, "--mtu '%s': expected %d..%d", optarg,
					    VFWD_MTU_MIN, VFWD_MTU_MAX);
			o->mtu = v;
			break;
		case OPT_PAIR: {
			struct vfwd_pair p;

			if (parse_pair(optarg, &p) != 0)
				return fail(err, errlen,
					    "--pair '%s': expected VM_PORT:WIRE_PORT, two different "
					    "port ids 0..%d",
					    optarg, VFWD_MAX_PORTS - 1);
			if (o->nb_pairs == VFWD_MAX_PAIRS)
				return fail(err, errlen, "--pair '%s': at most %d pairs", optarg,
					    VFWD_MAX_PAIRS);
			if (port_in_pairs(o, p.vm_port) || port_in_pairs(o, p.wire_port))
				return fail(err, errlen,
					    "--pair '%s': a port can be in one pair only", optarg);
			o->pairs[o->nb_pairs++] = p;
			break;
		}
		case OPT_DURATION:
			if (vfwd_parse_seconds(optarg, 365 * 86400.0, &o->duration_s) != 0)
				return fail(err, errlen,
					    "--duration '%s': expected seconds > 0 (e.g. 10 or 2.5)",
					    optarg);
			break;
		case 'i':
			o->interactive = true;
			break;
		case OPT_VHOST_PATH: {
			/* in enum vfwd_vhost_path's order */
			static const char *const paths[] = {"pmd", "lib", NULL};
			int i = vfwd_parse_word(optarg, paths);

			if (i < 0)
				return fail(err, errlen, "--vhost-path '%s': expected pmd or lib",
					    optarg);
			o->vhost_path = (enum vfwd_vhost_path)i;
			break;
		}
		case OPT_VHOST_XSTATS: {
			static const char *const off_on[] = {"off", "on", NULL};
			int i = vfwd_parse_word(optarg, off_on);

			if (i < 0)
				return fail(err, errlen, "--vhost-xstats '%s': expected on or off",
					    optarg);
			o->vhost_xstats = i;
			vhost_xstats_given = true;
			break;
		}
		case OPT_SOCKET_MODE: {
			char *end;
			unsigned long m;

			errno = 0;
			m = strtoul(optarg, &end, 8);
			/* owner and group at most: a vhost-user peer can read and
			 * write the guest's memory through us */
			if (optarg[0] < '0' || optarg[0] > '7' || *end != '\0' || errno != 0 ||
			    (m & ~0660UL) != 0)
				return fail(err, errlen,
					    "--socket-mode '%s': expected an octal mode within 0660 "
					    "(e.g. 0660, 0600)",
					    optarg);
			o->socket_mode = m;
			break;
		}
		case OPT_SOCKET_OWNER: {
			char buf[256], *colon;
			const struct passwd *pw;
			const struct group *gr = NULL;

			if (strlen(optarg) >= sizeof(buf) || optarg[0] == '\0')
				return fail(err, errlen, "--socket-owner '%s': expected USER[:GROUP]",
					    optarg);
			strcpy(buf, optarg);
			colon = strchr(buf, ':');
			if (colon != NULL)
				*colon++ = '\0';
			pw = getpwnam(buf);
			if (pw == NULL)
				return fail(err, errlen, "--socket-owner '%s': no user '%s'", optarg,
					    buf);
			o->socket_uid = pw->pw_uid;
			o->socket_gid = pw->pw_gid;
			if (colon != NULL) {
				gr = getgrnam(colon);
				if (gr == NULL)
					return fail(err, errlen, "--socket-owner '%s': no group '%s'",
						    optarg, colon);
				o->socket_gid = gr->gr_gid;
			}
			o->socket_owner_set = true;
			break;
		}
		case OPT_TAP_PREFIX:
			if (!valid_tap_prefix(optarg))
				return fail(err, errlen,
					    "--tap-prefix '%s': expected 1..%d letters, digits, '-', "
					    "'_' or '.'",
					    optarg, VFWD_TAP_PREFIX_MAX);
			strcpy(o->tap_prefix, optarg);
			break;
		case OPT_CMDLINE_FILE:
			if (optarg[0] == '\0' || strlen(optarg) >= sizeof(o->cmdline_file))
				return fail(err, errlen, "--cmdline-file '%s': expected a file path",
					    optarg);
			strcpy(o->cmdline_file, optarg);
			break;
		case 'h':
			o->help = true;
			break;
		case ':':
			return fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		default:
			return fail(err, errlen, "unknown option '%s' (see --help)",
				    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail(err, errlen, "unexpected argument '%s' (see --help)", argv[optind]);
	if (vhost_xstats_given && o->vhost_path != VFWD_VHOST_PATH_LIB)
		return fail(err, errlen,
			    "--vhost-xstats: needs --vhost-path lib (on the pmd path net_vhost's "
			    "xstats are librte_vhost's, always counted)");
	if (o->nb_txq == 0)
		o->nb_txq = o->nb_rxq;
	if (o->nb_txq < o->nb_rxq)
		return fail(err, errlen,
			    "--txq %u is less than --rxq %u: each rx queue sends on the peer "
			    "port's tx queue of the same index",
			    o->nb_txq, o->nb_rxq);
	return 0;
}

unsigned int
vfwd_socket_umask(unsigned int socket_mode)
{
	return 0177 | (~socket_mode & 0777);
}

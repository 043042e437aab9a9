/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Command line of dpdk-vfwd (the part after "--"). Every bad value is
 * rejected with a message that names the option, before anything starts.
 */
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

const char vfwd_usage[] =
	"Usage: dpdk-vfwd [EAL options] -- [options]\n"
	"\n"
	"Forwards between vhost-user ports (the VM side, net_vhost) and any other\n"
	"ethdev (the wire side), both directions, on the worker lcores.\n"
	"With no ports on the EAL command line, creates a vhost-user server socket\n"
	"and a kernel tap and forwards between them.\n"
	"\n"
	"Options:\n"
	"  --burst N            packets per rx burst and tx batch, 1..512 (default 32)\n"
	"  --rxq N              rx queues per port, 1..16 (default 1)\n"
	"  --txq N              tx queues per port, --rxq..16 (default: --rxq)\n"
	"  --pair VM:WIRE       forward between vhost port VM and port WIRE;\n"
	"                       repeatable (default: k-th vhost port with k-th other)\n"
	"  --tx-retry N         extra tx attempts before dropping, 0..10000 (default 8)\n"
	"  --gro                merge TCP/IPv4 segments toward the VM (GRO), sent as GSO\n"
	"                       frames to guests that negotiated GUEST_TSO4 + GUEST_CSUM\n"
	"  --gro-mode M         light (within a burst) or heavy (across bursts; default light)\n"
	"  --gro-flush-us N     heavy: send what waited N us, 0..1000000 (default 50);\n"
	"                       everything is sent when the rx queue runs empty\n"
	"  --gro-flows N        flows GRO tracks at once, 1..1024 (default 64)\n"
	"\n"
	"Modes, the kernel's batching and NAPI knobs (doc/modes.md):\n"
	"  --rx-mode M          poll (default), napi (sleep when idle) or adaptive\n"
	"  --napi-weight N      napi: packets per queue visit, 1..4096 (64)\n"
	"  --round-budget N     napi: packets per round, 0..1000000 (300; 0: none)\n"
	"  --round-budget-us U  napi: us per round, 0..1000000 (2000; 0: none)\n"
	"  --defer-polls N      napi: empty rounds before sleeping (32)\n"
	"  --busy-poll-us U     napi: ... and U us without a packet (50; busy_poll)\n"
	"  --sleep-max-us U     napi: longest sleep, 1..100000 (10000)\n"
	"  --deliver D          direct (default) or deferred (via a backlog ring)\n"
	"  --backlog N          deferred: backlog ring size per lcore (1000)\n"
	"  --pipeline R:W       R rx lcores hand bursts to W work lcores (cpumap/RPS\n"
	"                       twin; work lcore k sends on tx queue k: --txq >= W)\n"
	"  --tx-batch N         hold tx until N packets wait, 1..512 (1: no holding)\n"
	"  --tx-flush-us U      ... or the oldest waited U us (50)\n"
	"  --vq-weight-pkts N   the most a vhost queue gives per visit (256; 0: no cap)\n"
	"  --vq-weight-bytes B  ... in bytes (524288; 0: no cap)\n"
	"\n"
	"  --stats-period S     print stats every S seconds, or off (default: off, only at exit)\n"
	"  --stats-format F     text or json (json: one object per line)\n"
	"  --duration S         stop after S seconds (default: run until SIGINT/SIGTERM)\n"
	"  --socket-mode M      vhost-user server sockets' mode, within 0660 (default 0660)\n"
	"  --socket-owner U[:G] ... and owner (default: the user running vfwd)\n"
	"  -i, --interactive    a command prompt (type help); forwarding waits for 'start'\n"
	"  --cmdline-file F     run the commands in F first (see config/*.cmd); with -i the\n"
	"                       prompt follows, without it forwarding goes on unless F quits\n"
	"  -h, --help           this text\n"
	"\n"
	"Every knob above can be changed while forwarding: 'set <knob> <value>' at the\n"
	"prompt or in a command file (e.g. set burst 16, set gro on).\n";

enum {
	OPT_KNOB = 256, /* the option's name is a knob's (knobs.c) */
	OPT_RXQ,
	OPT_TXQ,
	OPT_PAIR,
	OPT_DURATION,
	OPT_INTERACTIVE,
	OPT_CMDLINE_FILE,
	OPT_SOCKET_MODE,
	OPT_SOCKET_OWNER,
};

/* The options that are not knobs; the knobs' come from their table. */
static const struct option other_opts[] = {
	{"rxq", required_argument, NULL, OPT_RXQ},
	{"txq", required_argument, NULL, OPT_TXQ},
	{"pair", required_argument, NULL, OPT_PAIR},
	{"duration", required_argument, NULL, OPT_DURATION},
	{"interactive", no_argument, NULL, 'i'},
	{"cmdline-file", required_argument, NULL, OPT_CMDLINE_FILE},
	{"socket-mode", required_argument, NULL, OPT_SOCKET_MODE},
	{"socket-owner", required_argument, NULL, OPT_SOCKET_OWNER},
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
}

int
vfwd_options_parse(int argc, char **argv, struct vfwd_options *o, char *err, size_t errlen)
{
	struct option long_opts[LONG_OPTS_MAX];
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

/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dpdk-vfwd-gen's command line (after EAL's "--").
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_config.h>

#include "gen.h"

static const char usage[] =
	"usage: dpdk-vfwd-gen [EAL options] -- [options]\n"
	"  Attaches to a forwarder as a VM and as the wire would: the VM-side port\n"
	"  (net_virtio_user on its vhost socket) and the wire-side port (net_memif,\n"
	"  role=client, paired with its net_memif port), sends, and checks every\n"
	"  frame that comes back. Lcores: the tasks (senders, receivers) in turn.\n"
	"  --profile udp|tcp|rr      traffic (udp)\n"
	"  --dir vm-to-wire|wire-to-vm|both   (vm-to-wire; rr: who asks)\n"
	"  --size BYTES              udp/rr frame size with the FCS, 64..9018 (the least\n"
	"                            the headers allow: 64 for untagged IPv4)\n"
	"  --flows N                 flows, 1..65000 (1)\n"
	"  --flow-base B             this generator's flows are B..B+flows-1 (source ports\n"
	"                            1024+B..), 0..65000 (0); B + flows at most 64512.\n"
	"                            Another generator's flow arriving here is foreign\n"
	"  --queues N                rx and tx queues on both ports, 1..16 (1): flow f on\n"
	"                            tx queue f % N, every rx queue polled (virtio-user:\n"
	"                            the vdev's queues=N; the forwarder's ports N each)\n"
	"  --rate PPS|max            per direction; rr: transactions/s; k/M suffixes (max)\n"
	"  --duration S              seconds of sending (5)\n"
	"  --count N                 frames per direction instead of a duration\n"
	"  --burst N                 frames per tx/rx call, 1..256 (32)\n"
	"  --mss BYTES               tcp segment payload (1448)\n"
	"  --tso N                   tcp from the VM side: TSO frames of N segments\n"
	"  --psh-every K             tcp: PSH on every Kth segment of a flow (never)\n"
	"  --no-lro                  do not take GSO frames on the VM port (tcp)\n"
	"  --ipv6                    IPv6 instead of IPv4 (2001:2::/48)\n"
	"  --vlan ID                 every frame on 802.1Q VLAN ID, 1..4094 (untagged)\n"
	"  --tcp-ts                  tcp: the timestamp option on every segment (32-byte header)\n"
	"  --outstanding N           rr: requests in flight (1)\n"
	"  --rr-timeout-ms MS        rr: no answer for this long: those in flight are lost (100)\n"
	"  --drain-ms MS             after sending, wait this long for stragglers (500)\n"
	"  --timeout S               the whole run at most (120)\n"
	"  --vm-port P, --wire-port P   port ids (0, 1)\n"
	"  --inject drop=N,reorder=N,dup=N,corrupt=N\n"
	"                            deliberate faults on unit N of flow 0 (to test the checks)\n"
	"  --format text|json        the report on stdout (text)\n"
	"  --json FILE               the JSON report into FILE as well\n"
	"  --link-timeout S          wait this long for both links (15)\n"
	"  --linger                  after the report, keep the ports open until a signal\n"
	"                            (the memif PMD: stop the forwarder first)\n"
	"  -h, --help\n";

void
gen_usage(FILE *f)
{
	fputs(usage, f);
}

static int
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0' || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "max", or a number with an optional k / M */
static int
parse_rate(const char *s, double *out)
{
	char buf[64];
	size_t n = strlen(s);
	double mult = 1;

	if (strcmp(s, "max") == 0) {
		*out = 0;
		return 0;
	}
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == 'k' || buf[n - 1] == 'K')
		mult = 1e3;
	else if (buf[n - 1] == 'M' || buf[n - 1] == 'm')
		mult = 1e6;
	if (mult != 1)
		buf[n - 1] = '\0';
	if (parse_double(buf, 1e-3, 1e9, out) != 0)
		return -EINVAL;
	*out *= mult;
	return *out <= 1e9 ? 0 : -EINVAL;
}

static int
parse_inject(const char *arg, struct gen_conf *c)
{
	char s[256], *save = NULL;

	if (strlen(arg) >= sizeof(s))
		return -EINVAL;
	strcpy(s, arg);
	for (char *kv = strtok_r(s, ",", &save); kv != NULL; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		uint64_t *slot;

		if (eq == NULL)
			return -EINVAL;
		*eq = '\0';
		if (strcmp(kv, "drop") == 0)
			slot = &c->inject_drop;
		else if (strcmp(kv, "reorder") == 0)
			slot = &c->inject_reorder;
		else if (strcmp(kv, "dup") == 0)
			slot = &c->inject_dup;
		else if (strcmp(kv, "corrupt") == 0)
			slot = &c->inject_corrupt;
		else
			return -EINVAL;
		if (parse_u64(eq + 1, 0, UINT32_MAX, slot) != 0)
			return -EINVAL;
	}
	return 0;
}

static int
bad(char *err, size_t len, const char *opt, const char *val)
{
	snprintf(err, len, "bad value for --%s: '%s'", opt, val ? val : "");
	return -EINVAL;
}

int
gen_parse_args(int argc, char **argv, struct gen_opts *o, char *err, size_t errlen)
{
	enum { O_PROFILE = 256, O_DIR, O_SIZE, O_FLOWS, O_RATE, O_DURATION, O_COUNT, O_BURST,
	       O_MSS, O_TSO, O_PSH, O_NO_LRO, O_OUTSTANDING, O_RR_TIMEOUT, O_DRAIN, O_TIMEOUT,
	       O_VM_PORT, O_WIRE_PORT, O_INJECT, O_FORMAT, O_JSON, O_LINK_TIMEOUT, O_LINGER,
	       O_IPV6, O_VLAN, O_TCP_TS, O_FLOW_BASE, O_QUEUES };
	static const struct option longopts[] = {
		{"profile", 1, NULL, O_PROFILE},   {"dir", 1, NULL, O_DIR},
		{"size", 1, NULL, O_SIZE},         {"flows", 1, NULL, O_FLOWS},
		{"rate", 1, NULL, O_RATE},         {"duration", 1, NULL, O_DURATION},
		{"count", 1, NULL, O_COUNT},       {"burst", 1, NULL, O_BURST},
		{"mss", 1, NULL, O_MSS},           {"tso", 1, NULL, O_TSO},
		{"psh-every", 1, NULL, O_PSH},     {"no-lro", 0, NULL, O_NO_LRO},
		{"outstanding", 1, NULL, O_OUTSTANDING}, {"rr-timeout-ms", 1, NULL, O_RR_TIMEOUT},
		{"drain-ms", 1, NULL, O_DRAIN},    {"timeout", 1, NULL, O_TIMEOUT},
		{"vm-port", 1, NULL, O_VM_PORT},   {"wire-port", 1, NULL, O_WIRE_PORT},
		{"inject", 1, NULL, O_INJECT},     {"format", 1, NULL, O_FORMAT},
		{"json", 1, NULL, O_JSON},         {"link-timeout", 1, NULL, O_LINK_TIMEOUT},
		{"linger", 0, NULL, O_LINGER},     {"help", 0, NULL, 'h'},
		{"ipv6", 0, NULL, O_IPV6},         {"vlan", 1, NULL, O_VLAN},
		{"tcp-ts", 0, NULL, O_TCP_TS},
		{"flow-base", 1, NULL, O_FLOW_BASE}, {"queues", 1, NULL, O_QUEUES},
		{NULL, 0, NULL, 0},
	};
	struct gen_conf *c = &o->conf;
	bool duration_set = false, timeout_set = false, size_set = false;
	uint32_t min_frame;
	uint64_t v;
	double d;
	int opt;

	memset(o, 0, sizeof(*o));
	gen_conf_defaults(c);
	o->link_timeout_s = 15;
	optind = 0; /* glibc: start afresh, also after an earlier error */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		const char *name = NULL;

		for (const struct option *lo = longopts; lo->name; lo++)
			if (lo->val == opt)
				name = lo->name;
		switch (opt) {
		case 'h':
			o->help = true;
			return 0;
		case O_PROFILE:
			if (strcmp(optarg, "udp") == 0)
				c->profile = GEN_PROFILE_UDP;
			else if (strcmp(optarg, "tcp") == 0)
				c->profile = GEN_PROFILE_TCP;
			else if (strcmp(optarg, "rr") == 0)
				c->profile = GEN_PROFILE_RR;
			else
				return bad(err, errlen, name, optarg);
			break;
		case O_DIR:
			c->dir_on[GEN_VM_TO_WIRE] = c->dir_on[GEN_WIRE_TO_VM] = false;
			if (strcmp(optarg, "vm-to-wire") == 0 || strcmp(optarg, "vm->wire") == 0)
				c->dir_on[GEN_VM_TO_WIRE] = true;
			else if (strcmp(optarg, "wire-to-vm") == 0 || strcmp(optarg, "wire->vm") == 0)
				c->dir_on[GEN_WIRE_TO_VM] = true;
			else if (strcmp(optarg, "both") == 0)
				c->dir_on[GEN_VM_TO_WIRE] = c->dir_on[GEN_WIRE_TO_VM] = true;
			else
				return bad(err, errlen, name, optarg);
			break;
		case O_SIZE:
			if (parse_u64(optarg, GEN_MIN_FRAME + GEN_FCS_LEN, 9018, &v) != 0)
				return bad(err, errlen, name, optarg);
			c->frame_len = (uint16_t)(v - GEN_FCS_LEN);
			size_set = true;
			break;
		case O_FLOWS:
			if (parse_u64(optarg, 1, GEN_MAX_FLOWS, &v) != 0)
				return bad(err, errlen, name, optarg);
			c->flows = (uint32_t)v;
			break;
		case O_FLOW_BASE:
			if (parse_u64(optarg, 0, GEN_MAX_FLOW_BASE, &v) != 0)
				return bad(err, errlen, name, optarg);
			c->flow_base = (uint32_t)v;
			break;
		case O_QUEUES:
			if (parse_u64(optarg, 1, GEN_MAX_QUEUES, &v) != 0)
				return bad(err, errlen, name, optarg);
			c->queues = (uint16_t)v;
			break;
		case O_RATE:
			if (parse_rate(optarg, &c->rate_pps) != 0)
				return bad(err, errlen, name, optarg);
			break;
		case O_DURATION:
			if (parse_double(optarg, 0.001, 86400, &c->duration_s) != 0)
				return bad(err, errlen, name, optarg);
			duration_set = true;
			break;
		case O_COUNT:
			if (parse_u64(optarg, 1, UINT64_MAX / 2, &c->count) != 0)
				return bad(err, errlen, name, optarg);
			break;
		case O_BURST:
			if (parse_u64(optarg, 1, GEN_BURST_MAX, &v) != 0)
				return bad(err, errlen, name, optarg);
			c->burst = (uint16_t)v;
			break;
		case O_MSS:
			if (parse_u64(optarg, 1, 9000, &v) != 0)
				return bad(err, errlen, name, optarg);
			c->mss = (uint16_t)v;
			break;
		case O_TSO:
			if (parse_u64(optarg, 1, 64, &v) != 0)
				return bad(err, errlen, name, optarg);
			c->tso = (uint16_t)v;
			break;
		case O_PSH:
			if (parse_u64(optarg, 1, UINT16_MAX, &v) != 0)
				return bad(err, errlen, name, optarg);
			c->psh_every = (uint16_t)v;
			break;
		case O_NO_LRO:
			o->no_lro = true;
			break;
		case O_IPV6:
			c->shape.ipv6 = true;
			break;
		case O_VLAN:
			if (parse_u64(optarg, 1, 4094, &v) != 0)
				return bad(err, errlen, name, optarg);
			c->shape.vlan = (uint16_t)v;
			break;
		case O_TCP_TS:
			c->shape.tcp_ts = true;
			break;
		case O_OUTSTANDING:
			if (parse_u64(optarg, 1, 4096, &v) != 0)
				return bad(err, errlen, name, optarg);
			c->outstanding = (uint32_t)v;
			break;
		case O_RR_TIMEOUT:
			if (parse_double(optarg, 0.01, 60000, &c->rr_timeout_ms) != 0)
				return bad(err, errlen, name, optarg);
			break;
		case O_DRAIN:
			if (parse_double(optarg, 0, 60000, &c->drain_ms) != 0)
				return bad(err, errlen, name, optarg);
			break;
		case O_TIMEOUT:
			if (parse_double(optarg, 0.1, 86400 * 2, &c->timeout_s) != 0)
				return bad(err, errlen, name, optarg);
			timeout_set = true;
			break;
		case O_VM_PORT:
		case O_WIRE_PORT:
			if (parse_u64(optarg, 0, RTE_MAX_ETHPORTS - 1, &v) != 0)
				return bad(err, errlen, name, optarg);
			c->port[opt == O_VM_PORT ? GEN_SIDE_VM : GEN_SIDE_WIRE] = (uint16_t)v;
			break;
		case O_INJECT:
			if (parse_inject(optarg, c) != 0)
				return bad(err, errlen, name, optarg);
			break;
		case O_FORMAT:
			if (strcmp(optarg, "text") == 0)
				o->json = false;
			else if (strcmp(optarg, "json") == 0)
				o->json = true;
			else
				return bad(err, errlen, name, optarg);
			break;
		case O_JSON:
			o->json_file = optarg;
			break;
		case O_LINK_TIMEOUT:
			if (parse_double(optarg, 0, 3600, &d) != 0)
				return bad(err, errlen, name, optarg);
			o->link_timeout_s = d;
			break;
		case O_LINGER:
			o->linger = true;
			break;
		default:
			snprintf(err, errlen, "unknown or incomplete option '%s'", argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	if (c->count && !duration_set)
		c->duration_s = 0;
	/* the default cap leaves a long --duration its drain */
	if (!timeout_set && c->duration_s + c->drain_ms / 1e3 + 60 > c->timeout_s)
		c->timeout_s = c->duration_s + c->drain_ms / 1e3 + 60;
	/* a flow is a source port: 1024 + flow must fit in 16 bits */
	if (c->flow_base + c->flows > GEN_MAX_FLOWS) {
		snprintf(err, errlen, "--flow-base %u + --flows %u is over %u: flow f is source "
			 "port %u + f, at most 65535", c->flow_base, c->flows, GEN_MAX_FLOWS,
			 GEN_FLOW_PORT);
		return -EINVAL;
	}
	if (c->port[GEN_SIDE_VM] == c->port[GEN_SIDE_WIRE]) {
		snprintf(err, errlen, "--vm-port and --wire-port must differ");
		return -EINVAL;
	}
	if (c->profile == GEN_PROFILE_RR && c->dir_on[GEN_VM_TO_WIRE] && c->dir_on[GEN_WIRE_TO_VM]) {
		snprintf(err, errlen, "rr: --dir both is not supported (one side asks, the other "
				      "answers on the same queues); run one direction");
		return -EINVAL;
	}
	min_frame = gen_hdrs_udp(&c->shape) + GEN_META_LEN;
	if (!size_set && c->frame_len < min_frame)
		c->frame_len = (uint16_t)min_frame;
	if (c->profile != GEN_PROFILE_TCP && c->frame_len < min_frame) {
		snprintf(err, errlen, "--size %u is below %u, the headers and the generator's "
			 "18 bytes with the FCS", c->frame_len + GEN_FCS_LEN, min_frame + GEN_FCS_LEN);
		return -EINVAL;
	}
	if (c->profile == GEN_PROFILE_TCP) {
		uint32_t hdrs = gen_hdrs_tcp(&c->shape);

		/* a TSO frame is one mbuf: its data room is 16 bits */
		if ((uint32_t)c->mss * (c->tso > 1 ? c->tso : 1) + hdrs +
		    RTE_PKTMBUF_HEADROOM > UINT16_MAX) {
			snprintf(err, errlen, "--mss x --tso is over %u bytes",
				 UINT16_MAX - hdrs - RTE_PKTMBUF_HEADROOM);
			return -EINVAL;
		}
	} else if (c->tso > 1 || c->psh_every || c->shape.tcp_ts) {
		snprintf(err, errlen, "--tso, --psh-every and --tcp-ts are for --profile tcp");
		return -EINVAL;
	}
	return 0;
}

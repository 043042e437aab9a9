/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VFWD_OPTIONS_H
#define VFWD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "vfwd.h"
#include "vfwd_port.h"

enum vfwd_stats_format { VFWD_STATS_TEXT, VFWD_STATS_JSON };

#define VFWD_DEFAULT_TAP_PREFIX "vfwd-tap"
/* IFNAMSIZ less the terminating NUL and two digits */
#define VFWD_TAP_PREFIX_MAX 13

struct vfwd_options {
	struct vfwd_knobs knobs;
	uint32_t backlog; /* deferred delivery: ring size per lcore */
	uint16_t pipe_rx, pipe_work; /* --pipeline R:W; 0: off (direct) */
	uint16_t nb_rxq, nb_txq;
	uint16_t mtu; /* --mtu; 0: each port's own */
	uint16_t nb_pairs; /* 0: pair the k-th vhost port with the k-th other */
	struct vfwd_pair pairs[VFWD_MAX_PAIRS];
	double stats_period_s; /* 0: report only at the end */
	double duration_s;     /* 0: run until a signal */
	enum vfwd_stats_format stats_format;
	bool help;
	bool interactive;        /* -i: the prompt */
	unsigned int socket_mode; /* vhost server sockets: 0660 or tighter */
	bool socket_owner_set;
	unsigned int socket_uid, socket_gid;
	char cmdline_file[4096]; /* --cmdline-file, or "" */
	enum vfwd_vhost_path vhost_path; /* --vhost-path */
	bool vhost_xstats;               /* --vhost-xstats (lib path) */
	char tap_prefix[VFWD_TAP_PREFIX_MAX + 1]; /* the embedded default's tap */
};

/* Parse the application arguments (those after "--"); argv[0] is the
 * program name. Pure: no EAL needed. Returns 0 on success (check help),
 * -EINVAL with a one-line message in err naming the option otherwise. */
int vfwd_options_parse(int argc, char **argv, struct vfwd_options *o, char *err, size_t errlen);
void vfwd_options_defaults(struct vfwd_options *o);
/* The umask under which vhost server sockets are created: owner read and
 * write at most, and nothing socket_mode does not give, until their mode
 * and owner are set. */
unsigned int vfwd_socket_umask(unsigned int socket_mode);
/* The --help text; its knob part is made from the knob table. */
const char *vfwd_usage(void);

#endif

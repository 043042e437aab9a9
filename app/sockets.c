/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Who may connect to vfwd's vhost-user sockets: every server socket of a
 * net_vhost port gets --socket-mode (0660 unless told tighter) and, if
 * given, --socket-owner, once the port has created it (doc/security.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_ethdev.h>

#include "app.h"

/* The socket path of a vhost port in server mode, or "" (client mode:
 * the socket is the guest side's). */
static int
server_socket_of(uint16_t port, char *path)
{
	bool client;
	int ret = vfwd_port_iface(port, path, PATH_MAX, &client);

	if (ret == 0 && client)
		path[0] = '\0';
	return ret;
}

int
vfwd_sockets_secure(struct vfwd_app *app)
{
	const struct vfwd_options *o = &app->opt;

	for (uint16_t i = 0; i < app->nb_ports; i++) {
		uint16_t port = app->ports[i];
		char path[PATH_MAX];
		struct stat st;

		if (!app->port_state[port].is_vhost || server_socket_of(port, path) != 0 ||
		    path[0] == '\0')
			continue;
		if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode)) {
			fprintf(stderr, "dpdk-vfwd: error: port %u: no socket at %s\n", port, path);
			return -ENOENT;
		}
		if (chmod(path, o->socket_mode) != 0 ||
		    (o->socket_owner_set && chown(path, o->socket_uid, o->socket_gid) != 0)) {
			fprintf(stderr, "dpdk-vfwd: error: %s: cannot set its mode/owner: %s\n", path,
				strerror(errno));
			return -errno;
		}
	}
	return 0;
}

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

#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>

#include "app.h"

static int
copy_value(const char *key __rte_unused, const char *value, void *opaque)
{
	snprintf(opaque, PATH_MAX, "%s", value);
	return 0;
}

/* The socket path of a vhost port in server mode, or "" (client mode:
 * the socket is the guest side's). */
static int
server_socket_of(uint16_t port, char *path)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	struct rte_kvargs *kv;
	char client[PATH_MAX] = "0";

	path[0] = '\0';
	if (rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL)
		return -ENODEV;
	da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL)
		return -ENOENT;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return -EINVAL;
	rte_kvargs_process(kv, "iface", copy_value, path);
	rte_kvargs_process(kv, "client", copy_value, client);
	rte_kvargs_free(kv);
	if (strcmp(client, "0") != 0)
		path[0] = '\0';
	return 0;
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

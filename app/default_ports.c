/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>

#include "default_ports.h"

/* how many names the embedded default's tap tries: PREFIX0..PREFIX15 */
#define DEFAULT_TAP_TRIES 16

/* The first of PREFIX0.. that names no link here. net_tap's taps live as
 * long as the process holding them, so a link of that name is another
 * process's (another forwarder's, or a tap someone made): not ours to
 * take. Taking it would not fail either: net_tap opens its taps
 * IFF_MULTI_QUEUE and would join theirs as more queues. Returns how many
 * names were taken before the one chosen, or -EEXIST. */
static int
pick_tap_name(const char *prefix, char *name, size_t len)
{
	for (unsigned int i = 0; i < DEFAULT_TAP_TRIES; i++) {
		snprintf(name, len, "%s%u", prefix, i);
		if (if_nametoindex(name) == 0)
			return (int)i;
	}
	return -EEXIST;
}

/* A socket file nobody listens on is a leftover of a process that died:
 * safe to replace. Anything else at that path is not ours to remove. */
static int
clear_stale_socket(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, ret;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "dpdk-vfwd: error: %s exists and is not a socket; not replacing it\n",
			path);
		return -EEXIST;
	}
	if (st.st_uid != geteuid()) {
		fprintf(stderr, "dpdk-vfwd: error: %s belongs to uid %u, not to us; not replacing "
				"it\n",
			path, (unsigned int)st.st_uid);
		return -EPERM;
	}
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	/* non-blocking: a listener whose backlog is full would hold a
	 * blocking connect() (and vfwd) until it accepts */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? 0 : errno;
	close(fd);
	/* only a refused connection says nobody listens: a full backlog
	 * (EAGAIN) is a live listener, and any other error proves nothing */
	if (ret != ECONNREFUSED) {
		fprintf(stderr, "dpdk-vfwd: error: %s is in use by another process%s%s%s; not "
				"replacing it\n",
			path, ret ? " (connect: " : "", ret ? strerror(ret) : "", ret ? ")" : "");
		return -EADDRINUSE;
	}
	return unlink(path) == 0 ? 0 : -errno;
}

int
vfwd_default_ports_create(struct vfwd_app *app)
{
	char args[PATH_MAX + 64];
	int ret;

	ret = snprintf(app->vhost_sock, sizeof(app->vhost_sock), "%s/vhost-user0.sock",
		       rte_eal_get_runtime_dir());
	if (ret < 0 || (size_t)ret >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		fprintf(stderr, "dpdk-vfwd: error: runtime directory path too long for a socket\n");
		app->vhost_sock[0] = '\0';
		return -ENAMETOOLONG;
	}
	ret = clear_stale_socket(app->vhost_sock);
	if (ret != 0) {
		app->vhost_sock[0] = '\0';
		return ret;
	}
	snprintf(args, sizeof(args), "iface=%s,queues=%u,tso=1,client=0", app->vhost_sock,
		 app->opt.nb_rxq > app->opt.nb_txq ? app->opt.nb_rxq : app->opt.nb_txq);
	ret = rte_vdev_init("net_vhost0", args);
	if (ret != 0) {
		fprintf(stderr, "dpdk-vfwd: error: cannot create net_vhost0 (%s): %s\n", args,
			strerror(-ret));
		app->vhost_sock[0] = '\0';
		return ret;
	}
	ret = pick_tap_name(app->opt.tap_prefix, app->tap_name, sizeof(app->tap_name));
	if (ret < 0) {
		fprintf(stderr, "dpdk-vfwd: error: %s0..%s%u all exist (other forwarders?); "
				"choose another name with --tap-prefix\n",
			app->opt.tap_prefix, app->opt.tap_prefix, DEFAULT_TAP_TRIES - 1);
		app->tap_name[0] = '\0';
		return ret;
	}
	if (ret == 1)
		printf("dpdk-vfwd: %s0 exists (another process's): taking %s\n",
		       app->opt.tap_prefix, app->tap_name);
	else if (ret > 1)
		printf("dpdk-vfwd: %s0..%s%d exist (other processes'): taking %s\n",
		       app->opt.tap_prefix, app->opt.tap_prefix, ret - 1, app->tap_name);
	snprintf(args, sizeof(args), "iface=%s", app->tap_name);
	ret = rte_vdev_init("net_tap0", args);
	if (ret != 0) {
		fprintf(stderr, "dpdk-vfwd: error: cannot create net_tap0 (%s): %s "
				"(is another dpdk-vfwd running?)\n",
			args, strerror(-ret));
		return ret;
	}
	return 0;
}

void
vfwd_default_ports_explain(const struct vfwd_app *app)
{
	printf("embedded default: no ports given, created\n"
	       "  VM side:   vhost-user server socket %s (tso=1)\n"
	       "  wire side: kernel tap %s\n"
	       "attach a QEMU guest with:\n"
	       "  qemu-system-x86_64 ... -object memory-backend-file,id=mem0,size=1G,"
	       "mem-path=/dev/hugepages,share=on -numa node,memdev=mem0 \\\n"
	       "    -chardev socket,id=chr0,path=%s -netdev vhost-user,id=net0,chardev=chr0 \\\n"
	       "    -device virtio-net-pci,netdev=net0\n"
	       "or a DPDK peer with --vdev net_virtio_user0,path=%s\n",
	       app->vhost_sock, app->tap_name, app->vhost_sock, app->vhost_sock);
}

void
vfwd_default_ports_remove(struct vfwd_app *app)
{
	struct stat st;

	if (app->vhost_sock[0] && lstat(app->vhost_sock, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(app->vhost_sock);
	app->vhost_sock[0] = '\0';
}

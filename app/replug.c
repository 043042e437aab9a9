/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Wire ports bound to a kernel interface that can go away and come back.
 *
 * A net_af_packet port is a packet socket bound to one interface, by
 * index. When the interface is deleted, the kernel unbinds the socket for
 * good: an interface created again under the same name is a new one, and
 * the port would stay deaf and mute for the rest of the run. So control
 * follows each such port's interface by name: while it is gone the port's
 * link is down (what the PMD refuses is counted as peer_down; what it
 * takes it cannot send, and counts as its own tx errors); when it is back under
 * a new index the port is made again (stopped, closed, its vdev removed and
 * probed with the same arguments, set up as at start) and forwarding
 * resumes. The workers stop for the few milliseconds that takes: every
 * worker, since any of them may send on the port.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>

#include "app.h"

void
vfwd_replug_init(struct vfwd_app *app)
{
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		uint16_t port = app->ports[i];
		struct vfwd_wire_iface *wi = &app->wire_iface[port];
		struct rte_eth_dev_info info;

		memset(wi, 0, sizeof(*wi));
		if (rte_eth_dev_info_get(port, &info) != 0 || info.driver_name == NULL ||
		    strcmp(info.driver_name, "net_af_packet") != 0 ||
		    vfwd_port_iface(port, wi->name, sizeof(wi->name), NULL) != 0)
			continue;
		wi->ifindex = if_nametoindex(wi->name);
	}
}

/* Make port again from its vdev arguments. Workers stopped. -errno; on
 * error the port is closed and must not be used (vfwd then quits rather
 * than run a plan with a closed port in it: even an interface that
 * flapped between the look and the probe ends the run). */
static int
replug(struct vfwd_app *app, uint16_t port)
{
	char name[RTE_ETH_NAME_MAX_LEN], args[512];
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	uint16_t again;
	int ret;

	if (rte_eth_dev_get_name_by_port(port, name) != 0 || rte_eth_dev_info_get(port, &info) != 0)
		return -ENODEV;
	da = rte_dev_devargs(info.device);
	if ((size_t)snprintf(args, sizeof(args), "%s",
			     da != NULL && da->args != NULL ? da->args : "") >= sizeof(args))
		return -E2BIG; /* the port is still there, untouched */
	vfwd_port_teardown(port, &app->port_state[port]);
	app->port_started[port] = false;
	ret = rte_vdev_uninit(name);
	if (ret == 0)
		ret = rte_vdev_init(name, args);
	if (ret != 0)
		return ret < 0 ? ret : -EIO;
	/* the pairs, the plan and every stream name the port by its id: the
	 * new port must have it (the lowest free id: the one just freed) */
	if (rte_eth_dev_get_port_by_name(name, &again) != 0 || again != port)
		return -EADDRNOTAVAIL;
	ret = vfwd_port_setup(port, &app->port_conf, app->pool, &app->port_state[port]);
	if (ret != 0)
		return ret;
	app->port_started[port] = true;
	memset(&app->port_last[port], 0, sizeof(app->port_last[port]));
	app->port_last_tsc[port] = 0;
	return 0;
}

void
vfwd_replug_tick(struct vfwd_app *app)
{
	/* every tick (a few syscalls for each followed port): the link
	 * poll, just before, says up while the interface is gone */
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		uint16_t port = app->ports[i];
		struct vfwd_wire_iface *wi = &app->wire_iface[port];
		unsigned int ifindex;
		bool was_running;
		int ret;

		if (wi->ifindex == 0)
			continue; /* not followed */
		ifindex = if_nametoindex(wi->name);
		wi->gone = ifindex == 0;
		if (ifindex == wi->ifindex)
			continue;
		if (ifindex == 0) {
			/* the PMD's link stays up: it never looks again */
			app->port_state[port].link_up = 0;
			continue;
		}
		was_running = app->running;
		if (was_running)
			vfwd_ctl_stop(app);
		pthread_mutex_lock(&app->lock);
		ret = replug(app, port);
		pthread_mutex_unlock(&app->lock);
		if (ret != 0) {
			fprintf(stderr, "dpdk-vfwd: error: port %u: interface %s came back, but the "
					"port could not be made again: %s; quitting\n",
				port, wi->name, strerror(-ret));
			wi->ifindex = 0;
			app->quit = true;
			app->cmd_status = -1;
			return;
		}
		printf("port %u: interface %s came back (index %u, was %u): port made again\n",
		       port, wi->name, ifindex, wi->ifindex);
		fflush(stdout);
		wi->ifindex = ifindex;
		app->replugs++;
		if (was_running && vfwd_ctl_start(app) != 0) {
			fprintf(stderr, "dpdk-vfwd: error: cannot start the workers again; quitting\n");
			app->quit = true;
			app->cmd_status = -1;
			return;
		}
	}
}

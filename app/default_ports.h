/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VFWD_DEFAULT_PORTS_H
#define VFWD_DEFAULT_PORTS_H

#include "app.h"

/* The embedded default, used when EAL found no port: a vhost-user server
 * socket (tso=1) in the runtime directory and a kernel tap. Returns 0 or
 * -errno with the reason printed. */
int vfwd_default_ports_create(struct vfwd_app *app);
/* Print the socket, the tap and how to attach a QEMU guest. */
void vfwd_default_ports_explain(const struct vfwd_app *app);
/* Remove the socket file if the vhost driver left it. */
void vfwd_default_ports_remove(struct vfwd_app *app);

#endif

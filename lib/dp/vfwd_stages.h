/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stages of the worker's fast path, one file each, in the order a
 * packet meets them. A round (vfwd_worker.c) is a short driver over them:
 *
 *   rx        vfwd_stage_rx.h       a stream's burst from its port, counted
 *   deliver   direct: straight on
 *             deferred: vfwd_stage_backlog.h, onto the lcore's backlog,
 *             forwarded in the round's later pass (netif_rx)
 *             pipeline: vfwd_stage_pipe.h, onto a work lcore's ring by
 *             flow hash (cpumap)
 *   forward   vfwd_stage_forward.h  the direction's offload stage:
 *     prep      vfwd_stage_prep.h   toward the wire: TSO cut, checksums
 *     gro       vfwd_stage_gro.h    toward the VM: MTU, GRO, heavy holds
 *   hold      vfwd_stage_hold.h     tx batching (tx-batch, tx-flush-us)
 *   tx        vfwd_stage_tx.h       the port's tx burst, retries, drops by
 *                                   cause; guest notifications (vfwd_notify.c)
 *
 * Each stage counts what it does in the worker's own stats (vfwd_stats.h)
 * and is static inline: one translation unit, as a PMD's bursts are. The
 * stages that hold packets (gro, backlog, the pipeline's rings, hold, and
 * tx's retries) time each wait where it happens, with --latency on
 * (vfwd_latency.h: lat_stamp going in, lat_take coming out).
 */
#ifndef VFWD_STAGES_H
#define VFWD_STAGES_H

#include "vfwd_stage_rx.h"
#include "vfwd_stage_backlog.h"
#include "vfwd_stage_pipe.h"
#include "vfwd_stage_forward.h"
#include "vfwd_stage_hold.h"
#include "vfwd_stage_tx.h"

#endif /* VFWD_STAGES_H */

/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The NAPI twin: after defer_polls empty rounds with nothing held, a
 * worker arms rx interrupts on its queues and sleeps in epoll until one
 * fires or sleep_max_us passes; queues without interrupt support (every
 * port here but vhost and tap) make it nap instead, a short sleep that
 * doubles while nothing comes; a port whose link is down, a sleep of at
 * most LINK_DOWN_SLEEP_US. Every sleep with an armed queue is an epoll
 * wait that a timerfd ends, to the microsecond: a kick ends a nap too.
 * Adaptive mode switches between this and plain polling on load, with
 * VPP's thresholds.
 */
#define _GNU_SOURCE /* F_GETSIG */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>

#include "vfwd_latency.h"
#include "vfwd_worker.h"

/* adaptive: napi below 5 packets per poll, poll above 10 (averaged x16) */
#define ADAPTIVE_TO_NAPI (5 * 16)
#define ADAPTIVE_TO_POLL (10 * 16)
#define NAP_MIN_US 16
#define NAP_MAX_US 1000
/* the longest sleep while a port's link is down and the rest have nothing
 * or are armed: an idle forwarder with no guest wakes 100 times a second,
 * not a thousand (each wake-up of a thread costs the CPU's other work
 * more than its few microseconds), and a guest that connects is seen
 * within 10 ms */
#define LINK_DOWN_SLEEP_US 10000
#define MAX_EVENTS 16

static void
nap(uint32_t us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

/* What an rx queue's epoll event carries: whether a guest's kick (a vhost
 * queue) or a wire port's interrupt woke the lcore. Non-NULL tags, not
 * pointers to anything. */
#define INTR_TAG_GUEST ((void *)(uintptr_t)1)
#define INTR_TAG_WIRE ((void *)(uintptr_t)2)
#define NAP_TIMER_TAG ((void *)(uintptr_t)3)

/* The nap timer in the thread's epoll set, added the first time a sleep
 * needs it (the set is DPDK's per-thread one, made on first use).
 * Whether it is there. */
static bool
nap_timer_ready(struct vfwd_worker *w)
{
	if (w->nap_timer_added)
		return true;
	if (w->nap_timer_fd < 0)
		return false;
	w->nap_timer_ev.epdata.event = EPOLLIN;
	w->nap_timer_ev.epdata.data = NAP_TIMER_TAG;
	w->nap_timer_added = rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_ADD, w->nap_timer_fd,
					   &w->nap_timer_ev) == 0;
	if (!w->nap_timer_added) {
		/* not again at every sleep: without it, whole milliseconds */
		close(w->nap_timer_fd);
		w->nap_timer_fd = -1;
	}
	return w->nap_timer_added;
}

/* Sleep up to us in epoll, the armed queues' interrupts and the nap timer
 * in its set. Returns whether an interrupt ended it. */
static bool
epoll_sleep(struct vfwd_worker *w, uint32_t us)
{
	struct itimerspec its = {.it_value = {.tv_sec = us / 1000000,
					      .tv_nsec = (long)(us % 1000000) * 1000}};
	struct itimerspec off = {0};
	struct rte_epoll_event ev[MAX_EVENTS];
	struct vfwd_lcore_stats *st = &w->stats;
	bool by_intr = false;
	int nev;

	if (nap_timer_ready(w) && timerfd_settime(w->nap_timer_fd, 0, &its, NULL) == 0) {
		nev = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, MAX_EVENTS, -1);
		/* disarmed, its expiry count is 0 again: nothing to read */
		(void)timerfd_settime(w->nap_timer_fd, 0, &off, NULL);
	} else if (us >= 1000) {
		/* no timer: whole milliseconds */
		nev = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, MAX_EVENTS, (int)(us / 1000));
	} else {
		/* ... and a shorter sleep a nap that no interrupt ends */
		nap(us);
		return false;
	}
	for (int e = 0; e < nev; e++) {
		if (ev[e].epdata.data == NAP_TIMER_TAG)
			continue;
		if (!by_intr)
			st->wakeups_intr++;
		by_intr = true;
		if (ev[e].epdata.data == INTR_TAG_GUEST) {
			st->wakeups_kick++;
			break;
		}
	}
	return by_intr;
}

/* What a sleep can wait on: *naps counts the rx queues that have no
 * interrupts (a work lcore's rings count as one), *down those whose link
 * is down (a guest away: nothing to receive until it comes, which a sleep
 * of LINK_DOWN_SLEEP_US notices). */
static void
count_queues(const struct vfwd_worker *w, unsigned int *naps, unsigned int *down)
{
	*naps = 0;
	*down = 0;
	if (w->role == VFWD_ROLE_WORK) {
		/* a work lcore polls rings, which have no interrupts; the rx
		 * queues in its stream list belong to the rx lcores */
		*naps = 1;
		return;
	}
	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_port_state *ps = &w->port_state[w->streams[i].s.rx_port];

		if (!ps->link_up)
			(*down)++;
		else if (!ps->rx_intr)
			(*naps)++;
	}
}

/* Arm interrupts on every rx queue that has them (a direct or rx lcore's).
 * Returns the number of queues armed; a queue that could not be adds to
 * *naps. */
static unsigned int
arm(struct vfwd_worker *w, bool *armed, unsigned int *naps)
{
	unsigned int n = 0;

	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_stream *s = &w->streams[i].s;
		const struct vfwd_port_state *ps = &w->port_state[s->rx_port];
		uint32_t gen = ps->conn_gen + 1;

		armed[i] = false;
		if (!ps->link_up || !ps->rx_intr)
			continue;
		/* a (re)connected guest brought new eventfds */
		if (w->streams[i].intr_gen != gen) {
			int ret = rte_eth_dev_rx_intr_ctl_q(s->rx_port, s->rx_queue,
							    RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD,
							    ps->is_vhost ? INTR_TAG_GUEST
									 : INTR_TAG_WIRE);

			if (ret != 0 && ret != -EEXIST) {
				(*naps)++;
				continue;
			}
			w->streams[i].intr_gen = gen;
			w->streams[i].intr_fd = -1;
			w->streams[i].intr_sig = 0;
			if (ps->rx_intr_fd) {
				int fd = rte_eth_dev_rx_intr_ctl_q_get_fd(s->rx_port, s->rx_queue);
				int sig = fd >= 0 ? fcntl(fd, F_GETSIG) : -1;

				w->streams[i].intr_fd = fd;
				w->streams[i].intr_sig = sig > 0 ? sig : 0;
			}
		}
		if (!ps->rx_intr_fd && rte_eth_dev_rx_intr_enable(s->rx_port, s->rx_queue) != 0) {
			(*naps)++;
			continue;
		}
		armed[i] = !ps->rx_intr_fd; /* what disarm() disables */
		n++;
	}
	return n;
}

static void
disarm(struct vfwd_worker *w, const bool *armed)
{
	for (uint16_t i = 0; i < w->nb_streams; i++)
		if (armed[i])
			rte_eth_dev_rx_intr_disable(w->streams[i].s.rx_port, w->streams[i].s.rx_queue);
}

/* Whether a queue whose interrupt is its fd (net_tap) has a packet the
 * PMD will not read. net_tap reads its fd only once a real-time signal
 * (F_SETSIG, sent by the kernel with each packet, to any thread of the
 * process) has run its handler since its last empty read; the epoll wake
 * can come first, and then a round polls nothing, the edge is spent and
 * the lcore sleeps its whole sleep-max-us with the packet waiting (40% of
 * a guest's request/response transactions took 10 ms here). So: a fd
 * that is readable when the lcore would sleep raises that signal on this
 * thread (its handler runs before pthread_kill returns) and counts as
 * busy: the next round reads it. */
static bool
wire_fd_ready(const struct vfwd_worker_stream *ws)
{
	struct pollfd p = {.fd = ws->intr_fd, .events = POLLIN};

	if (ws->intr_fd < 0 || poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN))
		return false;
	if (ws->intr_sig > 0)
		pthread_kill(pthread_self(), ws->intr_sig);
	return true;
}

/* Whether any rx queue has packets: rx_queue_count where the driver has
 * it, the fd where that is the interrupt (wire_fd_ready); else none (the
 * interrupt, armed by now, tells). A port whose link is down has none
 * (net_vhost without a guest logs each call it gets). */
static bool
queues_busy(const struct vfwd_worker *w)
{
	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_stream *s = &w->streams[i].s;
		const struct vfwd_port_state *ps = &w->port_state[s->rx_port];
		int c;

		if (!ps->link_up)
			continue;
		if (ps->rx_intr_fd) {
			if (wire_fd_ready(&w->streams[i]))
				return true;
			continue;
		}
		c = rte_eth_rx_queue_count(s->rx_port, s->rx_queue);

		if (c != 0 && c != -ENOTSUP)
			return true;
	}
	return false;
}

/* What the packets of the rounds after a sleep waited for (napi_wake,
 * --latency on): since a kick or an interrupt woke the lcore, until the
 * first round that takes any; since a timed sleep began, in the first
 * round after it only (a later packet came while the lcore was awake). */
enum vfwd_napi_wake {
	NAPI_WAKE_NONE,
	NAPI_WAKE_KICK,
	NAPI_WAKE_TIMED,
};

/* The thread's run delay so far in ns, schedstat's second field: how long
 * it was runnable and not running. 0 when there is none to read. */
static uint64_t
run_delay_ns(const struct vfwd_worker *w)
{
	char buf[96], *end;
	ssize_t n;

	if (w->run_delay_fd < 0)
		return 0;
	n = pread(w->run_delay_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	(void)strtoull(buf, &end, 10);
	return strtoull(end, NULL, 10);
}

/* A sleep that began at slept ended at woke. A kick or interrupt made the
 * thread runnable before epoll returned, by the run delay it gained while
 * asleep (what the scheduler took to give it a CPU): the wait starts
 * there. A timed sleep tells nothing of when a packet came, only that it
 * was not there at the start. */
static void
wake_note(struct vfwd_worker *w, bool by_intr, uint64_t slept, uint64_t woke,
	  uint64_t run_delay_before)
{
	if (by_intr) {
		uint64_t run_delay = run_delay_ns(w);
		uint64_t queued = run_delay > run_delay_before
					  ? (run_delay - run_delay_before) * w->tsc_per_us / 1000
					  : 0;

		w->wake_from_tsc = woke - RTE_MIN(queued, woke - slept);
		w->wake_wait = NAPI_WAKE_KICK;
	} else {
		w->wake_from_tsc = slept;
		w->wake_wait = NAPI_WAKE_TIMED;
	}
}

/* The round that began at start after a sleep took nb packets. */
static void
wake_take(struct vfwd_worker *w, uint32_t nb, uint64_t start)
{
	if (nb && w->lat_on && w->wake_from_tsc >= w->lat_since)
		vfwd_lat_add_n(&w->stats.lat[VFWD_LAT_NAPI_WAKE],
			       start > w->wake_from_tsc ? start - w->wake_from_tsc : 0, nb);
	if (nb || w->wake_wait == NAPI_WAKE_TIMED)
		w->wake_wait = NAPI_WAKE_NONE;
}

/* How long the next sleep may last: a nap while some queue has no
 * interrupts (growing while nothing comes: short after traffic, cheap
 * when idle), a link-down sleep while some port is down, else
 * sleep_max_us. */
static uint32_t
sleep_len(const struct vfwd_worker *w, const struct vfwd_knobs *k, unsigned int naps,
	  unsigned int down)
{
	uint32_t us;

	if (naps)
		us = RTE_MIN((uint32_t)NAP_MIN_US << RTE_MIN(w->empty_rounds / 64, 6u),
			     (uint32_t)NAP_MAX_US);
	else if (down)
		us = LINK_DOWN_SLEEP_US;
	else
		us = k->sleep_max_us;
	/* a work lcore's rings fill fast and wake no one: short naps only */
	if (w->role == VFWD_ROLE_WORK)
		us = NAP_MIN_US;
	return RTE_MIN(us, k->sleep_max_us);
}

static uint64_t
sleep_now(struct vfwd_worker *w, const struct vfwd_knobs *k, uint64_t now)
{
	struct vfwd_lcore_stats *st = &w->stats;
	bool armed[VFWD_MAX_STREAMS] = {false};
	unsigned int naps, down, n = 0;
	uint64_t after, run_delay = w->lat_on ? run_delay_ns(w) : 0;
	bool by_intr = false;
	uint32_t us;

	/* a kick that brought nothing is not what the next packets waited
	 * for */
	w->wake_wait = NAPI_WAKE_NONE;
	count_queues(w, &naps, &down);
	us = sleep_len(w, k, naps, down);
	/* A short nap with nap-wake timer leaves the queues that have
	 * interrupts unarmed: a guest that is not asked does not kick (a
	 * kick costs it an exit; one for every burst of a busy sender), and
	 * the nap's end polls them all, as the kernel's hrtimer does with
	 * napi_defer_hard_irqs. At their longest, naps wait on the
	 * interrupts too, so that an idle lcore wakes for a guest. */
	if (w->role != VFWD_ROLE_WORK &&
	    !(naps && us < NAP_MAX_US && k->nap_wake == VFWD_NAP_WAKE_TIMER)) {
		unsigned int failed = 0;

		n = arm(w, armed, &failed);
		if (failed && !naps)
			us = sleep_len(w, k, failed, down);
		naps += failed;
	}
	/* a packet that came between the last poll and arming raised no
	 * interrupt, and one that came since the last poll ends a nap before
	 * it starts: look once more (a work lcore's stream list names the rx
	 * lcores' queues: not its to look at) */
	if (w->role != VFWD_ROLE_WORK && queues_busy(w)) {
		disarm(w, armed);
		return rte_rdtsc();
	}
	st->sleeps++;
	st->intr_queues += n;
	st->nap_queues += naps;
	if (n)
		by_intr = epoll_sleep(w, us);
	else
		nap(us);
	disarm(w, armed);
	after = rte_rdtsc();
	st->sleep_tsc += after - now;
	if (w->lat_on)
		wake_note(w, by_intr, now, after, run_delay);
	return after;
}

void
vfwd_napi_thread_init(struct vfwd_worker *w)
{
	/* Linux ends a normal thread's timed sleep up to its timer slack
	 * late, 50 us by default: a 16 us nap took 102 us on average here
	 * (48 with 1 us of slack), and a nap is how long a packet on a
	 * napping port waits. The napi sleeps' latency is the knobs' to set
	 * (sleep-max-us), not the scheduler's rounding. */
	(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
	/* this thread's: the fd stays bound to the thread that opened it */
	w->run_delay_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	w->nap_timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	w->nap_timer_added = false;
}

void
vfwd_napi_release(struct vfwd_worker *w)
{
	/* on the worker's own thread: the per-thread epoll set is its own,
	 * and the next plan may give these queues to another lcore */
	for (uint16_t i = 0; i < w->nb_streams; i++) {
		if (w->streams[i].intr_gen == 0)
			continue;
		rte_eth_dev_rx_intr_ctl_q(w->streams[i].s.rx_port, w->streams[i].s.rx_queue,
					  RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_DEL, NULL);
		w->streams[i].intr_gen = 0;
		w->streams[i].intr_fd = -1;
	}
	if (w->run_delay_fd >= 0)
		close(w->run_delay_fd);
	w->run_delay_fd = -1;
	if (w->nap_timer_added)
		rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_DEL, w->nap_timer_fd,
			      &w->nap_timer_ev);
	w->nap_timer_added = false;
	if (w->nap_timer_fd >= 0)
		close(w->nap_timer_fd);
	w->nap_timer_fd = -1;
}

uint64_t
vfwd_napi_after_round(struct vfwd_worker *w, const struct vfwd_knobs *k, uint32_t nb,
		      uint64_t start, uint64_t now)
{
	struct vfwd_lcore_stats *st = &w->stats;

	if (unlikely(w->wake_wait != NAPI_WAKE_NONE))
		wake_take(w, nb, start);

	if (k->rx_mode == VFWD_RX_ADAPTIVE) {
		/* packets per stream visit, a moving average over ~16 rounds */
		uint32_t per_poll = w->nb_streams ? nb * 16 / w->nb_streams : 0;

		w->load_x16 = w->load_x16 - (w->load_x16 >> 4) + (per_poll >> 4);
		if (w->napi_now && w->load_x16 > ADAPTIVE_TO_POLL) {
			w->napi_now = false;
			st->to_poll++;
		} else if (!w->napi_now && w->load_x16 < ADAPTIVE_TO_NAPI) {
			w->napi_now = true;
			st->to_napi++;
		}
		if (!w->napi_now)
			return now;
	}
	if (nb) {
		w->empty_rounds = 0;
		w->last_work_tsc = now;
		return now;
	}
	/* NAPI's "done": the queues were empty defer_polls times in a row
	 * and for busy_poll_us, and nothing waits in GRO, tx holds or the
	 * backlog */
	if (++w->empty_rounds <= k->defer_polls ||
	    now - w->last_work_tsc < k->busy_poll_us * w->tsc_per_us ||
	    vfwd_worker_holds(w))
		return now;
	return sleep_now(w, k, now);
}

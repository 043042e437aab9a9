/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A TCP request/response endpoint for the guest perf cells (netperf
 * TCP_RR's shape), static so that it runs in the guest's initramfs:
 *
 *   rr server PORT
 *       answers every connection: each message read is written back.
 *   rr client HOST PORT SECONDS CONNECTIONS SIZE
 *       CONNECTIONS connections, each with one SIZE-byte request in
 *       flight at a time, for SECONDS; prints one line
 *       RR-RESULT n=<transactions> tps=<per s> p50=<us> p90= p99= p999= max=
 *       (round trips in microseconds, from a histogram of 1 us bins).
 *
 * TCP_NODELAY both ends: a request is one segment, at once.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 64
#define MAX_SIZE 65536
#define HIST_US 200000 /* round trips at or above this land in the last bin */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int serve(const char *port)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_addr = in6addr_any,
				   .sin6_port = htons(atoi(port)) };
	struct pollfd pfd[MAX_CONNS + 1];
	static char buf[MAX_SIZE];
	int n = 1, one = 1, zero = 0, ls;

	/* one dual-stack socket: IPv4 and IPv6 clients alike */
	ls = socket(AF_INET6, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(ls, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, MAX_CONNS)) {
		perror("rr: listen");
		return 1;
	}
	pfd[0] = (struct pollfd){ .fd = ls, .events = POLLIN };
	for (;;) {
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (pfd[0].revents & POLLIN) {
			int c = accept(ls, NULL, NULL);

			if (c >= 0 && n <= MAX_CONNS) {
				nodelay(c);
				pfd[n++] = (struct pollfd){ .fd = c, .events = POLLIN };
			} else if (c >= 0) {
				close(c);
			}
		}
		for (int i = 1; i < n; i++) {
			ssize_t got;

			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(pfd[i].fd, buf, sizeof(buf));
			if (got <= 0 || write(pfd[i].fd, buf, got) != got) {
				close(pfd[i].fd);
				pfd[i--] = pfd[--n];
			}
		}
	}
}

struct conn {
	int fd;
	size_t got;       /* bytes of the answer so far */
	uint64_t sent_ns; /* when the request in flight went */
};

static int ask(struct conn *c, const char *req, size_t size)
{
	c->got = 0;
	c->sent_ns = now_ns();
	return write(c->fd, req, size) == (ssize_t)size ? 0 : -1;
}

/* The nearest-rank percentile: the smallest round trip with at least
 * q * n of them at or below it. */
static uint64_t percentile(const uint32_t *hist, uint64_t n, double q)
{
	uint64_t want = (uint64_t)(q * n), seen = 0;

	if ((double)want < q * n || want == 0)
		want++;
	for (int us = 0; us < HIST_US; us++) {
		seen += hist[us];
		if (seen >= want)
			return us;
	}
	return HIST_US;
}

static int client(const char *host, const char *port, double secs, int nconn, size_t size)
{
	struct sockaddr_in6 sa6 = { .sin6_family = AF_INET6, .sin6_port = htons(atoi(port)) };
	struct sockaddr_in sa4 = { .sin_family = AF_INET, .sin_port = htons(atoi(port)) };
	struct sockaddr *sa = (struct sockaddr *)&sa4;
	socklen_t salen = sizeof(sa4);
	static uint32_t hist[HIST_US + 1];
	static char req[MAX_SIZE], buf[MAX_SIZE];
	struct conn conns[MAX_CONNS];
	struct pollfd pfd[MAX_CONNS];
	uint64_t n = 0, max_us = 0, t0, end;

	if (nconn < 1 || nconn > MAX_CONNS || size < 1 || size > MAX_SIZE || secs <= 0) {
		fprintf(stderr, "rr: connections 1..%d, size 1..%d, seconds > 0\n", MAX_CONNS,
			MAX_SIZE);
		return 2;
	}
	/* addresses only: no resolver in the guest */
	if (inet_pton(AF_INET6, host, &sa6.sin6_addr) == 1) {
		sa = (struct sockaddr *)&sa6;
		salen = sizeof(sa6);
	} else if (inet_pton(AF_INET, host, &sa4.sin_addr) != 1) {
		fprintf(stderr, "rr: %s is not an IPv4 or IPv6 address\n", host);
		return 2;
	}
	memset(req, 'r', size);
	for (int i = 0; i < nconn; i++) {
		conns[i].fd = socket(sa->sa_family, SOCK_STREAM, 0);
		if (conns[i].fd < 0 || connect(conns[i].fd, sa, salen)) {
			perror("rr: connect");
			return 1;
		}
		nodelay(conns[i].fd);
		pfd[i] = (struct pollfd){ .fd = conns[i].fd, .events = POLLIN };
	}
	t0 = now_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	for (int i = 0; i < nconn; i++)
		if (ask(&conns[i], req, size))
			return 1;
	while (now_ns() < end) {
		/* a TCG guest's retransmit may take a second or more */
		int r = poll(pfd, nconn, 5000);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (r == 0) {
			fprintf(stderr, "rr: no answer within 5 s\n");
			return 1;
		}
		for (int i = 0; i < nconn; i++) {
			struct conn *c = &conns[i];
			ssize_t got;
			uint64_t us;

			if (!pfd[i].revents)
				continue;
			got = read(c->fd, buf, size - c->got);
			if (got <= 0) {
				fprintf(stderr, "rr: the server closed a connection\n");
				return 1;
			}
			c->got += got;
			if (c->got < size)
				continue;
			us = (now_ns() - c->sent_ns) / 1000;
			hist[us < HIST_US ? us : HIST_US]++;
			max_us = us > max_us ? us : max_us;
			n++;
			if (ask(c, req, size))
				return 1;
		}
	}
	secs = (now_ns() - t0) / 1e9;
	printf("RR-RESULT n=%llu tps=%.1f p50=%llu p90=%llu p99=%llu p999=%llu max=%llu\n",
	       (unsigned long long)n, n / secs,
	       (unsigned long long)percentile(hist, n, 0.50),
	       (unsigned long long)percentile(hist, n, 0.90),
	       (unsigned long long)percentile(hist, n, 0.99),
	       (unsigned long long)percentile(hist, n, 0.999), (unsigned long long)max_us);
	return n ? 0 : 1;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc == 3 && !strcmp(argv[1], "server"))
		return serve(argv[2]);
	if (argc == 7 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3], atof(argv[4]), atoi(argv[5]), atoi(argv[6]));
	fprintf(stderr, "usage: rr server PORT | rr client HOST PORT SECONDS CONNECTIONS SIZE\n");
	return 2;
}

/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A UDP sender and checker for the real guest (busybox's nc has no UDP):
 * static, so it runs in the guest's initramfs.
 *
 *   udpcheck send ADDR PORT COUNT     COUNT datagrams, paced, then an end mark
 *   udpcheck recv PORT SECONDS        until the end mark or SECONDS idle
 *
 * Datagram i: its number (8 bytes) and a payload that depends on i and on
 * each byte's position, 16..1400 bytes long (the length comes from i too,
 * so odd lengths and every checksum offset are covered). The receiver
 * prints one line: received, bad (a byte or the length wrong), duplicates,
 * late (below the highest number seen), lost.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define END_MARK UINT64_MAX
#define MAX_LEN 1400

static uint32_t
length_of(uint64_t i)
{
	return 16 + (uint32_t)((i * 2654435761u) % (MAX_LEN - 16 + 1));
}

static uint8_t
byte_of(uint64_t i, uint32_t pos)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull + pos * 0xbf58476d1ce4e5b9ull;

	return (uint8_t)(x >> 56);
}

static void
fill(uint8_t *buf, uint64_t i)
{
	memcpy(buf, &i, 8);
	for (uint32_t p = 8; p < length_of(i); p++)
		buf[p] = byte_of(i, p);
}

static int
do_send(const char *addr, const char *port, uint64_t count)
{
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_port = htons(atoi(port))};
	struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons(atoi(port))};
	uint8_t buf[MAX_LEN];
	struct timespec pause = {0, 1000000};
	uint64_t end[2] = {END_MARK, count};
	int v6 = strchr(addr, ':') != NULL, fd;

	/* numeric addresses only: no resolver in a static binary */
	if ((v6 ? inet_pton(AF_INET6, addr, &s6.sin6_addr) : inet_pton(AF_INET, addr, &s4.sin_addr))
	    != 1) {
		fprintf(stderr, "udpcheck: %s: not a numeric address\n", addr);
		return 2;
	}
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || (v6 ? connect(fd, (struct sockaddr *)&s6, sizeof(s6))
			  : connect(fd, (struct sockaddr *)&s4, sizeof(s4))) != 0) {
		perror("udpcheck: socket");
		return 1;
	}
	for (uint64_t i = 0; i < count; i++) {
		fill(buf, i);
		if (send(fd, buf, length_of(i), 0) < 0)
			perror("udpcheck: send");
		/* at most 5 k datagrams/s: a pace the guest's receiver keeps */
		if (i % 5 == 4)
			nanosleep(&pause, NULL);
	}
	for (int k = 0; k < 5; k++) {
		nanosleep(&pause, NULL);
		send(fd, end, sizeof(end), 0);
	}
	close(fd);
	return 0;
}

static int
do_recv(const char *port, int seconds)
{
	struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_port = htons(atoi(port))};
	struct timeval tv = {seconds, 0};
	uint64_t received = 0, bad = 0, dup = 0, late = 0, distinct = 0, expected = 0;
	uint64_t highest = 0, nbits = 1 << 20;
	uint8_t *seen = calloc(nbits / 8, 1), buf[MAX_LEN + 64], want[MAX_LEN];
	int fd = socket(AF_INET6, SOCK_DGRAM, 0), off = 0, rcvbuf = 8 << 20;
	int got_end = 0;

	if (fd < 0 || seen == NULL) {
		perror("udpcheck: socket");
		return 1;
	}
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("udpcheck: bind");
		return 1;
	}
	printf("UDP-LISTENING\n");
	fflush(stdout);
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		uint64_t i;

		if (n < 0)
			break; /* idle for SECONDS */
		if (n == 16 && memcmp(buf, &(uint64_t){END_MARK}, 8) == 0) {
			memcpy(&expected, buf + 8, 8);
			got_end = 1;
			break;
		}
		received++;
		if (n < 8) {
			bad++;
			continue;
		}
		memcpy(&i, buf, 8);
		fill(want, i < nbits ? i : 0);
		if (i >= nbits || (size_t)n != length_of(i) || memcmp(buf, want, n) != 0) {
			bad++;
			continue;
		}
		if (seen[i / 8] & (1 << (i % 8))) {
			dup++;
			continue;
		}
		seen[i / 8] |= 1 << (i % 8);
		distinct++;
		if (distinct > 1 && i < highest)
			late++;
		if (i > highest)
			highest = i;
	}
	printf("UDP-RESULT received %llu bad %llu dup %llu late %llu lost %llu end %d\n",
	       (unsigned long long)received, (unsigned long long)bad, (unsigned long long)dup,
	       (unsigned long long)late,
	       (unsigned long long)(expected > distinct ? expected - distinct : 0), got_end);
	/* where the first losses fell: at a stream's start (a receiver not
	 * yet listening) or spread through it (a queue overflowing) */
	int shown = 0;
	for (uint64_t i = 0; i < expected && i < nbits && shown < 16; i++) {
		if (!(seen[i / 8] & (1 << (i % 8)))) {
			printf("%s%llu", shown ? " " : "UDP-LOST-IDS ", (unsigned long long)i);
			shown++;
		}
	}
	if (shown)
		printf("\n");
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "send") == 0)
		return do_send(argv[2], argv[3], strtoull(argv[4], NULL, 10));
	if (argc == 4 && strcmp(argv[1], "recv") == 0)
		return do_recv(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: udpcheck send ADDR PORT COUNT | recv PORT SECONDS\n");
	return 2;
}

/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The few ethtool calls the multi-queue guest test needs (busybox has no
 * ethtool): static, so it runs in the guest's initramfs.
 *
 *   ethq channels IFACE        ETHQ-CHANNELS max N combined M  (ETHTOOL_GCHANNELS)
 *   ethq set IFACE N           combined channels to N          (ETHTOOL_SCHANNELS)
 *   ethq stats IFACE           ETHQ-STAT name value, one a line (ETHTOOL_GSTATS)
 *
 * virtio_net's per-queue counters (rx_queue_0_packets, tx_queue_1_bytes,
 * ...) are only in ETHTOOL_GSTATS: /sys/class/net/IFACE/statistics sums
 * the queues.
 */
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int
ethtool(const char *iface, void *cmd)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	if (fd < 0) {
		perror("ethq: socket");
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	ifr.ifr_data = cmd;
	ret = ioctl(fd, SIOCETHTOOL, &ifr);
	if (ret != 0)
		perror("ethq: SIOCETHTOOL");
	close(fd);
	return ret;
}

static int
channels(const char *iface)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};

	if (ethtool(iface, &ch) != 0)
		return 1;
	printf("ETHQ-CHANNELS max %u combined %u\n", ch.max_combined, ch.combined_count);
	return 0;
}

static int
set_channels(const char *iface, unsigned int n)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};

	if (ethtool(iface, &ch) != 0)
		return 1;
	ch.cmd = ETHTOOL_SCHANNELS;
	ch.combined_count = n;
	return ethtool(iface, &ch) != 0;
}

static int
stats(const char *iface)
{
	struct ethtool_drvinfo info = {.cmd = ETHTOOL_GDRVINFO};
	struct ethtool_gstrings *names;
	struct ethtool_stats *vals;
	unsigned int n;

	if (ethtool(iface, &info) != 0)
		return 1;
	n = info.n_stats;
	names = calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
	vals = calloc(1, sizeof(*vals) + (size_t)n * sizeof(vals->data[0]));
	if (names == NULL || vals == NULL)
		return 1;
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = n;
	vals->cmd = ETHTOOL_GSTATS;
	vals->n_stats = n;
	if (ethtool(iface, names) != 0 || ethtool(iface, vals) != 0)
		return 1;
	for (unsigned int i = 0; i < n; i++)
		printf("ETHQ-STAT %.*s %llu\n", ETH_GSTRING_LEN,
		       (const char *)names->data + i * ETH_GSTRING_LEN,
		       (unsigned long long)vals->data[i]);
	free(names);
	free(vals);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "channels") == 0)
		return channels(argv[2]);
	if (argc == 4 && strcmp(argv[1], "set") == 0)
		return set_channels(argv[2], (unsigned int)strtoul(argv[3], NULL, 10));
	if (argc == 3 && strcmp(argv[1], "stats") == 0)
		return stats(argv[2]);
	fprintf(stderr, "usage: ethq channels IFACE | set IFACE N | stats IFACE\n");
	return 2;
}

// SPDX-License-Identifier: MIT
/* Test helper: send UDP datagrams from SRC to DST:DPORT over a range of source ports, with an
 * optional IP TOS (0x68: DSCP 26, PFC priority 3). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET};
	int first, nports, per, dport, tos = 0;
	char payload[64] = "rocelab-test";

	if (argc != 7 && argc != 8) {
		fprintf(stderr,
			"usage: udpsend SRC DST DPORT FIRST_SPORT NPORTS PKTS_PER_PORT [TOS]\n");
		return 2;
	}
	if (inet_pton(AF_INET, argv[1], &src.sin_addr) != 1 ||
	    inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1) {
		fprintf(stderr, "udpsend: bad address\n");
		return 2;
	}
	dport = atoi(argv[3]);
	first = atoi(argv[4]);
	nports = atoi(argv[5]);
	per = atoi(argv[6]);
	if (argc == 8)
		tos = (int)strtol(argv[7], NULL, 0);
	if (tos < 0 || tos > 255 || dport < 1 || dport > 65535 || first < 1 || nports < 1 ||
	    first + nports > 65536 || per < 1 || per > 100000) {
		fprintf(stderr, "udpsend: value out of range\n");
		return 2;
	}
	/* Only the benchmarking range: this helper must never send anywhere else. */
	if ((ntohl(dst.sin_addr.s_addr) & 0xfffe0000u) != 0xc6120000u) {
		fprintf(stderr, "udpsend: %s is outside 198.18.0.0/15\n", argv[2]);
		return 2;
	}
	dst.sin_port = htons((unsigned short)dport);
	for (int p = first; p < first + nports; p++) {
		int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1;

		if (fd < 0)
			return 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
		src.sin_port = htons((unsigned short)p);
		if (bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0) {
			fprintf(stderr, "udpsend: bind %s:%d: %s\n", argv[1], p, strerror(errno));
			return 1;
		}
		for (int i = 0; i < per; i++)
			if (sendto(fd, payload, sizeof(payload), 0, (struct sockaddr *)&dst,
				   sizeof(dst)) < 0) {
				fprintf(stderr, "udpsend: %s\n", strerror(errno));
				return 1;
			}
		close(fd);
	}
	return 0;
}

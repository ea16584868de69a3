// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: exporter --listen parsing. An accepted address is IPv4 or
 * IPv6 with a port from 1 to 65535 and a length that matches its family.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "cmd/commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct sockaddr_storage ss;
	unsigned int len = 0;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!parse_listen(s, &ss, &len)) {
		if (ss.ss_family == AF_INET) {
			if (len != sizeof(struct sockaddr_in) ||
			    !((struct sockaddr_in *)&ss)->sin_port)
				abort();
		} else if (ss.ss_family == AF_INET6) {
			if (len != sizeof(struct sockaddr_in6) ||
			    !((struct sockaddr_in6 *)&ss)->sin6_port)
				abort();
		} else {
			abort();
		}
	}
	free(s);
	return 0;
}

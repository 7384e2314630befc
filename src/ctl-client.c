/*
 * src/ctl-client.c - see ctl-client.h.
 */
#include "config.h"
#include "src/ctl-client.h"
#include "src/error.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int ctl_ask(const char *sock, const char *command, int wait_ms, char **reply, char **err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char *line = NULL, *buf = NULL;
	size_t got = 0, cap = 0;
	int fd, e = 0;

	*reply = NULL;
	if (strlen(sock) >= sizeof(addr.sun_path)) {
		error_set(err, "%s: a socket path has at most %zu bytes", sock, sizeof(addr.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, sock);
	if (asprintf(&line, "%s\n", command) < 0)
		return -ENOMEM;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		e = errno;
		error_set(err, "%s: no mtx collect --control answers there (%s)", sock, strerror(e));
	} else if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
		e = errno ? errno : EIO;
		error_set(err, "%s: %s", sock, strerror(e));
	}
	free(line);
	/* the answer ends at its newline, when the collector hangs up */
	while (!e) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		if (cap - got < 4096) {
			char *more = realloc(buf, cap = cap ? cap * 2 : 65536);
			if (!more) {
				e = ENOMEM;
				break;
			}
			buf = more;
		}
		if (poll(&p, 1, wait_ms) <= 0 || (n = read(fd, buf + got, cap - 1 - got)) <= 0)
			break;
		got += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	if (!e && (!got || buf[got - 1] != '\n')) {
		e = EPROTO;
		error_set(err, "%s: the collector did not answer", sock);
	}
	if (e) {
		free(buf);
		return -e;
	}
	buf[got - 1] = 0;
	*reply = buf;
	return 0;
}

void ctl_reply_text(const char *reply, char *out, size_t size)
{
	const char *p = strstr(reply, "\"text\": \"");
	size_t n = 0;
	if (!p) {
		snprintf(out, size, "%s", reply);
		return;
	}
	for (p += 9; *p && *p != '"' && n + 1 < size; p++) {
		if (*p == '\\' && p[1] == 'u' && p[2] && p[3] && p[4] && p[5]) {
			char hex[5] = { p[2], p[3], p[4], p[5], 0 };
			out[n++] = (char)strtol(hex, NULL, 16);
			p += 5;
		} else {
			if (*p == '\\' && p[1])
				p++;
			out[n++] = *p;
		}
	}
	out[n] = 0;
}

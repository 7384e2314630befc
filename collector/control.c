/* collector/control.c - see control.h. */
#include "config.h"
#include "collector/control.h"
#include "src/error.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* A client that connected has this long to send its line. */
#define CONTROL_READ_MS 100

struct mtx_control {
	int fd;
	char *path;
};

/* Whether a collector answers on @addr: a live one is not to be replaced. */
static int answers(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), live;
	if (fd < 0)
		return 0;
	live = connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0;
	close(fd);
	return live;
}

int control_open(struct mtx_control **out, const char *path, char **err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct mtx_control *c;
	int e;
	*out = NULL;
	if (strlen(path) >= sizeof(addr.sun_path)) {
		error_set(err, "--control %s: a socket path has at most %zu bytes", path, sizeof(addr.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, path);
	if (!(c = calloc(1, sizeof(*c))) || !(c->path = strdup(path))) {
		free(c);
		return -ENOMEM;
	}
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	e = c->fd < 0 ? errno : 0;
	/* a socket file left by a collector that is gone is replaced */
	if (!e && bind(c->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		e = errno;
		if (e == EADDRINUSE && !answers(&addr) && unlink(path) == 0)
			e = bind(c->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ? errno : 0;
	}
	if (!e && listen(c->fd, 8) < 0)
		e = errno;
	if (e) {
		error_set(err, "--control %s: %s", path,
			  e == EADDRINUSE ? "another collector listens there" : strerror(e));
		if (c->fd >= 0)
			close(c->fd);
		free(c->path);
		free(c);
		return -e;
	}
	*out = c;
	return 0;
}

int control_fd(const struct mtx_control *c)
{
	return c ? c->fd : -1;
}

void control_serve(struct mtx_control *c, control_handler fn, void *ctx)
{
	char line[1024], *reply = NULL;
	size_t len = 0, got = 0;
	FILE *out;
	int client = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC);
	if (client < 0)
		return;
	while (got < sizeof(line) - 1 && !memchr(line, '\n', got)) {
		struct pollfd p = { .fd = client, .events = POLLIN };
		ssize_t n;
		if (poll(&p, 1, CONTROL_READ_MS) <= 0 || (n = read(client, line + got, sizeof(line) - 1 - got)) <= 0)
			break;
		got += (size_t)n;
	}
	line[got] = 0;
	line[strcspn(line, "\r\n")] = 0;
	if ((out = open_memstream(&reply, &len))) {
		fn(ctx, line, out);
		fclose(out);
		for (size_t at = 0; at < len;) {
			ssize_t n = write(client, reply + at, len - at);
			if (n <= 0)
				break;
			at += (size_t)n;
		}
	}
	free(reply);
	close(client);
}

void control_close(struct mtx_control *c)
{
	if (!c)
		return;
	close(c->fd);
	unlink(c->path);
	free(c->path);
	free(c);
}

/* src/cmd/cmd-ctl.c - 'mtx ctl SOCK COMMAND...': tell a running mtx collect
 * --control SOCK what to switch on or off (collector/instrument.h). */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/log.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

const char cmd_ctl_usage[] =
	"usage: mtx ctl [--json] SOCK COMMAND...\n"
	"\n"
	"Change, at once, what a running mtx collect records, through the socket\n"
	"SOCK its control option opened:\n"
	"\n"
	"  probe add [LIB:]REGEX   uprobes on every call of the functions REGEX\n"
	"                          matches (chosen as mtx collect's are)\n"
	"  probe del N             remove probe N: its calls still open end now\n"
	"  probe list              the probes, their calls and cost so far\n"
	"  source on|off NAME      syscalls, wakeups, interrupts, samples or sync\n"
	"  phase NAME              a phase of the run called NAME begins now\n"
	"\n"
	"      --json              print the collector's reply as it is: one JSON\n"
	"                          object, {\"ok\": ..., \"text\": ..., ...}\n"
	"  -h, --help              this text\n"
	"\n"
	"Exits 0 when the collector did it, 1 when it refused (one line says why) or\n"
	"cannot be reached, 2 for a bad command line.\n";

/* How long the collector may take to answer (a probe's definition and
 * calibration take tens of ms; its loop serves between drains). */
#define CTL_REPLY_MS 30000

/* The value of the JSON string field "text" of @reply, unescaped (as the
 * collector escapes: \" \\ and \u00XX), into @out. */
static void reply_text(const char *reply, char *out, size_t size)
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

int cmd_ctl(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char line[1024] = "", reply[65536], text[65536];
	size_t got = 0;
	int opt, json = 0, fd;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 'h':
			fputs(cmd_ctl_usage, stdout);
			return 0;
		default:
			return cmd_usage_error("ctl", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return cmd_usage_error("ctl", argc - optind < 1 ? "no socket given" : "no command given");
	if (strlen(argv[optind]) >= sizeof(addr.sun_path))
		return cmd_usage_error("ctl", "%s: a socket path has at most %zu bytes", argv[optind],
				       sizeof(addr.sun_path) - 1);
	strcpy(addr.sun_path, argv[optind]);
	for (int i = optind + 1; i < argc; i++) {
		size_t len = strlen(line);
		if (len + strlen(argv[i]) + 2 >= sizeof(line))
			return cmd_usage_error("ctl", "the command is too long");
		snprintf(line + len, sizeof(line) - len, "%s%s", len ? " " : "", argv[i]);
	}
	strcat(line, "\n");
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		log_error("%s: no mtx collect --control answers there (%s)", argv[optind], strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_FAILURE_MTX;
	}
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
		log_error("%s: %s", argv[optind], strerror(errno));
		close(fd);
		return EXIT_FAILURE_MTX;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		if (poll(&p, 1, CTL_REPLY_MS) <= 0 || (n = read(fd, reply + got, sizeof(reply) - 1 - got)) <= 0)
			break;
		got += (size_t)n;
		if (got == sizeof(reply) - 1)
			break;
	}
	close(fd);
	reply[got] = 0;
	if (!got || reply[got - 1] != '\n') {
		log_error("%s: the collector did not answer", argv[optind]);
		return EXIT_FAILURE_MTX;
	}
	reply[got - 1] = 0;
	reply_text(reply, text, sizeof(text));
	if (json)
		puts(reply);
	if (strncmp(reply, "{\"ok\": true", 11) != 0) {
		log_error("%s", text);
		return EXIT_FAILURE_MTX;
	}
	if (!json)
		puts(text);
	return 0;
}

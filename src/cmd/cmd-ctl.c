/* src/cmd/cmd-ctl.c - 'mtx ctl SOCK COMMAND...': tell a running mtx collect
 * --control SOCK what to switch on or off (collector/instrument.h). */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/ctl-client.h"
#include "src/log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

const char cmd_ctl_usage[] =
	"usage: mtx ctl [--json] SOCK COMMAND...\n"
	"\n"
	"Change, at once, what a running mtx collect records, or ask what it has\n"
	"seen so far, through the socket SOCK its control option opened:\n"
	"\n"
	"  probe add [LIB:]REGEX   uprobes on every call of the functions REGEX\n"
	"                          matches (chosen as mtx collect's are)\n"
	"  probe del N             remove probe N: its calls still open end now\n"
	"  probe list              the probes, their calls and cost so far\n"
	"  source on|off NAME      syscalls, wakeups, interrupts, samples or sync\n"
	"  phase NAME              a phase of the run called NAME begins now\n"
	"  live                    the run so far: each thread's time in each state\n"
	"                          and in lock waits, the busiest sync objects\n"
	"                          (all of it with --json; mtx browse shows them live)\n"
	"\n"
	"      --json              print the collector's reply as it is: one JSON\n"
	"                          object, {\"ok\": ..., \"text\": ..., ...}\n"
	"  -h, --help              this text\n"
	"\n"
	"Exits 0 when the collector did it, 1 when it refused (one line says why) or\n"
	"cannot be reached, 2 for a bad command line.\n";

int cmd_ctl(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_un addr;
	char line[1024] = "", *reply = NULL, *err = NULL, text[65536];
	int opt, json = 0, rc;

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
	for (int i = optind + 1; i < argc; i++) {
		size_t len = strlen(line);
		if (len + strlen(argv[i]) + 2 >= sizeof(line))
			return cmd_usage_error("ctl", "the command is too long");
		snprintf(line + len, sizeof(line) - len, "%s%s", len ? " " : "", argv[i]);
	}
	if ((rc = ctl_ask(argv[optind], line, CTL_REPLY_MS, &reply, &err))) {
		log_error("%s", err ? err : strerror(-rc));
		free(err);
		return EXIT_FAILURE_MTX;
	}
	ctl_reply_text(reply, text, sizeof(text));
	if (json)
		puts(reply);
	if (strncmp(reply, "{\"ok\": true", 11) != 0) {
		log_error("%s", text);
		free(reply);
		return EXIT_FAILURE_MTX;
	}
	if (!json)
		puts(text);
	free(reply);
	return 0;
}

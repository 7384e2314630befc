/*
 * tests/e2e/sigcount.c - counts the SIGTERM, SIGINT and SIGHUP it gets.
 *
 * Usage: sigcount [READY]
 *
 * Creates the file READY, if given, once its handlers are in. Waits for
 * the first of them, then 1 s more for any other (a signal sent
 * twice, e.g. to a group and passed on by a tracer as well), and prints how
 * many of each it got. Exit 0.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t got[3];

static void on_signal(int sig)
{
	got[sig == SIGTERM ? 0 : sig == SIGINT ? 1 : 2]++;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct timespec second = { 1, 0 };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (argc > 1)
		close(open(argv[1], O_WRONLY | O_CREAT, 0600));
	while (!got[0] && !got[1] && !got[2])
		nanosleep(&second, NULL); /* a signal ends the sleep */
	while (nanosleep(&second, &second) != 0)
		;
	printf("TERM %d INT %d HUP %d\n", (int)got[0], (int)got[1], (int)got[2]);
	return 0;
}

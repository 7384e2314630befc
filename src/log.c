/* src/log.c - see log.h. */
#include "config.h"
#include "src/log.h"

#include <pthread.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

static enum log_level current_level = LOG_NORMAL;

/* The status line (log_status) as shown, "" when none; the lock keeps a
 * line logged by one thread from landing inside another's status line. */
static pthread_mutex_t stderr_lock = PTHREAD_MUTEX_INITIALIZER;
static char status_shown[512];

/* Erase the status line, the cursor back at its start ("\r", then ANSI
 * erase to the end of the line). Under stderr_lock. */
static void status_erase(void)
{
	if (status_shown[0])
		fputs("\r\033[K", stderr);
}

static void status_draw(void)
{
	if (status_shown[0])
		fputs(status_shown, stderr);
	fflush(stderr);
}

void log_set_level(enum log_level level)
{
	current_level = level;
}

/*
 * Every message is one line: control characters that come with the data
 * it names (a program path holding a newline) are written escaped, as
 * \n, \t or \xHH.
 */
static void log_line(const char *prefix, const char *fmt, va_list ap)
{
	/* Build the line first so it reaches stderr in one write. */
	char buf[1024], line[4 * sizeof(buf) + 1];
	size_t at = 0;
	int n = snprintf(buf, sizeof(buf), "mtx: %s", prefix);
	if (n < 0)
		return;
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	for (const unsigned char *p = (const unsigned char *)buf; *p; p++) {
		if (*p == '\n' || *p == '\t')
			at += (size_t)snprintf(line + at, sizeof(line) - at, "\\%c", *p == '\n' ? 'n' : 't');
		else if (*p < ' ' || *p == 0x7f)
			at += (size_t)snprintf(line + at, sizeof(line) - at, "\\x%02x", *p);
		else
			line[at++] = (char)*p;
	}
	line[at] = 0;
	pthread_mutex_lock(&stderr_lock);
	status_erase();
	fprintf(stderr, "%s\n", line);
	status_draw();
	pthread_mutex_unlock(&stderr_lock);
}

void log_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_line("", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;
	if (current_level < LOG_NORMAL)
		return;
	va_start(ap, fmt);
	log_line("warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;
	if (current_level < LOG_NORMAL)
		return;
	va_start(ap, fmt);
	log_line("", fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;
	if (current_level < LOG_VERBOSE)
		return;
	va_start(ap, fmt);
	log_line("", fmt, ap);
	va_end(ap);
}

int log_status(const char *text)
{
	struct winsize ws;
	int width = 80;

	if (current_level < LOG_NORMAL || !isatty(STDERR_FILENO))
		return 0;
	/* One line less than the terminal is wide: a line that wraps could
	 * not be rewritten in place. */
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		width = ws.ws_col;
	pthread_mutex_lock(&stderr_lock);
	status_erase();
	if (text)
		snprintf(status_shown, sizeof(status_shown), "mtx: %.*s", width > 6 ? width - 6 : 0, text);
	else
		status_shown[0] = 0;
	status_draw();
	pthread_mutex_unlock(&stderr_lock);
	return 1;
}

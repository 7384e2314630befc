/* src/log.c - see log.h. */
#include "config.h"
#include "src/log.h"

#include <stdio.h>

static enum log_level current_level = LOG_NORMAL;

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
	fprintf(stderr, "%s\n", line);
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

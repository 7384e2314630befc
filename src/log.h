/*
 * src/log.h - messages to stderr. The traced program owns stdout; mtx only
 * ever writes its status and errors to stderr, each prefixed "mtx: ".
 */
#ifndef MTX_LOG_H
#define MTX_LOG_H

#include <stdarg.h>

enum log_level { LOG_QUIET = 0, LOG_NORMAL = 1, LOG_VERBOSE = 2 };

/* "s" for a count @n of things but one: "%llu thread%s", n, plural_s(n). */
static inline const char *plural_s(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

/* Set how much log_info/log_debug print (errors always print). */
void log_set_level(enum log_level level);
/* One error line: "mtx: <message>". */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning line: "mtx: warning: <message>", unless quiet. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A status line, unless quiet. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line shown only with -v. */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * log_status - show @line ("mtx: " added) as the status line at the foot of
 * stderr, rewritten in place, when stderr is a terminal and mtx is not
 * quiet; NULL clears it. Lines logged meanwhile go above it. Safe to call
 * from any thread. Returns whether a status line can be shown at all.
 */
int log_status(const char *line);

#endif

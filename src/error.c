/* src/error.c - see error.h. */
#include "config.h"
#include "src/error.h"

#include <stdio.h>
#include <stdlib.h>

void error_vset(char **err, const char *fmt, va_list ap)
{
	char *msg;

	if (!err)
		return;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	free(*err);
	*err = msg;
}

void error_set(char **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vset(err, fmt, ap);
	va_end(ap);
}

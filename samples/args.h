/*
 * samples/args.h - the one argument parser every sample uses: a decimal
 * number within [min, max], or -1 (the sample then prints its usage line).
 */
#ifndef MTX_SAMPLES_ARGS_H
#define MTX_SAMPLES_ARGS_H

#include <errno.h>
#include <stdlib.h>

/* Never instrumented (-pg, -finstrument-functions): parsing arguments is
 * not part of what a sample counts about itself. */
__attribute__((no_instrument_function))
static inline int parse_arg(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

#endif

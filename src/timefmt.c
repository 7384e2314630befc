/* src/timefmt.c - see timefmt.h. */
#include "config.h"
#include "src/timefmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *timefmt_duration(uint64_t ns, char *buf, size_t size)
{
	if (ns < 1000)
		snprintf(buf, size, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.2f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.2f ms", (double)ns / 1e6);
	else if (ns < 60000000000ull)
		snprintf(buf, size, "%.3f s", (double)ns / 1e9);
	else
		snprintf(buf, size, "%llum%02llus", (unsigned long long)(ns / 60000000000ull),
			 (unsigned long long)(ns / 1000000000ull % 60));
	return buf;
}

int timefmt_parse_offset(const char *text, int64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 },
	};
	char *end;
	double v = strtod(text, &end);
	if (end == text || v < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			*ns = (int64_t)(v * units[i].ns);
			return 0;
		}
	return -EINVAL;
}

int timefmt_parse_range(const char *text, int64_t *from_ns, int64_t *to_ns)
{
	size_t len = strlen(text);
	char *left = malloc(len + 1);
	int rc = -EINVAL;

	if (!left)
		return -ENOMEM;
	/* The dash between the two: not part of either (a time is never
	 * negative, but "1e-3s" holds one). */
	for (const char *dash = strchr(text, '-'); dash && rc == -EINVAL; dash = strchr(dash + 1, '-')) {
		memcpy(left, text, (size_t)(dash - text));
		left[dash - text] = '\0';
		if (!timefmt_parse_offset(left, from_ns) && !timefmt_parse_offset(dash + 1, to_ns))
			rc = *to_ns > *from_ns ? 0 : -ERANGE;
	}
	free(left);
	return rc;
}

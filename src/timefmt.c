/* src/timefmt.c - see timefmt.h. */
#include "config.h"
#include "src/timefmt.h"

#include <stdio.h>

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

/*
 * collector/sync/inject-overhead.c - reading --inject-overhead (see
 * inject-overhead.h).
 */
#include "config.h"
#include "collector/sync/inject-overhead.h"
#include "src/error.h"
#include "src/timefmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sync_inject_parse(const char *text, struct sync_inject *out, char **err)
{
	const char *p = text, *colon = strchr(text, ':');
	size_t len = colon ? (size_t)(colon - text) : strlen(text);
	char duration[32];
	int64_t ns;

	memset(out, 0, sizeof(*out));
	out->text = text;
	snprintf(duration, sizeof(duration), "%.*s", (int)len, text);
	if (len >= sizeof(duration) || timefmt_parse_offset(duration, &ns) || ns <= 0 ||
	    (uint64_t)ns > SYNC_INJECT_MAX_NS) {
		error_set(err, "--inject-overhead takes a duration from 1ns to 1s (e.g. 20us, 1ms), not '%.*s'",
			  (int)len, text);
		return -EINVAL;
	}
	out->delay_ns = (uint64_t)ns;
	for (p = colon; p; p = colon) {
		p++;
		colon = strchr(p, ':');
		len = colon ? (size_t)(colon - p) : strlen(p);
		if (len == 4 && !strncmp(p, "sync", 4))
			continue;
		if (!strncmp(p, "thread=", 7) && !out->tid && !out->thread[0]) {
			/* a name may hold ':': the rest is the name */
			len = strlen(p + 7);
			if (len == 0 || len >= sizeof(out->thread)) {
				error_set(err, "--inject-overhead: a thread name has 1 to 15 characters, not '%s'", p + 7);
				return -EINVAL;
			}
			memcpy(out->thread, p + 7, len + 1);
			break;
		}
		if (!strncmp(p, "tid=", 4) && !out->tid && !out->thread[0]) {
			char *end;
			long tid = strtol(p + 4, &end, 10);

			if (end != p + len || end == p + 4 || tid <= 0 || tid > INT32_MAX) {
				error_set(err, "--inject-overhead: tid= takes a thread id, not '%.*s'",
					  (int)(len - 4), p + 4);
				return -EINVAL;
			}
			out->tid = (int32_t)tid;
			continue;
		}
		error_set(err, "--inject-overhead: '%.*s' is not a scope: DURATION[:sync][:tid=N|:thread=NAME]",
			  (int)len, p);
		return -EINVAL;
	}
	return 0;
}

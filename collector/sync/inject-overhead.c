/*
 * collector/sync/inject-overhead.c - reading --inject-overhead (see
 * inject-overhead.h).
 */
#include "config.h"
#include "collector/sync/inject-overhead.h"
#include "collector/preload/shm.h"
#include "src/error.h"
#include "src/timefmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INJECT_SYNTAX "DURATION[:sync][:op=OP[,OP...]][:tid=N|:thread=NAME]"

/* The ops of "op=" (@list, @len bytes: names of sync_ops.op, commas
 * between) into @ops. Returns 0 or -EINVAL with @err. */
static int parse_ops(const char *list, size_t len, uint64_t *ops, char **err)
{
	const char *p = list, *end = list + len;

	_Static_assert(MTX_SYNC_OP__COUNT <= 64, "an op is a bit of sync_inject.ops");
	while (p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);
		unsigned op = 0;

		/* setsched is a thread's class change, never a sync_ops row */
		while (op < MTX_SYNC_OP__COUNT && (op == MTX_SYNC_OP_SETSCHED || strlen(sync_op_name(op)) != n ||
						   strncmp(sync_op_name(op), p, n)))
			op++;
		if (op == MTX_SYNC_OP__COUNT) {
			error_set(err, "--inject-overhead: op= takes ops as sync_ops.op names them (lock, unlock, "
				       "wait, post, signal, ...), commas between, not '%.*s'",
				  (int)n, p);
			return -EINVAL;
		}
		*ops |= 1ull << op;
		p += n + 1;
	}
	return 0;
}

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
		if ((len == 5 && !strncmp(p, "calls", 5)) || (len == 3 && !strncmp(p, "all", 3))) {
			error_set(err, "--inject-overhead: '%.*s' is not a scope mtx can inject into: only sync "
				       "calls wait (the -pg hooks' cost is calibrated, not measured per call; see "
				       "mtx-collect(1))",
				  (int)len, p);
			return -EINVAL;
		}
		if (!strncmp(p, "op=", 3) && !out->ops) {
			if (parse_ops(p + 3, len - 3, &out->ops, err))
				return -EINVAL;
			continue;
		}
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
		error_set(err, "--inject-overhead: '%.*s' is not a scope: " INJECT_SYNTAX, (int)len, p);
		return -EINVAL;
	}
	return 0;
}

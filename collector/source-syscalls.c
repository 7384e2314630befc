/*
 * collector/source-syscalls.c - syscall entry and exit of traced threads
 * (raw_syscalls:sys_enter / sys_exit); the model pairs them.
 */
#include "config.h"
#include "collector/session.h"
#include "collector/source.h"
#include "collector/tracepoint.h"

#include <errno.h>
#include <stdlib.h>

enum { TAG_ENTER, TAG_EXIT };

struct syscalls_layout {
	struct tp_field enter_id, enter_args, exit_id, exit_ret;
};

static int syscalls_layout(struct mtx_session *s)
{
	struct syscalls_layout *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	s->source_state[MTX_SRC_SYSCALLS] = l;
	if (tp_lookup("raw_syscalls", "sys_enter", "id", &l->enter_id) ||
	    tp_lookup("raw_syscalls", "sys_enter", "args", &l->enter_args) ||
	    tp_lookup("raw_syscalls", "sys_exit", "id", &l->exit_id) ||
	    tp_lookup("raw_syscalls", "sys_exit", "ret", &l->exit_ret))
		return session_set_error(s, -EINVAL, "raw_syscalls tracepoints are missing from tracefs or have an unknown format");
	/* args is an array of six longs: read the first two. */
	l->enter_args.size = 8;
	return 0;
}

static int syscalls_open(struct mtx_session *s)
{
	struct perf_event_attr attr;
	long enter = tracepoint_id("raw_syscalls", "sys_enter");
	long exit_ = tracepoint_id("raw_syscalls", "sys_exit");
	int rc;

	if (enter < 0 || exit_ < 0)
		return session_set_error(s, -ENOENT, "no raw_syscalls tracepoints in tracefs");

	tp_attr(&attr, enter);
	attr.inherit = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	rc = session_add_event(s, &attr, &source_syscalls, TAG_ENTER, 0);
	if (rc)
		return rc;
	tp_attr(&attr, exit_);
	attr.inherit = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	return session_add_event(s, &attr, &source_syscalls, TAG_EXIT, 0);
}

static int syscalls_decode(struct mtx_session *s, int tag, const struct perf_sample *sample, struct mtx_event *ev)
{
	const struct syscalls_layout *l = s->source_state[MTX_SRC_SYSCALLS];
	if (tag == TAG_ENTER) {
		struct tp_field arg1 = { l->enter_args.offset + 8, 8 };
		ev->type = MTX_EV_SYS_ENTER;
		ev->u.sys_enter.nr = tp_read(sample, &l->enter_id, -1);
		ev->u.sys_enter.arg0 = (uint64_t)tp_read(sample, &l->enter_args, 0);
		ev->u.sys_enter.arg1 = (uint64_t)tp_read(sample, &arg1, 0);
	} else {
		ev->type = MTX_EV_SYS_EXIT;
		ev->u.sys_exit.nr = tp_read(sample, &l->exit_id, -1);
		ev->u.sys_exit.ret = tp_read(sample, &l->exit_ret, 0);
	}
	return 1;
}

const struct mtx_source source_syscalls = {
	.id = MTX_SRC_SYSCALLS,
	.name = "syscalls",
	.summary = "every syscall with its arguments' first values and return value (can be costly)",
	.layout = syscalls_layout,
	.open = syscalls_open,
	.nr_tags = 2,
	.decode = syscalls_decode,
};

/*
 * tests/unit/test-decode.c - decoding stored perf record bytes into events
 * through an offline session (no perf access needed; tracepoint payload
 * layouts come from tracefs, so those cases skip where it is absent).
 */
#include "config.h"
#include "collector/session.h"
#include "collector/source.h"
#include "tests/unit/record-builder.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>

struct sink {
	struct mtx_event ev[64];
	size_t n;
};

static void collect(void *ctx, const struct mtx_event *ev)
{
	struct sink *s = ctx;
	if (s->n < 64)
		s->ev[s->n++] = *ev;
}

static struct mtx_session session;

static void setup(void)
{
	char *err = NULL;
	if (tracefs_ensure(&err) != 0) {
		free(err);
		cr_skip_test("tracefs is not available here (needs root or a mounted tracefs)");
	}
	cr_assert_eq(session_open_offline(&session, 2), 0, "%s", session.error ? session.error : "");
}

static void teardown(void)
{
	session_close(&session);
}

TestSuite(decode, .init = setup, .fini = teardown);

Test(decode, task_records)
{
	struct rec r;
	struct sink s = { .n = 0 };
	uint64_t leader = session_offline_id(NULL, 0);
	uint32_t fork_body[6] = { 100, 100, 101, 100 }; /* pid ppid tid ptid, u64 time */
	char comm[16] = "worker-1";
	uint32_t comm_body[6] = { 100, 101 };
	memcpy(&comm_body[2], comm, 16);

	session_decode_record(&session, 0, rec_other(&r, PERF_RECORD_FORK, 0, fork_body, 24, 100, 100, 1000, 0, leader));
	session_decode_record(&session, 1, rec_other(&r, PERF_RECORD_COMM, 0, comm_body, 24, 100, 101, 2000, 1, leader));
	session_decode_record(&session, 1, rec_other(&r, PERF_RECORD_SWITCH, 0, NULL, 0, 100, 101, 1500, 1, leader));
	session_decode_record(&session, 1,
			      rec_other(&r, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, NULL, 0, 100, 101, 2500, 1, leader));
	session_decode_record(&session, 0, rec_other(&r, PERF_RECORD_EXIT, 0, fork_body, 24, 100, 101, 3000, 0, leader));
	order_flush(&session.order, UINT64_MAX, collect, &s);

	/* The switch-out record is dropped: sched:sched_switch carries it. */
	cr_assert_eq(s.n, 4);
	cr_assert_eq(s.ev[0].type, MTX_EV_FORK);
	cr_assert_eq(s.ev[0].tid, 101);
	cr_assert_eq(s.ev[0].pid, 100);
	cr_assert_eq(s.ev[0].u.fork.ptid, 100);
	cr_assert_eq(s.ev[1].type, MTX_EV_SWITCH_IN);
	cr_assert_eq(s.ev[1].ts_ns, 1500);
	cr_assert_eq(s.ev[1].cpu, 1);
	cr_assert_eq(s.ev[2].type, MTX_EV_COMM);
	cr_assert_str_eq(s.ev[2].u.comm.comm, "worker-1");
	cr_assert_eq(s.ev[3].type, MTX_EV_EXIT);
	cr_assert_eq(session.undecodable, 0);
}

Test(decode, sched_switch_sample)
{
	struct rec r;
	struct sink s = { .n = 0 };
	uint8_t raw[128] = { 0 };
	int off_state, size_state, off_next, size_next;

	cr_assert_eq(tracepoint_field("sched", "sched_switch", "prev_state", &off_state, &size_state), 0);
	cr_assert_eq(tracepoint_field("sched", "sched_switch", "next_pid", &off_next, &size_next), 0);
	raw_put(raw, off_state, size_state, 1); /* S */
	raw_put(raw, off_next, size_next, 4242);
	session_decode_record(&session, 0,
			      rec_sample(&r, session_offline_id(&source_sched, 0), 100, 101, 5000, 0, raw, 68));
	order_flush(&session.order, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.ev[0].type, MTX_EV_SWITCH_OUT);
	cr_assert_eq(s.ev[0].tid, 101);
	cr_assert_eq(s.ev[0].u.sw.next_tid, 4242);
	cr_assert_eq(s.ev[0].u.sw.prev_state, 1);
	cr_assert_eq(s.ev[0].u.sw.preempt, 0);
}

Test(decode, syscall_samples)
{
	struct rec r;
	struct sink s = { .n = 0 };
	uint8_t raw[128] = { 0 };
	int off_id, size_id, off_args, size_args, off_ret, size_ret;

	cr_assert_eq(tracepoint_field("raw_syscalls", "sys_enter", "id", &off_id, &size_id), 0);
	cr_assert_eq(tracepoint_field("raw_syscalls", "sys_enter", "args", &off_args, &size_args), 0);
	raw_put(raw, off_id, size_id, 231); /* exit_group */
	raw_put(raw, off_args, 8, 7);
	session_decode_record(&session, 0,
			      rec_sample(&r, session_offline_id(&source_syscalls, 0), 100, 100, 10, 0, raw, 64));
	memset(raw, 0, sizeof(raw));
	cr_assert_eq(tracepoint_field("raw_syscalls", "sys_exit", "id", &off_id, &size_id), 0);
	cr_assert_eq(tracepoint_field("raw_syscalls", "sys_exit", "ret", &off_ret, &size_ret), 0);
	raw_put(raw, off_id, size_id, 0);
	raw_put(raw, off_ret, size_ret, -11);
	session_decode_record(&session, 1,
			      rec_sample(&r, session_offline_id(&source_syscalls, 1), 100, 100, 20, 1, raw, 24));
	order_flush(&session.order, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.ev[0].type, MTX_EV_SYS_ENTER);
	cr_assert_eq(s.ev[0].u.sys_enter.nr, 231);
	cr_assert_eq(s.ev[0].u.sys_enter.arg0, 7);
	cr_assert_eq(s.ev[1].type, MTX_EV_SYS_EXIT);
	cr_assert_eq(s.ev[1].u.sys_exit.ret, -11);
}

Test(decode, lost_records_are_counted_per_source)
{
	struct rec r;
	uint64_t body[2] = { session_offline_id(&source_syscalls, 0), 17 };
	session_decode_record(&session, 0,
			      rec_other(&r, PERF_RECORD_LOST, 0, body, 16, 0, 0, 1, 0, session_offline_id(NULL, 0)));
	/* no event of an offline session has a count to read: the record's */
	session_count_lost(&session);
	cr_assert_eq(session.lost[MTX_SRC_SYSCALLS], 17);
	cr_assert_eq(session.lost[MTX_SRC_SCHED], 0);
}

Test(decode, truncated_and_unknown_records_are_counted_not_trusted)
{
	struct rec r;
	struct sink s = { .n = 0 };
	uint8_t raw[8] = { 0 };
	rec_sample(&r, 999999, 1, 1, 1, 0, raw, 8); /* an id nobody opened */
	session_decode_record(&session, 0, &r.hdr);
	r.hdr.type = PERF_RECORD_FORK;
	r.hdr.size = sizeof(r.hdr) + 8; /* shorter than a sample_id trailer */
	session_decode_record(&session, 0, &r.hdr);
	order_flush(&session.order, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, 0);
	cr_assert_eq(session.undecodable, 2);
}

/* A cpu-clock sample of --call-graph dwarf: identifier, tid, time, cpu,
 * the callchain, the user registers (abi, then MTX_NR_REGS_USER values:
 * 100 + perf's index), and a user stack copy of @stack_size bytes of
 * which @dyn_size were readable. Returns the record's size. */
static uint16_t dwarf_sample(struct rec *r, uint64_t abi, uint64_t stack_size, uint64_t dyn_size)
{
	uint8_t *p = r->bytes + sizeof(struct perf_event_header);
	uint64_t v[] = { 7, (uint64_t)42 << 32 | 41, 1000, 1, 2, (uint64_t)PERF_CONTEXT_USER, 0x401000, abi };
	memset(r, 0, sizeof(*r));
	memcpy(p, v, sizeof(v));
	p += sizeof(v);
	for (uint64_t i = 0; abi && i < MTX_NR_REGS_USER; i++, p += 8) {
		uint64_t reg = 100 + i;
		memcpy(p, &reg, 8);
	}
	memcpy(p, &stack_size, 8);
	p += 8;
	for (uint64_t i = 0; i < stack_size; i++)
		*p++ = (uint8_t)i;
	if (stack_size) {
		memcpy(p, &dyn_size, 8);
		p += 8;
	}
	r->hdr.type = PERF_RECORD_SAMPLE;
	r->hdr.size = (uint16_t)(p - r->bytes);
	return r->hdr.size;
}

#define DWARF_EXTRA (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

Test(decode_dwarf, registers_and_stack_copy)
{
	struct rec r;
	struct perf_sample sample;
	struct mtx_event ev = { 0 };
	const struct mtx_user_stack *st;

	dwarf_sample(&r, PERF_SAMPLE_REGS_ABI_64, 32, 24);
	cr_assert_eq(perf_sample_parse(&r.hdr, DWARF_EXTRA, &sample), 0);
	cr_assert_eq(sample.nr_callchain, 2);
	cr_assert_not_null(sample.regs_user);
	cr_assert_eq(sample.stack_user_size, 24, "only dyn_size bytes are the stack's");
	cr_assert_eq(source_samples.decode(NULL, 0, &sample, &ev), 1);
	cr_assert_eq(ev.u.sample.nr, 1);
	cr_assert_eq(ev.u.sample.pcs[0], 0x401000);
	st = ev.u.sample.stack;
	cr_assert_not_null(st);
	/* perf order ax bx cx dx si di bp sp ip r8..r15 -> DWARF numbers. */
	cr_assert_eq(st->regs[0], 100, "rax");
	cr_assert_eq(st->regs[3], 101, "rbx");
	cr_assert_eq(st->regs[1], 103, "rdx");
	cr_assert_eq(st->regs[6], 106, "rbp");
	cr_assert_eq(st->regs[7], 107, "rsp");
	cr_assert_eq(st->regs[16], 108, "rip");
	cr_assert_eq(st->regs[8], 109, "r8");
	cr_assert_eq(st->regs[15], 116, "r15");
	cr_assert_eq(st->size, 24);
	cr_assert_eq(st->data[23], 23);
	free(ev.u.sample.pcs);
	free(ev.u.sample.stack);
}

Test(decode_dwarf, no_user_state_and_truncated_records)
{
	struct rec r;
	struct perf_sample sample;
	struct mtx_event ev = { 0 };

	/* A kernel thread: abi NONE, no registers; an empty copy. */
	dwarf_sample(&r, PERF_SAMPLE_REGS_ABI_NONE, 0, 0);
	cr_assert_eq(perf_sample_parse(&r.hdr, DWARF_EXTRA, &sample), 0);
	cr_assert_null(sample.regs_user);
	cr_assert_null(sample.stack_user);
	cr_assert_eq(source_samples.decode(NULL, 0, &sample, &ev), 1);
	cr_assert_null(ev.u.sample.stack);
	free(ev.u.sample.pcs);

	/* Cut before dyn_size, or inside the registers: not trusted. */
	r.hdr.size = (uint16_t)(dwarf_sample(&r, PERF_SAMPLE_REGS_ABI_64, 32, 32) - 8);
	cr_assert_eq(perf_sample_parse(&r.hdr, DWARF_EXTRA, &sample), -EINVAL);
	r.hdr.size = (uint16_t)(sizeof(r.hdr) + 8 * 8 + 8 * 4);
	cr_assert_eq(perf_sample_parse(&r.hdr, DWARF_EXTRA, &sample), -EINVAL);
}

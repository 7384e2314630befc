/*
 * collector/calibrate.c - what one kernel record costs the thread it is
 * recorded for, measured on the collector's own thread before the program
 * starts (seed 004 §4.2 calibrates the same way; SEEDS-MAP P1: kernel-side
 * costs are calibrated, not measured).
 *
 * Each calibrated source times a burst of work, alternately without and
 * with the source's perf events open on this thread (the same attributes
 * the run uses, a ring of their own, whose records are counted), for
 * several rounds. Each round gives an estimate, (with - without) /
 * records; the result is the median, and only when the rounds around it
 * agree within CAL_SPREAD of it. Anything else (a preempted round, a
 * throttled sampler, a burst lost in the noise) stores nothing, and `mtx
 * report overhead` then says "not calibrated" instead of charging a
 * made-up figure.
 *
 * Calibrated: syscalls (a getppid()'s enter and exit records, as one), CPU
 * samples (cpu-clock with call chains, at a high rate so that a short
 * spin takes many), and switches and wakeups (this thread and a partner,
 * both on this CPU, handing it back and forth through a futex: the CPU
 * time of both), and with --functions uprobes (an entry and a return probe,
 * defined like the run's, on a function of mtx's own; opened once for all
 * rounds, as opening a new probe takes milliseconds). Not calibrated: the
 * -pg hooks.
 * Each calibrates only when the run opens the same tracepoint (the first
 * user of a tracepoint takes ~20 ms to open and close). The whole takes
 * about 30 ms.
 */
#include "config.h"
#include "collector/calibrate.h"
#include "collector/perf.h"
#include "collector/source.h"
#include "collector/tracepoint.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CAL_ROUNDS 5
#define CAL_SYSCALLS 1000       /* getppid()s a round */
#define CAL_HANDOFFS 100        /* round trips of the CPU a round: 200 switches */
#define CAL_SPIN_NS 3000000ull  /* a sample round's CPU work */
#define CAL_SAMPLE_PERIOD_NS 100000ull
#define CAL_RING_PAGES 128      /* per event: a round's records fit */
/* The largest relative difference between the estimates from the fastest
 * and the second-fastest rounds that is still a result. */
#define CAL_SPREAD 0.25

/* Events open for one round; fds < 0 are unused. */
struct cal_events {
	int fd[2];
	void *ring[2];
	size_t ring_size;
};

static void cal_close(struct cal_events *e)
{
	for (int i = 0; i < 2; i++) {
		if (e->ring[i] && e->ring[i] != MAP_FAILED)
			munmap(e->ring[i], e->ring_size);
		if (e->fd[i] >= 0)
			close(e->fd[i]);
		e->fd[i] = -1;
		e->ring[i] = NULL;
	}
}

/* The records of type @type event @i wrote into its ring (which holds a
 * round's records without wrapping). */
static uint64_t cal_records(const struct cal_events *e, int i, uint32_t type)
{
	const struct perf_event_mmap_page *page = e->ring[i];
	const char *data = (const char *)e->ring[i] + page->data_offset;
	uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE), n = 0;

	if (head > page->data_size)
		return 0; /* wrapped: not counted */
	for (uint64_t off = 0; off + sizeof(struct perf_event_header) <= head;) {
		const struct perf_event_header *h = (const void *)(data + off);

		if (h->size == 0)
			break;
		n += h->type == type;
		off += h->size;
	}
	return n;
}

/* Open @n events of @attrs, event i on thread @tids[i] (NULL: all on this
 * thread), each with a ring. 0 or -errno. */
static int cal_open(struct cal_events *e, struct perf_event_attr *attrs, const pid_t *tids, int n)
{
	e->ring_size = (size_t)(CAL_RING_PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE);
	e->fd[0] = e->fd[1] = -1;
	e->ring[0] = e->ring[1] = NULL;
	for (int i = 0; i < n; i++) {
		e->fd[i] = perf_open(&attrs[i], tids ? tids[i] : 0, -1, -1);
		if (e->fd[i] < 0) {
			int rc = e->fd[i];
			cal_close(e);
			return rc;
		}
		e->ring[i] = mmap(NULL, e->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd[i], 0);
		if (e->ring[i] == MAP_FAILED) {
			int rc = -errno;
			cal_close(e);
			return rc;
		}
	}
	return 0;
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* This thread's CPU time: a preemption in a burst does not count. */
static uint64_t cpu_now_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static uint64_t burst_syscalls(void *unused)
{
	(void)unused;
	uint64_t t0 = cpu_now_ns();

	for (int i = 0; i < CAL_SYSCALLS; i++)
		syscall(SYS_getppid);
	return cpu_now_ns() - t0;
}

static volatile uint64_t spin_sink;

/* Spin for about CAL_SPIN_NS of CPU time, the same work each call: the
 * iterations are counted once (*@iters 0), then repeated. */
static uint64_t burst_spin(void *arg)
{
	uint64_t *iters = arg;
	uint64_t t0 = cpu_now_ns(), x = 1, n = 0;

	if (!*iters) {
		while (cpu_now_ns() - t0 < CAL_SPIN_NS)
			for (int i = 0; i < 1000; i++, n++)
				x = x * 6364136223846793005ull + 1442695040888963407ull;
		*iters = n;
	} else {
		for (n = 0; n < *iters; n++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	}
	spin_sink = x;
	return cpu_now_ns() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The cost of one record from the rounds' times @without and @with (and
 * the @records that made the difference), or 0 when not clearly measured. */
static uint64_t per_record(const uint64_t *without, const uint64_t *with, const uint64_t *records)
{
	double est[CAL_ROUNDS], median;

	for (int r = 0; r < CAL_ROUNDS; r++) {
		if (!records[r])
			return 0;
		est[r] = ((double)with[r] - (double)without[r]) / (double)records[r];
	}
	qsort(est, CAL_ROUNDS, sizeof(est[0]), cmp_double);
	median = est[CAL_ROUNDS / 2];
	if (median < 1 || est[CAL_ROUNDS / 2 - 1] < (1 - CAL_SPREAD) * median ||
	    est[CAL_ROUNDS / 2 + 1] > (1 + CAL_SPREAD) * median)
		return 0;
	return (uint64_t)(median + 0.5);
}

/*
 * The rounds of a calibration: @burst(@ctx) (its CPU time) without, then
 * with @n events of @attrs open (event i on thread @tids[i], NULL: this
 * thread); the records that made the difference are the samples of
 * events @counted to @n - 1. The cost of one, or 0 (per_record).
 */
static uint64_t cal_rounds(uint64_t (*burst)(void *ctx), void *ctx, struct perf_event_attr *attrs,
			   const pid_t *tids, int n, int counted)
{
	uint64_t without[CAL_ROUNDS], with[CAL_ROUNDS], records[CAL_ROUNDS];

	for (int r = 0; r < CAL_ROUNDS; r++) {
		struct cal_events e;

		without[r] = burst(ctx);
		if (cal_open(&e, attrs, tids, n))
			return 0;
		with[r] = burst(ctx);
		records[r] = 0;
		for (int i = counted; i < n; i++)
			records[r] += cal_records(&e, i, PERF_RECORD_SAMPLE);
		cal_close(&e);
	}
	return per_record(without, with, records);
}

static uint64_t calibrate_syscalls(void)
{
	struct perf_event_attr attrs[2];
	long enter = tracepoint_id("raw_syscalls", "sys_enter");
	long exit_ = tracepoint_id("raw_syscalls", "sys_exit");

	if (enter < 0 || exit_ < 0)
		return 0;
	tp_attr(&attrs[0], enter);
	tp_attr(&attrs[1], exit_);
	/* a pair a syscall: counted by its exits */
	return cal_rounds(burst_syscalls, NULL, attrs, NULL, 2, 1);
}

static uint64_t calibrate_samples(unsigned stack_bytes)
{
	struct perf_event_attr attr;
	uint64_t iters = 0;

	perf_attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	attr.sample_period = CAL_SAMPLE_PERIOD_NS;
	attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	attr.exclude_callchain_kernel = 1;
	if (stack_bytes) {
		attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr.sample_regs_user = MTX_REGS_USER_MASK;
		attr.sample_stack_user = stack_bytes;
	}
	burst_spin(&iters); /* count the work once */
	return cal_rounds(burst_spin, &iters, &attr, NULL, 1, 0);
}

/* ---- uprobes ----------------------------------------------------------- */

#define CAL_UPROBE_CALLS 200

__attribute__((noinline)) void calibrate_uprobe_target(void)
{
	__asm__ volatile("" ::: "memory");
}

static uint64_t burst_calls(void)
{
	uint64_t t0 = cpu_now_ns();

	for (int i = 0; i < CAL_UPROBE_CALLS; i++)
		calibrate_uprobe_target();
	return cpu_now_ns() - t0;
}

uint64_t calibrate_uprobes(struct mtx_writer *w, const long ids[2], int fds[2])
{
	struct perf_event_attr attrs[2];
	uint64_t without[CAL_ROUNDS], with[CAL_ROUNDS], records[CAL_ROUNDS], before = 0, ns;
	struct cal_events e;

	for (int r = 0; r < CAL_ROUNDS; r++)
		without[r] = burst_calls();
	tp_attr(&attrs[0], ids[0]);
	tp_attr(&attrs[1], ids[1]);
	fds[0] = fds[1] = -1;
	if (cal_open(&e, attrs, NULL, 2))
		return 0;
	for (int r = 0; r < CAL_ROUNDS; r++) {
		uint64_t now;

		with[r] = burst_calls();
		/* a call a pair: counted by its entries */
		now = cal_records(&e, 0, PERF_RECORD_SAMPLE);
		records[r] = now - before;
		before = now;
	}
	/* closed later with the run's events: the last close of a
	 * uprobe's event waits for an RCU grace period (~200 ms) */
	for (int i = 0; i < 2; i++) {
		ioctl(e.fd[i], PERF_EVENT_IOC_DISABLE, 0);
		fds[i] = e.fd[i];
		e.fd[i] = -1;
	}
	cal_close(&e);
	if ((ns = per_record(without, with, records)) && w)
		writer_meta_int(w, "cal_uprobes_ns", (int64_t)ns);
	return ns;
}

/* ---- switches and wakeups ------------------------------------------- */

/* Two threads on one CPU: the turn says whose it is; each waits on the
 * futex while it is the other's. */
struct handoff {
	int turn; /* 0: the caller's, 1: the partner's, 2: the partner quits */
	pid_t partner_tid;
	clockid_t partner_clock;
};

static void turn_wait(int *turn, int while_value)
{
	while (__atomic_load_n(turn, __ATOMIC_ACQUIRE) == while_value)
		syscall(SYS_futex, turn, FUTEX_WAIT_PRIVATE, while_value, NULL, NULL, 0);
}

static void turn_give(int *turn, int value)
{
	__atomic_store_n(turn, value, __ATOMIC_RELEASE);
	syscall(SYS_futex, turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *handoff_partner(void *arg)
{
	struct handoff *h = arg;

	__atomic_store_n(&h->partner_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (;;) {
		turn_wait(&h->turn, 0);
		if (__atomic_load_n(&h->turn, __ATOMIC_ACQUIRE) == 2)
			return NULL;
		turn_give(&h->turn, 0);
	}
}

/* The CPU time of both threads over CAL_HANDOFFS round trips. */
static uint64_t burst_handoffs(void *arg)
{
	struct handoff *h = arg;
	uint64_t t0 = cpu_now_ns() + clock_ns(h->partner_clock);

	for (int i = 0; i < CAL_HANDOFFS; i++) {
		turn_give(&h->turn, 1);
		turn_wait(&h->turn, 1);
	}
	return cpu_now_ns() + clock_ns(h->partner_clock) - t0;
}

/*
 * sched_switch on both threads (a switch is recorded for the thread that
 * leaves the CPU, and costs it); sched_waking on this thread only: the
 * kernel also gives a task's events the wakeups of that task, so both
 * directions land once in its ring, each costing its waker.
 */
static void calibrate_handoffs(uint64_t *switch_ns, uint64_t *wakeup_ns, bool wakeups)
{
	struct handoff h = { .turn = 0 };
	struct perf_event_attr attrs[2];
	long switch_id = tracepoint_id("sched", "sched_switch");
	long waking_id = tracepoint_id("sched", "sched_waking");
	cpu_set_t saved, one;
	pthread_t partner;
	pid_t tids[2];
	int cpu = sched_getcpu(), policy;
	struct sched_param was, top = { .sched_priority = sched_get_priority_max(SCHED_FIFO) };

	*switch_ns = *wakeup_ns = 0;
	if (switch_id < 0 || waking_id < 0 || cpu < 0 || sched_getaffinity(0, sizeof(saved), &saved) ||
	    pthread_getschedparam(pthread_self(), &policy, &was))
		return;
	/* the partner inherits the one CPU, and the real-time class when mtx
	 * may have it: pinned at normal priority, a real-time program busy on
	 * that CPU (another collection's, a test's) kept the pair off it for
	 * seconds, and the collection's start with it */
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return;
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &top);
	if (pthread_create(&partner, NULL, handoff_partner, &h)) {
		pthread_setschedparam(pthread_self(), policy, &was);
		sched_setaffinity(0, sizeof(saved), &saved);
		return;
	}
	while (!__atomic_load_n(&h.partner_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	if (!pthread_getcpuclockid(partner, &h.partner_clock)) {
		tids[0] = (pid_t)syscall(SYS_gettid);
		tids[1] = h.partner_tid;
		tp_attr(&attrs[0], switch_id);
		tp_attr(&attrs[1], switch_id);
		burst_handoffs(&h); /* warm up */
		*switch_ns = cal_rounds(burst_handoffs, &h, attrs, tids, 2, 0);
		/* only when the run has the tracepoint open already: the
		 * first user of a tracepoint costs ~20 ms to open and close */
		if (wakeups) {
			tp_attr(&attrs[0], waking_id);
			*wakeup_ns = cal_rounds(burst_handoffs, &h, attrs, tids, 1, 0);
		}
	}
	turn_give(&h.turn, 2);
	pthread_join(partner, NULL);
	pthread_setschedparam(pthread_self(), policy, &was);
	sched_setaffinity(0, sizeof(saved), &saved);
}

/* Whether --events chose @src (bit i of @mask: mtx_sources[i]). */
static int chosen(unsigned mask, const struct mtx_source *src)
{
	for (int i = 0; i < mtx_nr_sources; i++)
		if (mtx_sources[i] == src)
			return (mask >> i) & 1;
	return 0;
}

const struct mtx_record_cal calibrate_records[CAL_NR_RECORDS] = {
	[CAL_REC_SYSCALLS] = { "cal_syscalls_ns", "syscall records", "a syscall's enter and exit records" },
	[CAL_REC_SAMPLES] = { "cal_samples_ns", "CPU sample", "a CPU sample with its call chain" },
	[CAL_REC_SWITCHES] = { "cal_switches_ns", "switch record", "a context switch's record, to the thread leaving" },
	[CAL_REC_WAKEUPS] = { "cal_wakeups_ns", "wakeup record", "a wakeup's record, to the waker" },
};

void calibrate_record_costs(uint64_t ns[CAL_NR_RECORDS], unsigned sources, unsigned sample_hz,
			    unsigned sample_stack_bytes)
{
	for (int i = 0; i < CAL_NR_RECORDS; i++)
		ns[i] = 0;
	if (chosen(sources, &source_syscalls))
		ns[CAL_REC_SYSCALLS] = calibrate_syscalls();
	if (sample_hz)
		ns[CAL_REC_SAMPLES] = calibrate_samples(sample_stack_bytes);
	/* the sched source is always on */
	calibrate_handoffs(&ns[CAL_REC_SWITCHES], &ns[CAL_REC_WAKEUPS], chosen(sources, &source_wakeups));
}

void calibrate_kernel_costs(struct mtx_writer *w, unsigned sources, unsigned sample_hz,
			    unsigned sample_stack_bytes)
{
	uint64_t ns[CAL_NR_RECORDS];

	calibrate_record_costs(ns, sources, sample_hz, sample_stack_bytes);
	for (int i = 0; i < CAL_NR_RECORDS; i++)
		if (ns[i])
			writer_meta_int(w, calibrate_records[i].meta_key, (int64_t)ns[i]);
}

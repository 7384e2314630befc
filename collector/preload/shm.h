/*
 * collector/preload/shm.h - the shared-memory region between libmtx-preload.so
 * (the writers, inside the traced processes) and the collector (the reader).
 *
 * This file owns the format; collector/preload/lane.h holds the writer's code
 * and collector/sync/region.c the reader's.
 *
 * THE REGION
 *
 * One POSIX shared-memory object (a file in /dev/shm) created by the collector,
 * named in the traced program's environment:
 *
 *     MTX_SYNC_REGION=/mtx-sync-<pid>-<random>
 *
 * Every process that loads the library (the target, its forked children, and
 * whatever they exec with the environment intact) maps the same object, so one
 * collector sees the whole process tree. All integers are native-endian; the
 * writer and reader run on the same machine.
 *
 *     offset 0              struct mtx_shm_header   (MTX_SHM_HEADER_SIZE bytes)
 *     lane_offset           lane 0: struct mtx_shm_lane, then lane_records records
 *     lane_offset + stride  lane 1
 *     ...                   lane_count lanes in all
 *
 * Header fields (written once by the collector before the target starts,
 * except the loss counters):
 *
 *     magic         "MTXSYNC1" - anything else means "not a region": the library
 *                   stays a pass-through.
 *     version       MTX_SHM_VERSION; the library refuses other versions.
 *     header_size, record_size, lane_offset, lane_stride
 *                   the geometry, so a reader never guesses.
 *     lane_count    number of lanes.
 *     lane_records  records per lane, a power of two (index & (n - 1)).
 *     clock_id      what every *_ns field of a record holds: CLOCK_MONOTONIC
 *                   nanoseconds (the clock perf uses with attr.use_clockid),
 *                   or MTX_SHM_CLOCK_TSC: raw rdtsc values, which the
 *                   collector converts to CLOCK_MONOTONIC as it drains
 *                   (collector/sync/tsc-map.h) - it chooses TSC only where the
 *                   kernel's own clock is the TSC.
 *     stack_frames  0: records carry only their call site. Otherwise (mtx
 *                   collect --sync-stacks) each record written outside a
 *                   signal handler's nesting is preceded by frames records
 *                   holding up to this many return addresses of the thread's
 *                   user stack (see FRAMES RECORDS below).
 *     lost_full     records dropped because a lane stayed full longer than
 *                   the writer's bounded wait (the collector was not draining).
 *     lost_nolane   records dropped because no lane was free.
 *     Both are only ever incremented (atomically, by writers); the collector
 *     reports their sum. Losses are never silent.
 *     claims_without_rseq  lanes claimed by threads that have no rseq area
 *                   and so write with signals blocked (LANES below).
 *     closed        set by the collector once it drains no more (the program
 *                   it ran has exited; what that started may run on): a
 *                   writer that finds its lane full then stops tracing, as
 *                   when the collector (creator_pid) has died. Until then a
 *                   writer waits for a full lane as long as it takes.
 *     drain_wake    a futex word (shared, not FUTEX_PRIVATE). The collector's
 *                   drain reads it, drains, and sleeps on it (FUTEX_WAIT with
 *                   a timeout of tens of ms) while it still holds that value.
 *                   A writer whose lane reaches half full, or that finds no
 *                   free lane, increments it and FUTEX_WAKEs: one syscall per
 *                   half lane of records at most, never per record. A region
 *                   whose writers never wake still works: the drain's timeout
 *                   bounds how long records wait, and a full lane waits.
 *
 * LANES
 *
 * A lane is a single-producer single-consumer ring owned by one thread of one
 * process at a time. Its header:
 *
 *     state     FREE -> CLAIMING -> LIVE -> EXITED -> FREE (see enum below).
 *               A writer claims a FREE lane with compare-and-swap, fills in
 *               owner_pid/owner_tid, then stores LIVE. At thread exit (a
 *               pthread key destructor) the owner stores EXITED. The collector
 *               moves EXITED lanes back to FREE once it has drained them, so
 *               programs that run thousands of short threads reuse a few lanes.
 *               The collector also marks LIVE lanes whose owner thread no
 *               longer exists (killed process, exec) EXITED; the library marks
 *               lanes still LIVE under its own pid EXITED when it starts, since
 *               after exec no thread of the old image survives.
 *     head      the head word: bits 0-47 count the records published by
 *               the writer (monotonic; 2^48 records never wrap in practice),
 *               bits 48-63 the operations of the owner in progress (ops
 *               below). Slot of record i is i & (lane_records - 1). A record
 *               is published by the one store that raises the count, after
 *               the record (release order); read with acquire order.
 *     tail      count of records consumed by the collector. Written with
 *               release order after the records are copied out; the writer
 *               reads it (acquire) only when its cached limit is reached.
 *     head and tail sit on their own cache lines so the two sides do not
 *     share a line on the hot path.
 *     stall_ns, stalls  how long and how often the owner waited for the
 *               collector (lane full, no lane free): the program's time
 *               that is mtx's (collector_waits in mtx-db(5)).
 *     ops       the owner's operations in progress, innermost last: ops[i]
 *               for i below the head word's count. A wrapper takes the next
 *               one when it starts (one instruction adds 1 to bits 48-63),
 *               fills in the record as it learns it (end_ns last, and only
 *               once the call returned: 0 until then), and the store that
 *               publishes the record also gives the op back. So an op is
 *               either here or in the ring, never both nor neither; a signal
 *               handler's op nests as the next one. frame is the wrapper's
 *               stack frame: a siglongjmp out of a handler tells from it
 *               which ops it abandons (preload-jump.c). The collector reads
 *               them once the owner is gone (EXITED): the calls it died in.
 *
 * How a record is written so that a signal handler may write its own at any
 * instant (collector/preload/lane.h): copying the record into the ring and
 * storing the new head word is one restartable sequence (rseq(2)): if a
 * signal arrives in it, the kernel sends the thread back to its start before
 * the handler runs, so the handler never sees a half-written record, and
 * nothing it writes is overwritten. Where the thread has no rseq area, the
 * same copy runs with signals blocked. Either way a full lane is waited for
 * outside the sequence, holding nothing: the handler of a signal that comes
 * meanwhile writes and, if it must, waits too.
 *
 * Invariant: tail <= head <= tail + lane_records. The reader checks it on
 * every drain (the target may scribble over the region) and counts what it
 * cannot trust as lost rather than reading outside a lane.
 *
 * RECORDS
 *
 * struct mtx_sync_record (above), MTX_SHM_RECORD_SIZE bytes,
 * kind and op from the tables below. overhead is what the wrapper added to
 * its thread beyond the real call: from its entry to just before the real
 * call (claiming a lane, filling in the op, the injected busy wait), plus
 * the slow path of publishing (waking the drain at half full, and of a
 * wait for a full lane the part on the thread's CPU clock) and, with stack_frames, the stack walk; the few stores that publish the record and the return are
 * not seen by a stamp. injected is the busy wait of --inject-overhead
 * (inject_delay, inject_tid, inject_thread, inject_ops in the header: the
 * wait, in clock_id units, before the real call of every operation of
 * those ops of the thread with that tid or name; 0 and "" mean any thread,
 * inject_ops 0 any op), included in overhead.
 * The wait is of time on the CPU: a step of it longer than inject_gap
 * (the thread was preempted or interrupted) is left out of both, and the
 * wait goes on for that long. Records of one lane are in the order
 * their operations completed in that thread. result is the call's, or one of
 * MTX_SYNC_RESULT_UNRETURNED (its thread died in it; written by the
 * collector from ops) and MTX_SYNC_RESULT_ABANDONED (a signal handler left
 * it by siglongjmp before it returned; end_ns is the jump).
 *
 * THE CALL REGION
 *
 * Function entries and exits from programs built with -pg or
 * -finstrument-functions (collector/preload/preload-calls.c) go into a
 * second object of the same layout, named by
 *
 *     MTX_CALL_REGION=/mtx-call-<pid>-<random>
 *
 * with magic "MTXCALL1" and records of struct mtx_call_record: 16 bytes,
 *
 *     stamp   the clock_id value (TSC or ns) of the entry or exit, with
 *             MTX_CALL_EXIT (bit 63) set for an exit: stamps stay below
 *             2^63 for centuries on either clock;
 *     fn      for an entry, the address the hook was given (mcount: the
 *             return address into the function just past its prologue;
 *             __cyg_profile_func_enter: the function's entry); for an exit,
 *             the same value as its entry.
 *
 * Why a region of its own: a call costs two records, and the goal is a
 * traced call under 50 ns with two ~18 ns stamps. A 56-byte sync record
 * spans a cache line; four 16-byte ones fill one, and the pid and tid,
 * the same for every record of a lane, are read once per lane from its
 * owner_pid/owner_tid (a lane is only re-owned once drained, so every
 * record between tail and head belongs to the current owner). Lanes,
 * their states, head/tail and the loss counters work as above, except
 * drain_wake: the collector's drain sleeps on one word, so when both
 * regions exist the call lanes' writers wake it through the sync region's.
 *
 * FRAMES RECORDS
 *
 * With stack_frames > 0, an operation's record may be preceded, in the same
 * lane and the same publishing store (so nothing nests between them), by 1 to
 * MTX_SYNC_FRAMES_MAX_RECORDS struct mtx_sync_frames: kind ==
 * MTX_SYNC_KIND_FRAMES at the offset where a record has its kind, then the
 * return addresses of the user stack, innermost first, MTX_SYNC_FRAMES_PER_RECORD
 * to a record. pcs[0] of the first one is the operation's call site (the
 * same value as the record's callsite); each next one is the return address
 * into the caller of the previous one. Record @index (0, 1, ...) of @count
 * holds @nr of them. A reader that meets index 0 drops any frames it was
 * still holding: they belonged to a record it could not trust.
 */
#ifndef MTX_COLLECTOR_PRELOAD_SHM_H
#define MTX_COLLECTOR_PRELOAD_SHM_H

#include <stdint.h>

/*
 * A synchronization operation recorded by libmtx-preload.so, as it lies in
 * the shared-memory lanes and as it travels on in struct mtx_event: fixed-size
 * and position-independent.
 */
struct mtx_sync_record {
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t addr;     /* object address; signal number for kind signal */
	uint64_t arg;      /* condvar wait: its mutex; kill: target pid/tid; create/join: thread tid */
	uint64_t callsite; /* return address in the caller */
	int32_t tid;
	int32_t pid;
	uint16_t kind;     /* enum mtx_sync_kind */
	uint16_t op;       /* enum mtx_sync_op */
	int32_t result;    /* return value of the call (0 or an errno) */
	/* What the wrapper added to its thread beyond the real call, and the
	 * part of it that --inject-overhead's busy wait was, in clock_id units
	 * (TSC ticks or ns), saturated at UINT32_MAX (RECORDS below). */
	uint32_t overhead;
	uint32_t injected;
};

/* Environment variable naming the region (its shm_open name, with the '/'). */
#define MTX_SHM_ENV "MTX_SYNC_REGION"

/* clock_id value meaning "records hold raw TSC values" ('TSC'). */
#define MTX_SHM_CLOCK_TSC 0x545343

#define MTX_SHM_MAGIC "MTXSYNC1"
#define MTX_CALL_MAGIC "MTXCALL1"
#define MTX_CALL_ENV "MTX_CALL_REGION"
/* Set in mtx_call_record.stamp for an exit. */
#define MTX_CALL_EXIT (1ull << 63)
#define MTX_SHM_VERSION 6u
#define MTX_SHM_HEADER_SIZE 4096u
#define MTX_SHM_LANE_HEADER_SIZE 4096u
#define MTX_SHM_RECORD_SIZE ((uint32_t)sizeof(struct mtx_sync_record))

/* One function entry or exit (THE CALL REGION above). */
struct mtx_call_record {
	uint64_t stamp; /* clock_id value, | MTX_CALL_EXIT for an exit */
	uint64_t fn;
};

#define MTX_CALL_RECORD_SIZE ((uint32_t)sizeof(struct mtx_call_record))
/* 4 MiB a lane: ~5 ms of a thread doing nothing but calls (two records per
 * ~40 ns call), so the drain (every ms) can be a few periods late before a
 * writer waits; tmpfs gives pages only to lanes written to. */
#define MTX_CALL_DEFAULT_LANE_RECORDS 262144u

/*
 * Defaults: 1024 lanes (programs with 1000 live threads exist among our
 * samples) of 65536 records, 3.5 MiB each: enough for ~2 ms of the fastest
 * lock loop (28 M records/s). The writer wakes the drain at half full, so
 * the drain has ~1 ms to empty the lane before the writer would wait. That
 * is 3.6 GiB of address space, but tmpfs allocates pages only when written:
 * the memory used is at most 3.5 MiB per thread that was alive at the same
 * time as the others, and far less for threads that trace few operations.
 */
#define MTX_SHM_DEFAULT_LANES 1024u
#define MTX_SHM_DEFAULT_LANE_RECORDS 65536u

enum mtx_shm_lane_state {
	MTX_LANE_FREE = 0,     /* unowned; a writer may claim it */
	MTX_LANE_CLAIMING = 1, /* a writer is filling in the owner */
	MTX_LANE_LIVE = 2,     /* owned by owner_tid of owner_pid */
	MTX_LANE_EXITED = 3,   /* owner gone; the collector frees it once drained */
};

struct mtx_shm_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint32_t record_size;
	uint32_t lane_count;
	uint32_t lane_records;
	uint32_t lane_header_size;
	uint64_t lane_offset;
	uint64_t lane_stride;
	int32_t clock_id;
	int32_t creator_pid;
	uint32_t stack_frames; /* 0, or the most user frames a record carries */
	/* --inject-overhead: the thread it is limited to, 0 for all */
	int32_t inject_tid;
	/* --inject-overhead: the busy wait before each real call, in clock_id
	 * units; 0: none */
	uint64_t inject_delay;
	/* --inject-overhead: the thread name it is limited to, "" for all */
	char inject_thread[16];
	/* --inject-overhead: a step of the busy wait longer than this (clock_id
	 * units) was time off the CPU, and does not count */
	uint64_t inject_gap;
	/* --inject-overhead: the ops it is limited to, bit 1 << enum
	 * mtx_sync_op each; 0 for all */
	uint64_t inject_ops;
	uint64_t _pad0[2];
	/* On their own cache line: the only header fields written after setup. */
	uint64_t lost_full __attribute__((aligned(64)));
	uint64_t lost_nolane;
	uint32_t lanes_used; /* 1 + highest lane index ever claimed (atomic max) */
	/* Set by the collector when it drains no more: writers stop waiting. */
	uint32_t closed;
	/* Set by the collector while sync is switched off (mtx ctl source off
	 * sync): the wrappers call the real function and record nothing. */
	uint32_t paused;
	/* Claims by threads without an rseq area, which write with signals
	 * blocked (lane.h); counted atomically. */
	uint32_t claims_without_rseq;
	/* Futex word the collector's drain sleeps on; writers bump it and wake
	 * the drain when a lane reaches half full or no lane is free. */
	uint32_t drain_wake __attribute__((aligned(64)));
};

/* The head word (LANES above): published records, and ops in progress. */
#define MTX_LANE_HEAD_BITS 48
#define MTX_LANE_HEAD_MASK ((1ull << MTX_LANE_HEAD_BITS) - 1)
#define MTX_LANE_OP_ONE (1ull << MTX_LANE_HEAD_BITS)

static inline uint64_t mtx_lane_head(uint64_t word)
{
	return word & MTX_LANE_HEAD_MASK;
}

static inline uint32_t mtx_lane_nr_ops(uint64_t word)
{
	return (uint32_t)(word >> MTX_LANE_HEAD_BITS);
}

/* One operation in progress (LANES, ops): two cache lines. */
struct mtx_sync_op_slot {
	struct mtx_sync_record rec;
	uint64_t frame; /* the wrapper's stack frame */
	uint64_t _pad[7];
};

/* Ops in progress a lane can hold: signal handlers nested this deep, each
 * inside a traced call; a deeper one is counted in lost_full. */
#define MTX_LANE_MAX_OPS 30u

/* mtx_sync_record.result of a call that did not return: its thread died in
 * it (sync_ops.unfinished 'thread_exit'), or a signal handler left it by
 * siglongjmp ('siglongjmp'). sync_ops.result is NULL for both. */
#define MTX_SYNC_RESULT_UNRETURNED INT32_MIN
#define MTX_SYNC_RESULT_ABANDONED (INT32_MIN + 1)

/* sync_ops.unfinished of a record's result: NULL for a call that returned. */
static inline const char *sync_result_unfinished(int32_t result)
{
	return result == MTX_SYNC_RESULT_UNRETURNED ? "thread_exit" :
	       result == MTX_SYNC_RESULT_ABANDONED ? "siglongjmp" : (const char *)0;
}

struct mtx_shm_lane {
	uint32_t state;    /* enum mtx_shm_lane_state */
	int32_t owner_pid;
	int32_t owner_tid;
	uint32_t claims;   /* times this lane was claimed: helps reading dumps */
	/* Time the owner waited for the collector (a full lane, no free lane),
	 * and how many waits: written by the owner on those slow paths only,
	 * read by the collector once the owner is gone. */
	uint64_t stall_ns, stalls;
	uint64_t head __attribute__((aligned(64)));   /* the head word */
	uint64_t tail __attribute__((aligned(64)));
	/* sync lanes only; written by the owner, read once it is gone */
	struct mtx_sync_op_slot ops[MTX_LANE_MAX_OPS] __attribute__((aligned(64)));
	/* padded to MTX_SHM_LANE_HEADER_SIZE; records follow */
	uint8_t _pad[MTX_SHM_LANE_HEADER_SIZE - 192 - MTX_LANE_MAX_OPS * sizeof(struct mtx_sync_op_slot)];
};

_Static_assert(sizeof(struct mtx_shm_header) <= MTX_SHM_HEADER_SIZE, "header fits");
_Static_assert(sizeof(struct mtx_shm_lane) == MTX_SHM_LANE_HEADER_SIZE, "lane header size");
_Static_assert(sizeof(struct mtx_sync_record) == 64, "record layout is part of the format");
_Static_assert(sizeof(struct mtx_sync_op_slot) == 128, "an op in progress is two cache lines");
_Static_assert(sizeof(struct mtx_call_record) == 16, "record layout is part of the format");

/* The kind that marks a frames record (not a kind of object). */
#define MTX_SYNC_KIND_FRAMES 0xffffu
#define MTX_SYNC_FRAMES_PER_RECORD 6u
#define MTX_SYNC_FRAMES_MAX_RECORDS 8u
/* The most frames a record can carry (--sync-stacks' depth). */
#define MTX_SYNC_STACK_MAX (MTX_SYNC_FRAMES_PER_RECORD * MTX_SYNC_FRAMES_MAX_RECORDS)

struct mtx_sync_frames {
	uint64_t pcs[MTX_SYNC_FRAMES_PER_RECORD];
	uint16_t kind;  /* MTX_SYNC_KIND_FRAMES, where a record has its kind */
	uint8_t nr;     /* pcs used in this record, 1 .. MTX_SYNC_FRAMES_PER_RECORD */
	uint8_t index;  /* this record's place among its operation's frames records */
	uint8_t count;  /* how many frames records the operation has */
	uint8_t _pad[11];
};

_Static_assert(sizeof(struct mtx_sync_frames) == MTX_SHM_RECORD_SIZE, "a frames record fills a slot");
_Static_assert(__builtin_offsetof(struct mtx_sync_frames, kind) == __builtin_offsetof(struct mtx_sync_record, kind),
	       "kind at the same place");

/* Lane i of a region mapped at base (geometry from the header the caller trusts). */
static inline struct mtx_shm_lane *mtx_shm_lane_at(void *base, uint64_t lane_offset,
						   uint64_t lane_stride, uint32_t i)
{
	return (struct mtx_shm_lane *)((char *)base + lane_offset + (uint64_t)i * lane_stride);
}

static inline struct mtx_sync_record *mtx_shm_lane_records(struct mtx_shm_lane *lane)
{
	return (struct mtx_sync_record *)((char *)lane + MTX_SHM_LANE_HEADER_SIZE);
}

/*
 * Kinds of synchronization object: X(enum suffix, name stored in the database).
 * The names are the values of sync_objects.kind; never rename one.
 */
#define MTX_SYNC_KINDS(X)          \
	X(MUTEX, "mutex")          \
	X(RWLOCK, "rwlock")        \
	X(SPINLOCK, "spinlock")    \
	X(COND, "cond")            \
	X(SEM, "sem")              \
	X(BARRIER, "barrier")      \
	X(SIGNAL, "signal")        \
	X(THREAD, "thread")        \
	X(SCHED, "sched")          \
	X(PHASE, "phase")

/*
 * Operations: X(enum suffix, name stored in the database as sync_ops.op).
 * Named after the call; the kind says which family it belongs to.
 */
#define MTX_SYNC_OPS(X)                      \
	X(INIT, "init")                      \
	X(LOCK, "lock")                      \
	X(TRYLOCK, "trylock")                \
	X(TIMEDLOCK, "timedlock")            \
	X(UNLOCK, "unlock")                  \
	X(DESTROY, "destroy")                \
	X(RDLOCK, "rdlock")                  \
	X(WRLOCK, "wrlock")                  \
	X(TRYRDLOCK, "tryrdlock")            \
	X(TRYWRLOCK, "trywrlock")            \
	X(TIMEDRDLOCK, "timedrdlock")        \
	X(TIMEDWRLOCK, "timedwrlock")        \
	X(WAIT, "wait")                      \
	X(TIMEDWAIT, "timedwait")            \
	X(TRYWAIT, "trywait")                \
	X(SIGNAL, "signal")                  \
	X(BROADCAST, "broadcast")            \
	X(POST, "post")                      \
	X(OPEN, "open")                      \
	X(CLOSE, "close")                    \
	X(CREATE, "create")                  \
	X(JOIN, "join")                      \
	X(DETACH, "detach")                  \
	X(EXIT, "exit")                      \
	X(KILL, "kill")                      \
	X(TGKILL, "tgkill")                  \
	X(PTHREAD_KILL, "pthread_kill")      \
	X(RAISE, "raise")                    \
	X(SIGQUEUE, "sigqueue")              \
	X(SETSCHED, "setsched")              \
	X(MARK, "mark")

enum mtx_sync_kind {
#define X(e, n) MTX_SYNC_KIND_##e,
	MTX_SYNC_KINDS(X)
#undef X
	MTX_SYNC_KIND__COUNT
};

enum mtx_sync_op {
#define X(e, n) MTX_SYNC_OP_##e,
	MTX_SYNC_OPS(X)
#undef X
	MTX_SYNC_OP__COUNT
};

/*
 * Kind sched (collector/preload/preload-sched.c) is no object: a thread's
 * scheduling class changed. addr is the thread's tid, arg its class as the
 * kernel applied it: policy in bits 0-7, real-time priority in 8-15, nice
 * (two's complement) in 16-23, and MTX_SCHED_AFFINITY when the call set
 * the CPU affinity: with MTX_SCHED_CPUS_KNOWN, the affinity the kernel
 * applied is in bits 32-63 (CPUs 0 to 31), else the collector reads it in
 * /proc, where a thread that has exited since has none (a class change
 * alone keeps the affinity it knew). The collector writes thread_sched
 * rows of them, never sync_ops.
 */
#define MTX_SCHED_AFFINITY (1ULL << 24)
#define MTX_SCHED_CPUS_KNOWN (1ULL << 25)

static inline uint64_t mtx_sched_pack(int policy, int priority, int nice)
{
	return (uint64_t)(policy & 0xff) | (uint64_t)(priority & 0xff) << 8 | (uint64_t)(nice & 0xff) << 16;
}

static inline void mtx_sched_unpack(uint64_t arg, int *policy, int *priority, int *nice)
{
	*policy = (int)(arg & 0xff);
	*priority = (int)(arg >> 8 & 0xff);
	*nice = (int)(int8_t)(arg >> 16 & 0xff);
}

/*
 * Kind phase (collector/preload/preload-phase.c) is no object either: the
 * program called mtx_phase(name), and a phase of the run begins at the
 * record's start_ns. The name, cut at MTX_PHASE_NAME_MAX bytes, is in
 * addr, arg and callsite (24 bytes, NUL-padded, not always NUL-ended).
 * The collector writes phases rows of them, never sync_ops.
 */
#define MTX_PHASE_NAME_MAX 24

/* Name of a kind ("mutex"), or NULL when out of range (e.g. a scribbled record). */
static inline const char *sync_kind_name(unsigned kind)
{
	static const char *const names[] = {
#define X(e, n) n,
		MTX_SYNC_KINDS(X)
#undef X
	};
	return kind < MTX_SYNC_KIND__COUNT ? names[kind] : (const char *)0;
}

/* Name of an op ("timedwait"), or NULL when out of range. */
static inline const char *sync_op_name(unsigned op)
{
	static const char *const names[] = {
#define X(e, n) n,
		MTX_SYNC_OPS(X)
#undef X
	};
	return op < MTX_SYNC_OP__COUNT ? names[op] : (const char *)0;
}

#endif

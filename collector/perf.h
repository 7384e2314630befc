/*
 * collector/perf.h - perf_event_open and tracefs: opening events, finding
 * tracepoint ids and field offsets, and explaining permission failures.
 */
#ifndef MTX_COLLECTOR_PERF_H
#define MTX_COLLECTOR_PERF_H

#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Every event mtx opens samples these fields, so records from all events can
 * share one ring per CPU and be parsed the same way (see perf_sample_parse). */
#define MTX_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* The user registers a DWARF-unwound sample carries (PERF_SAMPLE_REGS_USER):
 * the x86-64 general registers and ip, in perf's order (asm/perf_regs.h):
 * ax bx cx dx si di bp sp ip, then r8 .. r15. */
#define MTX_REGS_USER_MASK (((1ull << (PERF_REG_X86_IP + 1)) - 1) | (0xffull << PERF_REG_X86_R8))
#define MTX_NR_REGS_USER 17

/* The fields of a PERF_RECORD_SAMPLE, or of the sample_id trailer of other
 * records (attr.sample_id_all), for MTX_SAMPLE_TYPE [| PERF_SAMPLE_RAW]. */
struct perf_sample {
	uint64_t id;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	int kernel_mode;           /* the record's cpumode is the kernel's */
	const uint8_t *callchain; /* PERF_SAMPLE_CALLCHAIN: nr u64 entries, context markers
	                           * included (maybe unaligned: memcpy them out) */
	uint64_t nr_callchain;
	const uint8_t *raw; /* tracepoint payload, NULL if none */
	uint32_t raw_size;
	const uint8_t *regs_user;  /* PERF_SAMPLE_REGS_USER: MTX_NR_REGS_USER u64 in the order
	                            * of MTX_REGS_USER_MASK; NULL when the task had no user
	                            * state (abi NONE) */
	const uint8_t *stack_user; /* PERF_SAMPLE_STACK_USER: the copy of the user stack from
	                            * its sp up, stack_user_size valid bytes; NULL if none */
	uint64_t stack_user_size;
};

/*
 * tracefs_ensure - make sure tracefs is reachable, mounting it on
 * /sys/kernel/tracing if needed. Returns 0, or -errno with a message in
 * @err (caller frees) that says what the user can do.
 */
int tracefs_ensure(char **err);

/* tracefs_dir - where tracefs is (after tracefs_ensure). Static string. */
const char *tracefs_dir(void);

/* tracepoint_id - the perf config id of tracepoint @system:@event, or -errno. */
long tracepoint_id(const char *system, const char *event);

/* tracepoint_field - offset and size of field @name in the raw payload of
 * @system:@event, from its tracefs format file. Returns 0 or -errno. */
int tracepoint_field(const char *system, const char *event, const char *name, int *offset, int *size);

/* perf_attr_init - zero @attr and fill what every mtx event shares: the
 * CLOCK_MONOTONIC clock, MTX_SAMPLE_TYPE, sample_id_all. */
void perf_attr_init(struct perf_event_attr *attr, uint32_t type, uint64_t config);

/* perf_open - perf_event_open(2) with CLOEXEC. Returns an fd or -errno. */
int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd);

/* perf_read_lost - how many records of event @fd found no room in its
 * ring, however many PERF_RECORD_LOST said so. 0, or -EOPNOTSUPP on a
 * kernel without PERF_FORMAT_LOST (before 6.0), or -EIO. */
int perf_read_lost(int fd, uint64_t *lost);

/* perf_open_error - a one-line explanation for a failed perf_open (-errno
 * @e), naming the sysctl or capability to change. Static string. */
const char *perf_open_error(int e);

/* perf_nr_cpus - how many CPUs to open per-CPU events on (0..n-1). */
int perf_nr_cpus(void);

/*
 * perf_sample_parse - parse a PERF_RECORD_SAMPLE body of an event whose
 * attr.sample_type is MTX_SAMPLE_TYPE plus the bits of @extra
 * (PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_RAW, PERF_SAMPLE_REGS_USER with
 * MTX_REGS_USER_MASK, PERF_SAMPLE_STACK_USER) or, for other records, the
 * sample_id trailer (@extra ignored). Returns 0, or -EINVAL if the record is
 * too short.
 */
int perf_sample_parse(const struct perf_event_header *hdr, uint64_t extra, struct perf_sample *out);

/*
 * perf_user_chain - the user addresses of @sample's callchain, leaf first,
 * without the context markers (values from PERF_CONTEXT_MAX up), in a
 * malloc'd array the caller frees; their number in @nr. NULL (and @nr 0)
 * when there are none or memory ran out.
 */
uint64_t *perf_user_chain(const struct perf_sample *sample, uint32_t *nr);

#endif

/*
 * collector/collect.h - one whole collection: launch the program, record
 * until it exits, finalize run.db. The CLI (src/cmd/cmd-collect.c) fills the
 * options; everything between the kernel and the database happens below.
 */
#ifndef MTX_COLLECTOR_COLLECT_H
#define MTX_COLLECTOR_COLLECT_H

#include "src/derived/consultant.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/sync/inject-overhead.h"

struct collect_options {
	const char *output;     /* run.db path */
	char *const *argv;      /* program and its arguments */
	unsigned sources;       /* bit i: mtx_sources[i] */
	int sync;               /* inject libmtx-preload.so: sync operations */
	size_t ring_pages;      /* data pages per CPU ring (power of two) */
	unsigned sample_hz;     /* CPU samples per second of a thread's CPU time, 0: none */
	int phase_signal;       /* --phase-signal: each one sent to the program begins a phase, 0: none */
	unsigned sync_stack_frames; /* --sync-stacks: user frames per sync op, 0: none */
	struct sync_inject inject; /* --inject-overhead; delay_ns 0: none */
	int defer_writes;       /* --defer-writes: no row written before the exit */
	unsigned sample_stack_bytes; /* --call-graph dwarf: user stack copied per sample;
	                              * 0: frame-pointer chains only */
	const char *command;    /* the command line, for meta */
	const char *functions;  /* [LIB:]REGEX: trace these functions' calls (NULL: none) */
	const char *functions_in; /* libraries where a plain REGEX applies too (NULL: none) */
	/* Run the program as this user (and own the output by it): NULL keeps
	 * mtx's credentials. */
	const char *user;
	unsigned uid, gid;
	/* mtx collect -p: record this running process instead of starting
	 * argv (0: none), until it exits, a signal detaches, or @duration_ns
	 * (0: no limit) passes. */
	pid_t attach_pid;
	uint64_t duration_ns;
	/* --control SOCK: take mtx ctl's commands there (NULL: none). */
	const char *control;
	/* --overhead-budget: the probes may cost this % of a CPU (0: no limit). */
	double overhead_budget;
	/* --rates-from: a run.db whose call rates predict the probes' cost. */
	const char *rates_from;
	/* --detail: rows of the kernel's stream kept one by one before the
	 * kinds a heavy program makes by the million are added up
	 * (collector/detail.h); 0: every row (--detail all). */
	uint64_t detail_rows;
	/* --consultant: the Performance Consultant searches while the program
	 * runs (collector/live-search.h), for @search_ns (0: until the end),
	 * within --overhead-budget. */
	int consultant;
	uint64_t search_ns;
	struct pc_tunables tunables; /* --consultant-set: its thresholds and timing */
	int sample_hz_given;    /* --sample was given: samples all along, not switched */
};

struct collect_result {
	int status;          /* the program's exit code, or 128+signal; attached: 0 */
	int record_failed;   /* the run was recorded only in part (e.g. disk full) */
	int program_failed;  /* on error: 127 program missing, 126 not executable */
	int stopped;         /* a signal after the program's exit cut the work short */
	/* The run as it was written (writer_capture), for the derived build
	 * (analysis_build_captured frees it); NULL: read the file. */
	struct tl_capture *capture;
	/* --consultant's search, for pc_nodes (pc_search_free it); NULL: none */
	struct pc_search *consultant;
};

/*
 * The steps of the work after the program's exit, in order, as the
 * progress line (src/progress.h) and a signal that stops them name them.
 * collect_run does all but the last, which mtx collect's command does
 * with the run it captured; it ends the progress line (progress_end).
 */
#define COLLECT_STEPS(X)                                      \
	X(COLLECT_DRAIN, "draining the rings")                 \
	X(COLLECT_SYNC, "completing the sync tables")          \
	X(COLLECT_NAMES, "naming functions")                   \
	X(COLLECT_INDEXES, "building indexes")                 \
	X(COLLECT_DERIVED, "building the derived tables")
enum collect_step {
#define X(step, name) step,
	COLLECT_STEPS(X)
#undef X
	COLLECT_NR_STEPS
};

/* collect_step_begin - step @s begins: the progress line says so. */
void collect_step_begin(enum collect_step s);

/*
 * collect_run - run the collection. Returns 0 with @r filled when the
 * program ran, or -errno with a message in @err (caller frees) when nothing
 * could be started; the output file is then left as it was.
 */
int collect_run(const struct collect_options *o, struct collect_result *r, char **err);

#endif

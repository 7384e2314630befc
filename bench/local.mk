# bench/: benchmarks. Built by 'make' (noinst) so that they cannot rot, never
# run by 'make check': they take minutes, need root and an idle machine, and
# only report (see bench/README.md).
noinst_PROGRAMS += bench/writer-throughput
bench_writer_throughput_SOURCES = bench/writer-throughput.c
bench_writer_throughput_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
bench_writer_throughput_LDADD = $(MTX_LIBS)

dist_noinst_SCRIPTS += bench/collect-overhead.sh bench/sample-overhead.sh bench/heavy.sh
EXTRA_DIST += bench/README.md bench/results/notes-2026-11.md bench/results/collect-overhead.txt \
	bench/results/writer-throughput.txt bench/results/sync-op-cost.txt \
	bench/results/report-speed.txt bench/results/sample-overhead.txt \
	bench/results/function-uprobe-cost.txt bench/results/derived-share.txt \
	bench/results/calibrate-sched.txt bench/results/cpu-without.txt

noinst_PROGRAMS += bench/sync-op-cost
bench_sync_op_cost_SOURCES = bench/sync-op-cost.c bench/lock-pairs.h
bench_sync_op_cost_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
bench_sync_op_cost_LDADD = $(MTX_LIBS)
dist_noinst_SCRIPTS += bench/sync-op-cost.sh bench/function-hook-cost.sh
EXTRA_DIST += bench/results/function-hook-cost.txt

noinst_PROGRAMS += bench/gen-rundb
bench_gen_rundb_SOURCES = bench/gen-rundb.c
bench_gen_rundb_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
bench_gen_rundb_LDADD = $(MTX_LIBS)
dist_noinst_SCRIPTS += bench/report-speed.sh bench/derived-share.sh bench/browse-speed.sh \
	bench/probe-effect-speed.sh bench/calibrate-sched.sh bench/cpu-without.sh bench/export-speed.sh
EXTRA_DIST += bench/results/browse-speed.txt bench/results/export-speed.txt
EXTRA_DIST += bench/lib.sh

# The lock loop alone, dynamic and static (the uprobe fallback's cost).
noinst_PROGRAMS += bench/lock-pairs bench/lock-pairs-static
bench_lock_pairs_SOURCES = bench/lock-pairs.c bench/lock-pairs.h
bench_lock_pairs_CFLAGS = $(WARN_CFLAGS) -fno-omit-frame-pointer
bench_lock_pairs_LDFLAGS = -pthread
bench_lock_pairs_static_SOURCES = bench/lock-pairs.c bench/lock-pairs.h
bench_lock_pairs_static_CFLAGS = $(WARN_CFLAGS) -fno-omit-frame-pointer
bench_lock_pairs_static_LDFLAGS = -all-static -pthread
dist_noinst_SCRIPTS += bench/sync-uprobe-cost.sh

# Issue 29's tight contended loop: threads around one mutex (bench/heavy.sh).
noinst_PROGRAMS += bench/contended-loop
bench_contended_loop_SOURCES = bench/contended-loop.c
bench_contended_loop_CFLAGS = $(WARN_CFLAGS)
bench_contended_loop_LDFLAGS = -pthread

# One small function called in a loop: the cost of an exactly traced call.
noinst_PROGRAMS += bench/call-loop
bench_call_loop_SOURCES = bench/call-loop.c
bench_call_loop_CFLAGS = $(WARN_CFLAGS) -fno-omit-frame-pointer
dist_noinst_SCRIPTS += bench/function-uprobe-cost.sh
noinst_PROGRAMS += bench/probe-rate
bench_probe_rate_SOURCES = bench/probe-rate.c
dist_noinst_SCRIPTS += bench/probe-cost.sh bench/probe-removal.sh
dist_noinst_SCRIPTS += bench/attach-time.sh
# The live search of mtx collect --consultant against its budget (issue 31).
dist_noinst_SCRIPTS += bench/consultant-overhead.sh
EXTRA_DIST += bench/results/consultant-overhead.txt

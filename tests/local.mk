# tests/: Criterion unit tests (tests/unit) and end-to-end shell tests
# (tests/e2e), all run by 'make check'. Without Criterion (configure says
# so) the unit tests are replaced by one that fails and says what to install.
if HAVE_CRITERION
UNIT_TESTS = \
	tests/unit/test-order \
	tests/unit/test-decode \
	tests/unit/test-model \
	tests/unit/test-db \
	tests/unit/test-sync-region \
	tests/unit/test-sync-resolve \
	tests/unit/test-radix-sort \
	tests/unit/test-debug-cache \
	tests/unit/test-preload \
	tests/unit/test-histogram \
	tests/unit/test-critical-path \
	tests/unit/test-state-causes \
	tests/unit/test-row-queue \
	tests/unit/test-spill \
	tests/unit/test-summaries \
	tests/unit/test-fd-kind \
	tests/unit/test-symbols \
	tests/unit/test-stacks \
	tests/unit/test-calls \
	tests/unit/test-writer \
	tests/unit/test-unwind \
	tests/unit/test-timeline \
	tests/unit/test-program-frames
else
UNIT_TESTS =
TESTS += tests/no-criterion.sh
endif

check_PROGRAMS += $(UNIT_TESTS) tests/unit/preload-workload tests/e2e/smallstack
tests_e2e_smallstack_SOURCES = tests/e2e/smallstack.c
tests_e2e_smallstack_CFLAGS = $(WARN_CFLAGS)
tests_e2e_smallstack_LDFLAGS = -pthread
check_PROGRAMS += tests/e2e/diesblocked tests/e2e/lifetimes tests/e2e/jumpanywhere \
	tests/e2e/outlives tests/e2e/sigcount
tests_e2e_diesblocked_SOURCES = tests/e2e/diesblocked.c
tests_e2e_diesblocked_CFLAGS = $(WARN_CFLAGS)
tests_e2e_diesblocked_LDFLAGS = -pthread
tests_e2e_jumpanywhere_SOURCES = tests/e2e/jumpanywhere.c samples/selfcheck.h
tests_e2e_jumpanywhere_CFLAGS = $(WARN_CFLAGS)
tests_e2e_jumpanywhere_LDFLAGS = -pthread
tests_e2e_outlives_SOURCES = tests/e2e/outlives.c
tests_e2e_outlives_CFLAGS = $(WARN_CFLAGS)
tests_e2e_outlives_LDFLAGS = -pthread
tests_e2e_sigcount_SOURCES = tests/e2e/sigcount.c
tests_e2e_sigcount_CFLAGS = $(WARN_CFLAGS)
tests_e2e_lifetimes_SOURCES = tests/e2e/lifetimes.c
tests_e2e_lifetimes_CFLAGS = $(WARN_CFLAGS)
tests_e2e_lifetimes_LDFLAGS = -pthread
check_PROGRAMS += tests/e2e/forkcalls tests/e2e/forkcalls-pg
check_PROGRAMS += tests/e2e/schedclass tests/e2e/extwriter tests/e2e/priorities
check_PROGRAMS += tests/e2e/handoff
tests_e2e_handoff_SOURCES = tests/e2e/handoff.c
tests_e2e_handoff_CFLAGS = $(WARN_CFLAGS)
tests_e2e_handoff_LDFLAGS = -pthread
check_PROGRAMS += tests/e2e/phased
tests_e2e_phased_SOURCES = tests/e2e/phased.c collector/preload/mtx-phase.h
tests_e2e_phased_CFLAGS = $(WARN_CFLAGS)
tests_e2e_phased_LDFLAGS = -pthread
check_PROGRAMS += tests/e2e/fifo1
tests_e2e_fifo1_SOURCES = tests/e2e/fifo1.c
tests_e2e_fifo1_CFLAGS = $(WARN_CFLAGS)
tests_e2e_fifo1_LDFLAGS = -pthread
check_PROGRAMS += tests/e2e/oplatency
tests_e2e_oplatency_SOURCES = tests/e2e/oplatency.c
tests_e2e_oplatency_CFLAGS = $(WARN_CFLAGS)
tests_e2e_oplatency_LDFLAGS = -pthread
tests_e2e_priorities_SOURCES = tests/e2e/priorities.c
tests_e2e_priorities_CFLAGS = $(WARN_CFLAGS)
tests_e2e_priorities_LDFLAGS = -pthread
tests_e2e_extwriter_SOURCES = tests/e2e/extwriter.c
tests_e2e_extwriter_CFLAGS = $(WARN_CFLAGS)
# test-control.sh's programs: a probed function it logs the calls of, and
# one cheap and one expensive to probe.
check_PROGRAMS += tests/e2e/ticker tests/e2e/hotcold
tests_e2e_hotcold_SOURCES = tests/e2e/hotcold.c
tests_e2e_hotcold_CFLAGS = $(WARN_CFLAGS)
tests_e2e_ticker_SOURCES = tests/e2e/ticker.c
tests_e2e_ticker_CFLAGS = $(WARN_CFLAGS)
# test-detail.sh's: a pool that yields by the hundred thousand.
check_PROGRAMS += tests/e2e/yielder
tests_e2e_yielder_SOURCES = tests/e2e/yielder.c
tests_e2e_yielder_CFLAGS = $(WARN_CFLAGS)
tests_e2e_yielder_LDFLAGS = -pthread
# test-diagnose.sh's: one planted bottleneck a mode, measured by itself.
check_PROGRAMS += tests/e2e/planted
tests_e2e_planted_SOURCES = tests/e2e/planted.c
tests_e2e_planted_CFLAGS = $(WARN_CFLAGS) -g
tests_e2e_planted_LDFLAGS = -pthread

# test-detail-sync.sh's: lock ops by the hundred thousand, and a few that
# must stay rows.
check_PROGRAMS += tests/e2e/summed-locks
tests_e2e_summed_locks_SOURCES = tests/e2e/summed-locks.c
tests_e2e_summed_locks_CFLAGS = $(WARN_CFLAGS)
tests_e2e_summed_locks_LDFLAGS = -pthread
# test-catch-up.sh's: a call running when its probe goes in.
check_PROGRAMS += tests/e2e/longcall
tests_e2e_longcall_SOURCES = tests/e2e/longcall.c
tests_e2e_longcall_CFLAGS = $(WARN_CFLAGS) -g -O2
# test-attach.sh's program, started without mtx (-g: for function probes).
check_PROGRAMS += tests/e2e/attachee
tests_e2e_attachee_SOURCES = tests/e2e/attachee.c
tests_e2e_attachee_CFLAGS = $(WARN_CFLAGS) -g
tests_e2e_attachee_LDFLAGS = -pthread
tests_e2e_schedclass_SOURCES = tests/e2e/schedclass.c
tests_e2e_schedclass_CFLAGS = $(WARN_CFLAGS)
tests_e2e_schedclass_LDFLAGS = -pthread
check_PROGRAMS += tests/e2e/deeprecursion
tests_e2e_deeprecursion_SOURCES = tests/e2e/deeprecursion.c
tests_e2e_deeprecursion_CFLAGS = $(WARN_CFLAGS) -g
tests_e2e_deeprecursion_LDFLAGS = -pthread
tests_e2e_forkcalls_SOURCES = tests/e2e/forkcalls.c
tests_e2e_forkcalls_CFLAGS = $(WARN_CFLAGS) -g
tests_e2e_forkcalls_pg_SOURCES = tests/e2e/forkcalls.c
tests_e2e_forkcalls_pg_CFLAGS = $(WARN_CFLAGS) -g -pg
TESTS += $(UNIT_TESTS)

UNIT_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(CRITERION_CFLAGS) -DFIXTURES_DIR='"$(abs_top_srcdir)/tests/fixtures"'
# The fixture loader, shared by the unit tests and tests/fixture-db.
check_LIBRARIES += libfixture.a
libfixture_a_SOURCES = tests/fixture-load.c tests/fixture-load.h
libfixture_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
check_PROGRAMS += tests/fixture-db
tests_fixture_db_SOURCES = tests/fixture-db.c
tests_fixture_db_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_fixture_db_LDADD = libfixture.a $(MTX_LIBS)

UNIT_LIBS = libfixture.a $(MTX_LIBS) $(CRITERION_LIBS)

tests_unit_test_order_SOURCES = tests/unit/test-order.c
tests_unit_test_order_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_order_LDADD = $(UNIT_LIBS)
tests_unit_test_decode_SOURCES = tests/unit/test-decode.c tests/unit/record-builder.h
tests_unit_test_decode_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_decode_LDADD = $(UNIT_LIBS)
tests_unit_test_model_SOURCES = tests/unit/test-model.c
tests_unit_test_model_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_model_LDADD = $(UNIT_LIBS)
tests_unit_test_sync_region_SOURCES = tests/unit/test-sync-region.c
tests_unit_test_sync_region_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sync_region_LDADD = $(UNIT_LIBS)
tests_unit_test_sync_resolve_SOURCES = tests/unit/test-sync-resolve.c
tests_unit_test_sync_resolve_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sync_resolve_LDADD = $(UNIT_LIBS)
tests_unit_test_radix_sort_SOURCES = tests/unit/test-radix-sort.c
tests_unit_test_radix_sort_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_radix_sort_LDADD = $(UNIT_LIBS)
tests_unit_test_debug_cache_SOURCES = tests/unit/test-debug-cache.c
tests_unit_test_debug_cache_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_debug_cache_LDADD = $(UNIT_LIBS)
tests_unit_test_preload_SOURCES = tests/unit/test-preload.c
tests_unit_test_preload_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_preload_LDADD = $(UNIT_LIBS)
tests_unit_preload_workload_SOURCES = tests/unit/preload-workload.c
tests_unit_preload_workload_CFLAGS = $(WARN_CFLAGS)
tests_unit_preload_workload_LDFLAGS = -pthread
tests_unit_test_histogram_SOURCES = tests/unit/test-histogram.c
tests_unit_test_histogram_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_histogram_LDADD = $(UNIT_LIBS)
tests_unit_test_critical_path_SOURCES = tests/unit/test-critical-path.c tests/unit/fixture.h
tests_unit_test_critical_path_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_critical_path_LDADD = $(UNIT_LIBS)
tests_unit_test_timeline_SOURCES = tests/unit/test-timeline.c tests/unit/fixture.h
tests_unit_test_timeline_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_timeline_LDADD = $(UNIT_LIBS)
tests_unit_test_program_frames_SOURCES = tests/unit/test-program-frames.c tests/unit/fixture.h
tests_unit_test_program_frames_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_program_frames_LDADD = $(UNIT_LIBS)
tests_unit_test_state_causes_SOURCES = tests/unit/test-state-causes.c tests/unit/fixture.h
tests_unit_test_state_causes_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_state_causes_LDADD = $(UNIT_LIBS)
tests_unit_test_row_queue_SOURCES = tests/unit/test-row-queue.c
tests_unit_test_row_queue_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_row_queue_LDADD = $(UNIT_LIBS)
tests_unit_test_spill_SOURCES = tests/unit/test-spill.c
tests_unit_test_spill_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_spill_LDADD = $(UNIT_LIBS)
tests_unit_test_summaries_SOURCES = tests/unit/test-summaries.c tests/unit/fixture.h
tests_unit_test_summaries_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_summaries_LDADD = $(UNIT_LIBS)
tests_unit_test_db_SOURCES = tests/unit/test-db.c
tests_unit_test_db_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_db_LDADD = $(UNIT_LIBS)
tests_unit_test_fd_kind_SOURCES = tests/unit/test-fd-kind.c
tests_unit_test_fd_kind_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_fd_kind_LDADD = $(UNIT_LIBS)

tests_unit_test_writer_SOURCES = tests/unit/test-writer.c
tests_unit_test_writer_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_writer_LDADD = $(UNIT_LIBS)

tests_unit_test_calls_SOURCES = tests/unit/test-calls.c
tests_unit_test_calls_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_calls_LDADD = $(UNIT_LIBS)
tests_unit_test_stacks_SOURCES = tests/unit/test-stacks.c
tests_unit_test_stacks_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_stacks_LDADD = $(UNIT_LIBS)
# Unwinds itself: no frame pointers, so only DWARF CFI can find its callers.
tests_unit_test_unwind_SOURCES = tests/unit/test-unwind.c
tests_unit_test_unwind_CFLAGS = $(UNIT_CFLAGS) -O2 -fomit-frame-pointer
tests_unit_test_unwind_LDADD = $(UNIT_LIBS)
# The symbolizer's test looks itself up: built with DWARF, and with a
# shared library of its own (libtool: -rpath makes it a shared one).
check_LTLIBRARIES = tests/unit/libsymlib.la
tests_unit_libsymlib_la_SOURCES = tests/unit/symlib.c tests/unit/symlib.h
tests_unit_libsymlib_la_CFLAGS = $(WARN_CFLAGS) -g -O1
tests_unit_libsymlib_la_LDFLAGS = -rpath /nowhere -shared
tests_unit_test_symbols_SOURCES = tests/unit/test-symbols.c
tests_unit_test_symbols_CFLAGS = $(UNIT_CFLAGS) -g -O1
tests_unit_test_symbols_LDADD = tests/unit/libsymlib.la $(UNIT_LIBS)

# End-to-end tests: collect real samples as root and assert with SQL.
E2E_TESTS = \
	tests/e2e/test-collect-samples.sh \
	tests/e2e/test-bad-input.sh \
	tests/e2e/test-progress.sh \
	tests/e2e/test-collect-ux.sh \
	tests/e2e/test-incomplete.sh \
	tests/e2e/test-sync-inject.sh \
	tests/e2e/test-signal-handlers.sh \
	tests/e2e/test-faults.sh \
	tests/e2e/test-sync-uprobes.sh \
	tests/e2e/test-sync-stacks.sh \
	tests/e2e/test-inject-overhead.sh \
	tests/e2e/test-inject-latency.sh \
	tests/e2e/test-defer-writes.sh \
	tests/e2e/test-thread-sched.sh \
	tests/e2e/test-external.sh \
	tests/e2e/test-lost-records.sh \
	tests/e2e/test-sync-order.sh \
	tests/e2e/test-switch-stacks.sh \
	tests/e2e/test-report.sh \
	tests/e2e/test-probe-sim.sh \
	tests/e2e/test-report-ux.sh \
	tests/e2e/test-report-samples.sh \
	tests/e2e/test-capture.sh \
	tests/e2e/test-samples.sh \
	tests/e2e/test-probe-effect.sh \
	tests/e2e/test-probe-oracle.sh \
	tests/e2e/test-probe-barber.sh \
	tests/e2e/test-probe-smp-priority.sh \
	tests/e2e/test-probe-determinism.sh \
	tests/e2e/test-calibrate.sh \
	tests/e2e/test-unwind.sh \
	tests/e2e/test-function-hooks.sh \
	tests/e2e/test-function-hooks-uftrace.sh \
	tests/e2e/test-man.sh \
	tests/e2e/test-install.sh \
	tests/e2e/test-cxx.sh \
	tests/e2e/test-cxx-frames.sh \
	tests/e2e/test-object-names.sh \
	tests/e2e/test-attach.sh \
	tests/e2e/test-control.sh \
	tests/e2e/test-catch-up.sh \
	tests/e2e/test-detail.sh \
	tests/e2e/test-detail-sync.sh \
	tests/e2e/test-diagnose.sh \
	tests/e2e/test-histogram-metric.sh \
	tests/e2e/test-phases.sh \
	tests/e2e/test-live.sh \
	tests/e2e/test-consultant.sh \
	tests/e2e/test-export.sh \
	tests/e2e/test-export-perfetto.sh \
	tests/e2e/test-compare.sh \
	tests/e2e/test-functions.sh \
	tests/e2e/test-functions-depth.sh \
	tests/e2e/test-functions-paths.sh
# test-functions last: closing many uprobe events takes the kernel's
# event_mutex for an RCU grace period each, which stalls the clone3 of
# threads traced meanwhile (seen: 300-400 ms in clientserver's server,
# which upset test-report-samples' wait-for chains).
TESTS += $(E2E_TESTS)
# Known bugs: tests that fail until the bug they show is fixed (each says
# which at its top). Once it passes, make check fails with XPASS: the bug
# is fixed, take the test out of this list.
XFAIL_TESTS =
EXTRA_DIST += tests/e2e/lib.sh tests/e2e/samples.sh $(E2E_TESTS)

# Screen tests: tmux drives mtx browse (fixture runs, then a collected one).
TUI_TESTS = \
	tests/tui/test-browse-views.sh \
	tests/tui/test-browse-diagnose.sh \
	tests/tui/test-browse-phases.sh \
	tests/tui/test-browse-live.sh \
	tests/tui/test-browse-bad-input.sh \
	tests/tui/test-browse-incomplete.sh \
	tests/tui/test-browse-levels.sh \
	tests/tui/test-browse-search.sh \
	tests/tui/test-browse-probe-effect.sh \
	tests/tui/test-browse-collect.sh
TESTS += $(TUI_TESTS)
EXTRA_DIST += tests/tui/lib.sh $(TUI_TESTS) tests/tui/screens
AM_TESTS_ENVIRONMENT = BUILDDIR='$(abs_top_builddir)'; export BUILDDIR;
# The unit test programs (no extension) run through tests/run-unit.sh,
# which outlives a hang of Criterion's runner.
LOG_COMPILER = $(SHELL) $(srcdir)/tests/run-unit.sh
EXTRA_DIST += tests/run-unit.sh tests/no-criterion.sh

# Every sample linked statically (-all-static: libtool takes plain -static
# for its own meaning): programs LD_PRELOAD cannot enter, traced through
# uprobes instead (tests/e2e/test-sync-inject.sh, test-sync-uprobes.sh).
STATIC_SAMPLES = tests/e2e/philosophers-static tests/e2e/clientserver-static \
	tests/e2e/crossroad-static tests/e2e/farm-static tests/e2e/barber-static \
	tests/e2e/forkexec-static tests/e2e/iobound-static tests/e2e/signals-static \
	tests/e2e/c11threads-static tests/e2e/calltree-static tests/e2e/ring-static \
	tests/e2e/race2-static
check_PROGRAMS += $(STATIC_SAMPLES)
STATIC_LINK_FLAGS = -all-static -pthread
tests_e2e_philosophers_static_SOURCES = samples/philosophers.c samples/selfcheck.h
tests_e2e_philosophers_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_philosophers_static_LDFLAGS = $(STATIC_LINK_FLAGS)
tests_e2e_clientserver_static_SOURCES = samples/clientserver.c samples/selfcheck.h
tests_e2e_clientserver_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_clientserver_static_LDFLAGS = $(STATIC_LINK_FLAGS)
tests_e2e_crossroad_static_SOURCES = samples/crossroad.c samples/selfcheck.h
tests_e2e_crossroad_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_crossroad_static_LDFLAGS = $(STATIC_LINK_FLAGS)
tests_e2e_farm_static_SOURCES = samples/farm.c samples/selfcheck.h
tests_e2e_farm_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_farm_static_LDFLAGS = $(STATIC_LINK_FLAGS)
tests_e2e_barber_static_SOURCES = $(samples_barber_SOURCES)
tests_e2e_barber_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_barber_static_LDFLAGS = $(STATIC_LINK_FLAGS)
tests_e2e_ring_static_SOURCES = $(samples_ring_SOURCES)
tests_e2e_ring_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_ring_static_LDFLAGS = $(STATIC_LINK_FLAGS)
tests_e2e_race2_static_SOURCES = $(samples_race2_SOURCES)
tests_e2e_race2_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_race2_static_LDFLAGS = $(STATIC_LINK_FLAGS)
tests_e2e_forkexec_static_SOURCES = samples/forkexec.c samples/selfcheck.h
tests_e2e_forkexec_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_forkexec_static_LDFLAGS = $(STATIC_LINK_FLAGS)
tests_e2e_iobound_static_SOURCES = samples/iobound.c samples/selfcheck.h
tests_e2e_iobound_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_iobound_static_LDFLAGS = $(STATIC_LINK_FLAGS)
tests_e2e_signals_static_SOURCES = samples/signals.c samples/selfcheck.h
tests_e2e_signals_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_signals_static_LDFLAGS = $(STATIC_LINK_FLAGS)
tests_e2e_c11threads_static_SOURCES = samples/c11threads.c samples/selfcheck.h
tests_e2e_c11threads_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_c11threads_static_LDFLAGS = $(STATIC_LINK_FLAGS)
tests_e2e_calltree_static_SOURCES = samples/calltree.c samples/selfcheck.h
tests_e2e_calltree_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_calltree_static_LDFLAGS = $(STATIC_LINK_FLAGS)
EXTRA_DIST += tests/fixtures
include tests/fuzz/local.mk

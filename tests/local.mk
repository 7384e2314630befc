# tests/: Criterion unit tests (tests/unit) and end-to-end shell tests
# (tests/e2e), all run by 'make check'.
UNIT_TESTS = \
	tests/unit/test-order \
	tests/unit/test-decode \
	tests/unit/test-model \
	tests/unit/test-db \
	tests/unit/test-sync-region \
	tests/unit/test-sync-resolve \
	tests/unit/test-preload \
	tests/unit/test-histogram \
	tests/unit/test-critical-path \
	tests/unit/test-state-causes \
	tests/unit/test-summaries \
	tests/unit/test-fd-kind

check_PROGRAMS += $(UNIT_TESTS) tests/unit/preload-workload
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
tests_unit_test_state_causes_SOURCES = tests/unit/test-state-causes.c tests/unit/fixture.h
tests_unit_test_state_causes_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_state_causes_LDADD = $(UNIT_LIBS)
tests_unit_test_summaries_SOURCES = tests/unit/test-summaries.c tests/unit/fixture.h
tests_unit_test_summaries_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_summaries_LDADD = $(UNIT_LIBS)
tests_unit_test_db_SOURCES = tests/unit/test-db.c
tests_unit_test_db_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_db_LDADD = $(UNIT_LIBS)
tests_unit_test_fd_kind_SOURCES = tests/unit/test-fd-kind.c
tests_unit_test_fd_kind_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_fd_kind_LDADD = $(UNIT_LIBS)

# End-to-end tests: collect real samples as root and assert with SQL.
E2E_TESTS = \
	tests/e2e/test-collect-samples.sh \
	tests/e2e/test-bad-input.sh \
	tests/e2e/test-sync-inject.sh \
	tests/e2e/test-report.sh \
	tests/e2e/test-report-samples.sh \
	tests/e2e/test-man.sh
TESTS += $(E2E_TESTS)
EXTRA_DIST += tests/e2e/lib.sh $(E2E_TESTS)
AM_TESTS_ENVIRONMENT = BUILDDIR='$(abs_top_builddir)'; export BUILDDIR;

# The philosophers sample linked statically (-all-static: libtool takes
# plain -static for its own meaning): a program LD_PRELOAD cannot
# enter (tests/e2e/test-sync-inject.sh).
check_PROGRAMS += tests/e2e/philosophers-static
tests_e2e_philosophers_static_SOURCES = samples/philosophers.c samples/selfcheck.h
tests_e2e_philosophers_static_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
tests_e2e_philosophers_static_LDFLAGS = -all-static -pthread
EXTRA_DIST += tests/fixtures

# tests/fuzz/: libFuzzer targets for the readers of input mtx does not
# control (included from tests/local.mk). Built only by 'make fuzz' in a tree
# configured with --enable-fuzzing CC=clang, on libmtx-fuzz.a: the floors'
# sources compiled with coverage and ASan+UBSan. tests/fuzz/run.sh runs them.
FUZZ_TARGETS = \
	tests/fuzz/fuzz-perf-decode \
	tests/fuzz/fuzz-sync-region \
	tests/fuzz/fuzz-db-readers \
	tests/fuzz/fuzz-db-rows
EXTRA_PROGRAMS = $(FUZZ_TARGETS)
EXTRA_LIBRARIES = libmtx-fuzz.a
CLEANFILES += $(FUZZ_TARGETS) libmtx-fuzz.a

# One library of the floors' sources (the normal build checks how they
# call each other), each compiled for libFuzzer.
libmtx_fuzz_a_SOURCES = $(libmtxcollector_a_SOURCES) $(libmtxderived_a_SOURCES) $(libmtxcore_a_SOURCES)
nodist_libmtx_fuzz_a_SOURCES = $(nodist_libmtxcollector_a_SOURCES) $(nodist_libmtxcore_a_SOURCES)
libmtx_fuzz_a_CFLAGS = $(libmtxcore_a_CFLAGS) $(FUZZ_CFLAGS)

FUZZ_COMPILE_FLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(FUZZ_CFLAGS)
FUZZ_LINK_FLAGS = -fsanitize=fuzzer,address,undefined
FUZZ_LIBS = libmtx-fuzz.a $(SQLITE_LIBS) $(PCRE2_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS) -lpthread -lm

tests_fuzz_fuzz_perf_decode_SOURCES = tests/fuzz/fuzz-perf-decode.c
tests_fuzz_fuzz_perf_decode_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_perf_decode_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_perf_decode_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_sync_region_SOURCES = tests/fuzz/fuzz-sync-region.c
tests_fuzz_fuzz_sync_region_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_sync_region_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_sync_region_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_db_readers_SOURCES = tests/fuzz/fuzz-db-readers.c tests/fuzz/read-run.c tests/fuzz/read-run.h \
	src/cmd/cmd-info.c src/cmd/suggest.c
tests_fuzz_fuzz_db_readers_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_db_readers_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_db_readers_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_db_rows_SOURCES = tests/fuzz/fuzz-db-rows.c tests/fuzz/read-run.c tests/fuzz/read-run.h \
	src/cmd/cmd-info.c src/cmd/suggest.c
tests_fuzz_fuzz_db_rows_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_db_rows_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_db_rows_LDADD = $(FUZZ_LIBS)

if FUZZING
fuzz: $(FUZZ_TARGETS)
else
fuzz:
	@echo "make fuzz: configure with --enable-fuzzing CC=clang first" >&2; exit 1
endif
.PHONY: fuzz

EXTRA_DIST += tests/fuzz/local.mk tests/fuzz/run.sh tests/fuzz/make-seeds.py tests/fuzz/corpus \
	tests/fuzz/db-rows.dict

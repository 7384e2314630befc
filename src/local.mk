# src/: the core every floor uses (the database, named queries, report
# formats, symbols, patterns, times, the row queue, small containers), as
# libmtxcore.a. It includes nothing above it: src/derived, collector/, ui/
# and src/cmd/ link it last, so a call up from here does not link.
noinst_LIBRARIES += libmtxcore.a
libmtxcore_a_SOURCES = \
	src/db.c src/db.h \
	src/error.c src/error.h \
	src/ctl-client.c src/ctl-client.h \
	src/log.c src/log.h \
	src/progress.c src/progress.h \
	src/grow.h src/io-ops.h \
	src/sorted.h \
	src/radix-sort.c src/radix-sort.h \
	src/clock.h \
	src/timefmt.c src/timefmt.h \
	src/phases.c src/phases.h \
	src/match.c src/match.h \
	src/symbols.c src/symbols.h \
	src/frames.c src/frames.h \
	src/debug-cache.c src/debug-cache.h \
	src/demangle.c src/demangle.h \
	src/reports.c src/reports.h src/thread-names.h \
	src/report-overhead.c \
	src/report-external.c \
	src/report-instrumentation.c \
	src/run-state.c src/run-state.h \
	src/browse-queries.c \
	src/columns.c src/columns.h \
	src/report-format.c src/report-format.h \
	src/keyhash.h \
	src/hex.h \
	src/small-file.h \
	src/row-queue.c src/row-queue.h src/spill.c src/spill.h src/pi-mutex.h \
	src/worker.c src/worker.h \
	src/thread-states.h \
	schema/schema.h
nodist_libmtxcore_a_SOURCES = schema/schema-sql.c
libmtxcore_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(PCRE2_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)

# What a program that records or analyses runs links, upper floors first.
MTX_LIBS = libmtxcollector.a libmtxderived.a libmtxprobe.a libmtxcore.a \
	$(SQLITE_LIBS) $(PCRE2_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS) -lpthread -lm

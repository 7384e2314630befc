# src/: the mtx entry point, subcommands, and the core shared by all of them.
# Everything but src/mtx.c goes into libmtx.a, which the unit tests link too.
noinst_LIBRARIES += libmtx.a
libmtx_a_SOURCES = \
	src/cmd.h \
	src/db.c src/db.h \
	src/log.c src/log.h \
	src/grow.h \
	src/sorted.h \
	src/radix-sort.c src/radix-sort.h \
	src/clock.h \
	src/timefmt.c src/timefmt.h \
	src/match.c src/match.h \
	src/symbols.c src/symbols.h \
	src/debug-cache.c src/debug-cache.h \
	src/demangle.c src/demangle.h \
	src/analysis.c src/analysis.h \
	src/reports.c src/reports.h \
	src/run-state.c src/run-state.h \
	src/browse-queries.c \
	src/columns.c src/columns.h \
	src/report-format.c src/report-format.h \
	src/timeline.c src/timeline.h \
	src/timeline-levels.c src/timeline-levels.h \
	src/keyhash.h \
	src/row-queue.c src/row-queue.h \
	src/state-causes.c \
	src/wait-chains.c \
	src/wait-for.c \
	src/summaries.c \
	src/critical-path.c \
	src/histogram.c src/histogram.h \
	src/cmd-collect.c \
	src/cmd-info.c \
	src/cmd-report.c \
	$(collector_sources) \
	schema/schema.h
nodist_libmtx_a_SOURCES = schema/schema-sql.c collector/syscall-names.c
libmtx_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(PCRE2_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)

MTX_LIBS = libmtx.a $(SQLITE_LIBS) $(PCRE2_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS) -lpthread -lm

bin_PROGRAMS += mtx
mtx_SOURCES = src/mtx.c src/cmd-browse.c
mtx_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(PCRE2_CFLAGS)
mtx_LDADD = libmtxui.a $(MTX_LIBS) $(NCURSES_LIBS)

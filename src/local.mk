# src/: the mtx entry point, subcommands, and the core shared by all of them.
# Everything but src/mtx.c goes into libmtx.a, which the unit tests link too.
noinst_LIBRARIES += libmtx.a
libmtx_a_SOURCES = \
	src/cmd.h \
	src/db.c src/db.h \
	src/log.c src/log.h \
	src/grow.h \
	src/clock.h \
	src/timefmt.c src/timefmt.h \
	src/cmd-collect.c \
	src/cmd-info.c \
	$(collector_sources) \
	schema/schema.h
nodist_libmtx_a_SOURCES = schema/schema-sql.c collector/syscall-names.c
libmtx_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)

MTX_LIBS = libmtx.a $(SQLITE_LIBS) -lpthread -lm

bin_PROGRAMS += mtx
mtx_SOURCES = src/mtx.c
mtx_LDADD = $(MTX_LIBS)

# src/derived/: the analyses that fill run.db's derived tables (thread
# states with causes, wait-for and chains, summaries, the critical path,
# time histograms, timeline levels) from a run read into a timeline, as
# libmtxderived.a. Above the core only.
noinst_LIBRARIES += libmtxderived.a
libmtxderived_a_SOURCES = \
	src/derived/analysis.c src/derived/analysis.h \
	src/derived/timeline.c src/derived/timeline.h \
	src/derived/program-frames.c src/derived/program-frames.h \
	src/derived/timeline-levels.c src/derived/timeline-levels.h \
	src/derived/state-causes.c \
	src/derived/wait-chains.c \
	src/derived/wait-for.c \
	src/derived/summaries.c \
	src/derived/critical-path.c \
	src/derived/histogram.c src/derived/histogram.h \
	src/derived/consultant.c src/derived/consultant.h \
	src/derived/consultant-data.c src/derived/consultant-data.h
libmtxderived_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)

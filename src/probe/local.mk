# src/probe/: the probe-effect analysis of seed 004 (mtx probe-effect, mtx
# report hb): a run's sync events read into memory, their happened-before
# graph, the simulation without the overhead, the verdict. Above the core
# only, as libmtxprobe.a.
noinst_LIBRARIES += libmtxprobe.a
libmtxprobe_a_SOURCES = \
	src/probe/run.c src/probe/run.h \
	src/probe/run-env.c src/probe/run-env.h \
	src/probe/run-kernel.c \
	src/probe/hb.c src/probe/hb.h \
	src/probe/simulate.c src/probe/simulate.h src/probe/sim-state.h \
	src/probe/sim-objects.c \
	src/probe/verdict.c src/probe/verdict.h
libmtxprobe_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)

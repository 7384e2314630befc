# collector/: from the kernel (perf rings) and the preload library to run.db,
# as libmtxcollector.a (with collector/sync/, the preload channel's side).
noinst_LIBRARIES += libmtxcollector.a
collector_sources = \
	collector/event.c collector/event.h \
	collector/perf.c collector/perf.h \
	collector/ring.c collector/ring.h \
	collector/order.c collector/order.h \
	collector/session.c collector/session.h \
	collector/source.h collector/sources.c collector/tracepoint.h \
	collector/source-sched.c \
	collector/source-syscalls.c \
	collector/source-wakeups.c \
	collector/source-interrupts.c collector/interrupts.c collector/interrupts.h \
	collector/source-phase-signal.c \
	collector/other-tasks.c collector/other-tasks.h \
	collector/source-samples.c \
	collector/stacks.c collector/stacks.h \
	collector/profile.c collector/profile.h \
	collector/calls.c collector/calls.h \
	collector/catch-up.c collector/catch-up.h \
	collector/calibrate-library.c collector/calibrate-library.h \
	collector/detail.c collector/detail.h \
	collector/unwind.c collector/unwind.h \
	collector/model.c collector/model.h \
	collector/live.c collector/live.h collector/live-search.c collector/live-search.h \
	collector/fd-kind.c collector/fd-kind.h \
	collector/writer.c collector/writer.h \
	collector/target.c collector/target.h \
	collector/collect.c collector/collect.h \
	collector/calibrate.c collector/calibrate.h \
	collector/calibrate-sched.c collector/calibrate-sched.h \
	collector/thread-sched.c collector/thread-sched.h \
	collector/phases.c collector/phases.h \
	collector/output.c collector/output.h \
	collector/elf-symbols.c collector/elf-symbols.h \
	collector/uprobes.c collector/uprobes.h \
	collector/function-uprobes.c collector/function-uprobes.h \
	collector/instrument.c collector/instrument.h \
	collector/cal-store.c collector/cal-store.h \
	collector/control.c collector/control.h \
	collector/syscall-names.h

include collector/sync/local.mk

libmtxcollector_a_SOURCES = $(collector_sources) $(collector_sync_sources)
nodist_libmtxcollector_a_SOURCES = collector/syscall-names.c
libmtxcollector_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)

include collector/preload/local.mk

EXTRA_DIST += collector/gen-syscall-names.sh
BUILT_SOURCES += collector/syscall-names.c
CLEANFILES += collector/syscall-names.c

collector/syscall-names.c: collector/gen-syscall-names.sh
	$(AM_V_GEN)mkdir -p collector && \
	$(SHELL) $(srcdir)/collector/gen-syscall-names.sh $(UNISTD_64_H) > $@.tmp && mv $@.tmp $@

# samples/ - small threaded programs that mtx traces in its tests and demos.
# Each one says at its top what it models and what a run of it under mtx must
# show; samples/selfcheck.h lets a run report its own ground truth.

noinst_PROGRAMS += samples/philosophers samples/clientserver samples/crossroad \
	samples/farm samples/barber samples/forkexec samples/iobound \
	samples/signals samples/handlers samples/c11threads samples/nofp samples/calltree samples/hooktree \
	samples/hooktree-pg samples/hooktree-fentry samples/hooktree-finstr \
	samples/cxxcalls samples/cxxcalls-pg samples/cxxframes samples/bank

# Samples are plain programs, never built with the sanitizers: ASan's own
# background thread would be one more thread than the sample reports.
SAMPLE_COMPILE_FLAGS = $(WARN_CFLAGS) -fno-omit-frame-pointer

samples_philosophers_SOURCES = samples/philosophers.c samples/selfcheck.h
samples_philosophers_LDADD = -lpthread
samples_philosophers_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_philosophers_LDFLAGS = -pthread
samples_clientserver_SOURCES = samples/clientserver.c samples/selfcheck.h
samples_clientserver_LDADD = -lpthread
samples_clientserver_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_clientserver_LDFLAGS = -pthread
samples_crossroad_SOURCES = samples/crossroad.c samples/selfcheck.h
samples_crossroad_LDADD = -lpthread
samples_crossroad_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_crossroad_LDFLAGS = -pthread
samples_farm_SOURCES = samples/farm.c samples/selfcheck.h collector/preload/mtx-phase.h
samples_farm_LDADD = -lpthread
samples_farm_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_farm_LDFLAGS = -pthread
samples_barber_SOURCES = samples/barber.c samples/selfcheck.h samples/selfcheck-order.h \
	samples/cpuspin.h
samples_barber_LDADD = -lpthread
samples_barber_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_barber_LDFLAGS = -pthread
samples_forkexec_SOURCES = samples/forkexec.c samples/selfcheck.h
samples_forkexec_LDADD = -lpthread
samples_forkexec_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_forkexec_LDFLAGS = -pthread
samples_iobound_SOURCES = samples/iobound.c samples/selfcheck.h
samples_iobound_LDADD = -lpthread
samples_iobound_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_iobound_LDFLAGS = -pthread
samples_signals_SOURCES = samples/signals.c samples/selfcheck.h
samples_signals_LDADD = -lpthread
samples_signals_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_signals_LDFLAGS = -pthread
samples_handlers_SOURCES = samples/handlers.c samples/args.h samples/selfcheck.h
samples_handlers_LDADD = -lpthread
samples_handlers_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_handlers_LDFLAGS = -pthread
samples_c11threads_SOURCES = samples/c11threads.c samples/selfcheck.h
samples_c11threads_LDADD = -lpthread
samples_c11threads_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_c11threads_LDFLAGS = -pthread
# Programs whose own order of events is the probe-effect tests' oracle.
noinst_PROGRAMS += samples/ring samples/race2
samples_ring_SOURCES = samples/ring.c samples/args.h samples/cpuspin.h samples/selfcheck.h \
	samples/selfcheck-order.h
samples_ring_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_ring_LDFLAGS = -pthread
samples_race2_SOURCES = samples/race2.c samples/args.h samples/cpuspin.h samples/selfcheck.h \
	samples/selfcheck-order.h
samples_race2_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_race2_LDFLAGS = -pthread
samples_calltree_SOURCES = samples/calltree.c samples/selfcheck.h
samples_calltree_LDADD = -lpthread
samples_calltree_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_calltree_LDFLAGS = -pthread

# nofp is the one built without frame pointers (and optimized, so that its
# functions really lack them): DWARF unwinding's test case.
samples_nofp_SOURCES = samples/nofp.c samples/args.h
samples_nofp_LDADD = -lpthread
samples_nofp_CFLAGS = $(WARN_CFLAGS) -O2 -g -fomit-frame-pointer
samples_nofp_LDFLAGS = -pthread

# hooktree four ways: plain, and built for each of the preload library's
# hooks (mcount, __fentry__, __cyg_profile_func_enter/exit).
# The instrumented builds keep the plain build's flags; -pg links gcrt1.o,
# which writes gmon.out in the working directory at exit.
samples_hooktree_SOURCES = samples/hooktree.c samples/args.h
samples_hooktree_CFLAGS = $(SAMPLE_COMPILE_FLAGS)
samples_hooktree_LDFLAGS = -pthread
samples_hooktree_pg_SOURCES = samples/hooktree.c samples/args.h
samples_hooktree_pg_CFLAGS = $(SAMPLE_COMPILE_FLAGS) -pg
samples_hooktree_pg_LDFLAGS = -pthread -pg
samples_hooktree_fentry_SOURCES = samples/hooktree.c samples/args.h
samples_hooktree_fentry_CFLAGS = $(SAMPLE_COMPILE_FLAGS) -pg -mfentry
samples_hooktree_fentry_LDFLAGS = -pthread -pg
samples_hooktree_finstr_SOURCES = samples/hooktree.c samples/args.h
samples_hooktree_finstr_CFLAGS = $(SAMPLE_COMPILE_FLAGS) -finstrument-functions
samples_hooktree_finstr_LDFLAGS = -pthread

EXTRA_DIST += samples/README samples/args.h

# C++: readable names, std::mutex and std::thread (see the file's top).
samples_cxxcalls_SOURCES = samples/cxxcalls.cc samples/args.h samples/selfcheck.h
samples_cxxcalls_CXXFLAGS = $(WARN_CXXFLAGS) -fno-omit-frame-pointer
samples_cxxcalls_LDFLAGS = -pthread
samples_cxxcalls_pg_SOURCES = $(samples_cxxcalls_SOURCES)
samples_cxxcalls_pg_CXXFLAGS = $(samples_cxxcalls_CXXFLAGS) -pg
samples_cxxcalls_pg_LDFLAGS = -pthread -pg

# C++: std::mutex through lock_guard and unique_lock, all inlined from the
# system's headers (see the file's top).
samples_cxxframes_SOURCES = samples/cxxframes.cc samples/args.h
samples_cxxframes_CXXFLAGS = $(WARN_CXXFLAGS) -fno-omit-frame-pointer
samples_cxxframes_LDFLAGS = -pthread

# C++: named locks (globals, a namespace's array, a function's static, a heap
# object's) and a semaphore used as a lock (see the file's top).
samples_bank_SOURCES = samples/bank.cc samples/args.h samples/selfcheck.h
samples_bank_CXXFLAGS = $(WARN_CXXFLAGS) -fno-omit-frame-pointer
samples_bank_LDFLAGS = -pthread

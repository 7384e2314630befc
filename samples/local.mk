# samples/ - small threaded programs that mtx traces in its tests and demos.
# Each one says at its top what it models and what a run of it under mtx must
# show; samples/selfcheck.h lets a run report its own ground truth.

noinst_PROGRAMS += samples/philosophers samples/clientserver samples/crossroad \
	samples/farm samples/barber samples/forkexec samples/iobound \
	samples/signals samples/c11threads

samples_philosophers_SOURCES = samples/philosophers.c samples/selfcheck.h
samples_philosophers_LDADD = -lpthread
samples_clientserver_SOURCES = samples/clientserver.c samples/selfcheck.h
samples_clientserver_LDADD = -lpthread
samples_crossroad_SOURCES = samples/crossroad.c samples/selfcheck.h
samples_crossroad_LDADD = -lpthread
samples_farm_SOURCES = samples/farm.c samples/selfcheck.h
samples_farm_LDADD = -lpthread
samples_barber_SOURCES = samples/barber.c samples/selfcheck.h
samples_barber_LDADD = -lpthread
samples_forkexec_SOURCES = samples/forkexec.c samples/selfcheck.h
samples_forkexec_LDADD = -lpthread
samples_iobound_SOURCES = samples/iobound.c samples/selfcheck.h
samples_iobound_LDADD = -lpthread
samples_signals_SOURCES = samples/signals.c samples/selfcheck.h
samples_signals_LDADD = -lpthread
samples_c11threads_SOURCES = samples/c11threads.c samples/selfcheck.h
samples_c11threads_LDADD = -lpthread

EXTRA_DIST += samples/README

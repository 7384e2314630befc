# collector/preload: libmtx-preload.so, injected into traced programs with
# LD_PRELOAD by `mtx collect` (included from collector/local.mk).
#
# Built without $(SAN_CFLAGS): a sanitizer runtime inside an LD_PRELOAD
# library of an uninstrumented program does not work. Only the interposed
# functions are exported (-fvisibility=hidden, PRELOAD_EXPORT).
pkglib_LTLIBRARIES += collector/preload/libmtx-preload.la
collector_preload_libmtx_preload_la_SOURCES = \
	collector/preload/shm.h \
	collector/preload/lane.h \
	collector/preload/preload.h \
	collector/preload/preload.c \
	collector/preload/preload-locks.c \
	collector/preload/preload-sem.c \
	collector/preload/preload-thread.c \
	collector/preload/preload-signal.c \
	collector/preload/preload-sched.c \
	collector/preload/preload-phase.c \
	collector/preload/preload-calls.c \
	collector/preload/preload-jump.c \
	collector/preload/preload-unwind.c \
	collector/preload/preload-inject.c
collector_preload_libmtx_preload_la_CFLAGS = $(WARN_CFLAGS) -fno-omit-frame-pointer \
	-fvisibility=hidden -ftls-model=initial-exec
collector_preload_libmtx_preload_la_LDFLAGS = -module -avoid-version -shared
collector_preload_libmtx_preload_la_LIBADD = -ldl -lpthread
EXTRA_DIST += collector/preload/local.mk
# for programs that mark their phases (mtx-collect(1), PHASES)
include_HEADERS += collector/preload/mtx-phase.h

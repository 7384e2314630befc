# collector/sync/: the collector's side of the preload library's channel
# (the shared-memory region it drains, the pump, the objects and their
# lifetimes, resolving waits and holders, their names), the uprobes that stand in for
# the library where it cannot go, and injecting it. Part of
# libmtxcollector.a: it and collector/ call each other.
collector_sync_sources = \
	collector/sync/region.c collector/sync/region.h \
	collector/sync/tsc-map.c collector/sync/tsc-map.h \
	collector/sync/pump.c collector/sync/pump.h \
	collector/sync/objects.c collector/sync/objects.h \
	collector/sync/resolve.c collector/sync/resolve.h \
	collector/sync/summary.c collector/sync/summary.h \
	collector/sync/names.c collector/sync/names.h \
	collector/sync/inject.c collector/sync/inject.h \
	collector/sync/inject-overhead.c collector/sync/inject-overhead.h \
	collector/sync/collect-sync.c collector/sync/collect-sync.h \
	collector/sync/uprobes.c collector/sync/uprobes.h \
	collector/sync/uprobes-pair.c collector/sync/uprobes-impl.h
EXTRA_DIST += collector/sync/local.mk

/*
 * collector/sync/inject.h - putting libmtx-preload.so into the traced program:
 * where the library is, whether the program can load it, and the
 * environment that makes it do so.
 */
#ifndef MTX_COLLECTOR_INJECT_H
#define MTX_COLLECTOR_INJECT_H

#include <stddef.h>

/*
 * inject_find_library - the absolute path of libmtx-preload.so into @out:
 * $MTX_PRELOAD_LIB if set, else the build tree next to the running mtx
 * (collector/preload/.libs), else the installed one in PKGLIBDIR: under
 * the root the running mtx is installed under (ROOT/BINDIR/mtx: a make
 * install DESTDIR=ROOT), else as it is.
 * Returns 0, or -ENOENT when none exists.
 */
int inject_find_library(char *out, size_t size);

/*
 * inject_blocker - why the dynamic loader will not load a preload library
 * into the program at @path: "is statically linked", "is set-user-ID" or
 * "is set-group-ID" (to another user than ours), "is a 32-bit program", or
 * NULL when it will.
 */
const char *inject_blocker(const char *path);

/*
 * inject_ld_preload - "LD_PRELOAD=@lib", followed by the caller's own
 * LD_PRELOAD if there is one, into @out. Returns 0 or -ENAMETOOLONG.
 */
int inject_ld_preload(const char *lib, char *out, size_t size);

#endif

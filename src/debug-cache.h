/*
 * src/debug-cache.h - uncompressed copies of separate debug files, kept by
 * build-id, so that naming a run's functions does not inflate the same
 * DWARF again at the end of every run.
 *
 * Distributions ship debug files (libc6-dbg, *-dbgsym) with zlib-compressed
 * .debug_* sections, and libdw inflates every one of them when it first
 * opens the file: ~55 ms for libc's, paid by every run whose stacks or
 * call sites pass through libc. The copy is made the first time (the same
 * inflating, plus writing ~15 MB) and only mapped afterwards. A file's
 * build-id names its contents, so a copy never goes stale.
 *
 * The copies live in $MTX_DEBUG_CACHE if it is set (empty: no cache), else
 * $XDG_CACHE_HOME/mtx/debug, else $HOME/.cache/mtx/debug. Adding one keeps
 * the folder's copies under DEBUG_CACHE_MAX_BYTES: the least recently used
 * go (a copy found is marked used), as debug files of upgraded libraries
 * would otherwise pile up.
 */
#ifndef MTX_DEBUG_CACHE_H
#define MTX_DEBUG_CACHE_H

#include <stddef.h>

#define DEBUG_CACHE_MAX_BYTES (1LL << 30) /* a copy of libc's is ~15 MB */

/*
 * debug_cache_find - a read-only descriptor of the copy of the debug file
 * whose build-id is @id (@id_size bytes), and *@copy_path its path
 * (malloc'd); -1 when there is none (or no cache).
 */
int debug_cache_find(const unsigned char *id, size_t id_size, char **copy_path);

/*
 * debug_cache_add - make that copy from the debug file open at @fd, if it
 * has compressed sections and the cache can be written (else nothing
 * happens: names are found as before, only slower). @fd's offset is left
 * unchanged.
 */
void debug_cache_add(int fd, const unsigned char *id, size_t id_size);

/*
 * debug_cache_prune - delete the least recently changed copies (*.debug)
 * of folder @dir until the rest take at most @max_bytes, never @keep (a
 * file name in @dir, or NULL). debug_cache_add runs it; exposed for tests.
 */
void debug_cache_prune(const char *dir, long long max_bytes, const char *keep);

#endif

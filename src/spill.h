/*
 * src/spill.h - the arrays that grow with a run's rows, in a file rather
 * than in memory, so that mtx collect's memory stays bounded however long
 * the program runs (issue 29: peak RSS <= 512 MB at any size).
 *
 * An array grown with spill_grow lives in malloc's memory until it passes
 * SPILL_MIN_BYTES while the process holds more than SPILL_MEMORY_BYTES of
 * anonymous memory (a run that fits pays nothing for the file); from then
 * on, once spill_beside has named a directory, in a
 * mapping of its own range of one unnamed file there (blocks reserved with
 * fallocate, so that a full disk is an error, not a SIGBUS). The pages are
 * the kernel's page cache: a thread drops them from the process whenever
 * more than SPILL_RESIDENT_BYTES of them are mapped in, and the next access
 * maps them in again from the cache (or the disk), as SQLite's pages are.
 * Without spill_beside, or when the file cannot be had, spill_grow is
 * grow_array.
 */
#ifndef MTX_SRC_SPILL_H
#define MTX_SRC_SPILL_H

#include <stddef.h>
#include <stdint.h>

#define SPILL_MIN_BYTES (4u << 20)
#define SPILL_MEMORY_BYTES (256u << 20)
#define SPILL_RESIDENT_BYTES (128u << 20)

/* spill_file_beside - an unnamed file in the directory of the file @path
 * (its file system is the one the run goes to; /tmp may be memory), or -1:
 * no path, or neither O_TMPFILE nor a file of our own can be made there. */
int spill_file_beside(const char *path);

/* spill_beside - spill into an unnamed file in the directory of the file
 * @path from now on (the first call's holds for the process). 0 or -errno. */
int spill_beside(const char *path);

/* spill_grow - as grow_array (src/grow.h), and into the file past
 * SPILL_MIN_BYTES. */
void *spill_grow(void *items, size_t *cap, size_t len, size_t elem, size_t first);

/* spill_realloc - @items (@old_bytes of them valid) in @bytes, as
 * realloc: NULL when there is no room, @items unchanged then. */
void *spill_realloc(void *items, size_t old_bytes, size_t bytes);

/* spill_free - free an array of spill_grow or spill_realloc (NULL too). */
void spill_free(void *items);

struct spill_stats {
	uint64_t bytes;      /* what the file holds now */
	uint64_t peak_bytes; /* the most it held at once */
	uint64_t drops;      /* times the pages were dropped from the process */
};
struct spill_stats spill_stats(void);

#endif

/*
 * src/spill.c - the arrays that grow with a run's rows, in a file (spill.h).
 */
#include "config.h"
#include "src/spill.h"
#include "src/grow.h"
#include "src/log.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/*
 * Each spilled array has a slot: SLOT_BYTES of the file, mapped whole at
 * once (one mapping, no copy when the array grows); only the part it uses
 * has blocks (fallocate), the rest is a hole that costs nothing. A slot
 * given back is punched and used again.
 */
#define SLOT_BYTES ((off_t)1 << 33) /* 8 GiB: an array larger is copied to memory */
/* 8 TiB of file, within ext4's 16: five tables' arrays of 200 threads
 * (past that, arrays stay in memory) */
#define MAX_SLOTS 1024

struct spilled {
	char *addr;  /* the slot's mapping */
	size_t used; /* its first bytes that have blocks */
	off_t off;   /* where the slot lies in the file */
};

/* How often the dropping thread looks at what is mapped in. */
#define WATCH_NS 10000000L

static struct {
	pthread_mutex_t lock;
	int fd; /* -1: no file, arrays stay in memory */
	struct spilled v[MAX_SLOTS];
	size_t len;
	off_t free_slots[MAX_SLOTS]; /* slots given back */
	size_t nr_free;
	off_t end; /* the file's size: the slots ever made */
	bool watching; /* the dropping thread runs */
	uint64_t bytes, peak_bytes, drops;
} sp = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

int spill_file_beside(const char *path)
{
	char *copy = path && *path ? strdup(path) : NULL, tmp[4096];
	int fd;
	if (!copy)
		return -1;
	const char *dir = dirname(copy);
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && snprintf(tmp, sizeof(tmp), "%s/.mtx-spill-XXXXXX", dir) < (int)sizeof(tmp) &&
	    (fd = mkostemp(tmp, O_CLOEXEC)) >= 0)
		unlink(tmp);
	free(copy);
	return fd;
}

int spill_beside(const char *path)
{
	int rc = 0;
	pthread_mutex_lock(&sp.lock);
	if (sp.fd < 0) {
		int fd = spill_file_beside(path);
		if (fd < 0) {
			rc = -(errno ? errno : EINVAL);
			log_debug("spill: no file beside %s: large arrays stay in memory", path);
		}
		__atomic_store_n(&sp.fd, fd, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&sp.lock);
	return rc;
}

/* What the process has in memory (/proc/self/statm): its anonymous pages
 * (resident less shared), or the file pages it has mapped in (shared: of
 * which the program's own text is a few MB). 0 when unknown. */
static uint64_t statm_bytes(bool file)
{
	unsigned long size = 0, resident = 0, shared = 0;
	FILE *f = fopen("/proc/self/statm", "re");
	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu %lu", &size, &resident, &shared) != 3)
		resident = shared = 0;
	fclose(f);
	return (uint64_t)(file ? shared : resident - shared) * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Drop every spilled page from the process when too many are mapped in.
 * MADV_DONTNEED on a shared mapping of a file keeps the data: a dirty page
 * stays dirty in the page cache, and the next access maps it again. */
static void *watch(void *unused)
{
	(void)unused;
	for (;;) {
		nanosleep(&(struct timespec){ 0, WATCH_NS }, NULL);
		if (statm_bytes(true) <= SPILL_RESIDENT_BYTES)
			continue;
		pthread_mutex_lock(&sp.lock);
		for (size_t i = 0; i < sp.len; i++)
			madvise(sp.v[i].addr, sp.v[i].used, MADV_DONTNEED);
		sp.drops++;
		pthread_mutex_unlock(&sp.lock);
	}
	return NULL;
}

/* The index of @addr among the spilled arrays, or sp.len. Locked. */
static size_t find(const void *addr)
{
	size_t i = 0;
	while (i < sp.len && sp.v[i].addr != addr)
		i++;
	return i;
}

static size_t page_up(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (bytes + page - 1) / page * page;
}

/* Blocks for the first @bytes of the array @s: true, or false when the
 * file system has no room (an access past them could not be stored). */
static bool spill_room(struct spilled *s, size_t bytes)
{
	size_t want = page_up(bytes);
	if (want <= s->used)
		return true;
	if (want > (size_t)SLOT_BYTES || fallocate(sp.fd, 0, s->off + (off_t)s->used, (off_t)(want - s->used)))
		return false;
	sp.bytes += want - s->used;
	if (sp.bytes > sp.peak_bytes)
		sp.peak_bytes = sp.bytes;
	s->used = want;
	return true;
}

static void start_watching(void)
{
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sp.watching = !pthread_create(&t, &attr, watch, NULL);
	pthread_attr_destroy(&attr);
	log_debug("spill: arrays past %u MB go to a file; at most %u MB of it mapped in", SPILL_MIN_BYTES >> 20,
		  SPILL_RESIDENT_BYTES >> 20);
}

/* A new array of @bytes in a slot of the file, or NULL (no file, no slot,
 * no room). Locked. */
static void *spill_new(size_t bytes)
{
	if (sp.fd < 0 || sp.len == MAX_SLOTS)
		return NULL;
	off_t off = sp.nr_free ? sp.free_slots[sp.nr_free - 1] : sp.end;
	if (off == sp.end && ftruncate(sp.fd, sp.end + SLOT_BYTES))
		return NULL;
	char *addr = mmap(NULL, (size_t)SLOT_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, sp.fd, off);
	if (addr == MAP_FAILED)
		return NULL;
	/* No readahead: the pages first written are holes, and reading
	 * ahead zeroed large folios of them at each fault. */
	madvise(addr, (size_t)SLOT_BYTES, MADV_RANDOM);
	struct spilled *s = &sp.v[sp.len];
	*s = (struct spilled){ addr, 0, off };
	if (!spill_room(s, bytes)) { /* (it took no blocks: nothing to punch) */
		munmap(addr, (size_t)SLOT_BYTES);
		return NULL;
	}
	if (off == sp.end)
		sp.end += SLOT_BYTES;
	else
		sp.nr_free--;
	sp.len++;
	if (!sp.watching)
		start_watching();
	return addr;
}

/* Give back the spilled array @i: its mapping, and its blocks and cached
 * pages (the hole). Locked. */
static void spill_release(size_t i)
{
	struct spilled s = sp.v[i];
	munmap(s.addr, (size_t)SLOT_BYTES);
	fallocate(sp.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, s.off, (off_t)s.used);
	sp.bytes -= s.used;
	sp.free_slots[sp.nr_free++] = s.off;
	sp.v[i] = sp.v[--sp.len];
}

/* Copy @n bytes to the spilled array @to a piece at a time, each piece
 * dropped from the process once written (the watching thread waits for
 * the lock meanwhile: a 256 MB array would otherwise be in memory twice). */
static void copy_out(char *to, const char *from, size_t n)
{
	const size_t piece = 16u << 20;
	for (size_t at = 0; at < n; at += piece) {
		size_t k = n - at < piece ? n - at : piece;
		memcpy(to + at, from + at, k);
		madvise(to + at, k, MADV_DONTNEED);
	}
}

void *spill_realloc(void *items, size_t old_bytes, size_t bytes)
{
	bool file = __atomic_load_n(&sp.fd, __ATOMIC_ACQUIRE) >= 0;
	if (!file || (bytes < SPILL_MIN_BYTES && !__atomic_load_n(&sp.len, __ATOMIC_ACQUIRE)))
		return realloc(items, bytes);
	pthread_mutex_lock(&sp.lock);
	size_t at = find(items);
	bool spilled = at < sp.len; /* (spill_new appends after it) */
	void *p = NULL;
	if (spilled && spill_room(&sp.v[at], bytes)) {
		p = items; /* grown in its slot */
	} else if (!spilled && (bytes < SPILL_MIN_BYTES ||
				statm_bytes(false) + (bytes > old_bytes ? bytes - old_bytes : 0) <= SPILL_MEMORY_BYTES)) {
		p = realloc(items, bytes);
	} else {
		/* to the file, or to memory when there is no room there */
		bool to_file = (p = spill_new(bytes)) != NULL;
		size_t n = old_bytes < bytes ? old_bytes : bytes;
		if (!to_file)
			p = malloc(bytes);
		if (p && items && to_file)
			copy_out(p, items, n);
		else if (p && items)
			memcpy(p, items, n);
		if (p && spilled)
			spill_release(at);
		else if (p)
			free(items);
	}
	pthread_mutex_unlock(&sp.lock);
	return p;
}

void *spill_grow(void *items, size_t *cap, size_t len, size_t elem, size_t first)
{
	if (len < *cap)
		return items;
	size_t n = *cap ? *cap * 2 : first;
	void *p = spill_realloc(items, *cap * elem, n * elem);
	if (p)
		*cap = n;
	return p;
}

void spill_free(void *items)
{
	if (!items)
		return;
	if (!__atomic_load_n(&sp.len, __ATOMIC_ACQUIRE)) {
		free(items);
		return;
	}
	pthread_mutex_lock(&sp.lock);
	size_t at = find(items);
	if (at < sp.len)
		spill_release(at);
	else
		free(items);
	pthread_mutex_unlock(&sp.lock);
}

struct spill_stats spill_stats(void)
{
	pthread_mutex_lock(&sp.lock);
	struct spill_stats s = { sp.bytes, sp.peak_bytes, sp.drops };
	pthread_mutex_unlock(&sp.lock);
	return s;
}

/*
 * src/debug-cache.c - see debug-cache.h.
 *
 * The copy is the original with each compressed section inflated in place
 * (elf_compress(.., 0, 0)) and the file laid out again by libelf; nothing
 * else changes. It is written under a temporary name and renamed, so that
 * a reader never sees half a copy and two runs making it at once agree.
 */
#include "config.h"
#include "src/debug-cache.h"
#include "src/hex.h"
#include "src/grow.h"

#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The cache folder (malloc'd), or NULL when there is none. */
static char *cache_dir(void)
{
	const char *env = getenv("MTX_DEBUG_CACHE"), *base;
	char *dir = NULL;
	if (env)
		return *env ? strdup(env) : NULL;
	if ((base = getenv("XDG_CACHE_HOME")) && *base) {
		if (asprintf(&dir, "%s/mtx/debug", base) < 0)
			dir = NULL;
	} else if ((base = getenv("HOME")) && *base) {
		if (asprintf(&dir, "%s/.cache/mtx/debug", base) < 0)
			dir = NULL;
	}
	return dir;
}

/* mkdir -p @dir (which ends in a name). */
static int make_dirs(char *dir)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int rc = mkdir(dir, 0755);
		*p = '/';
		if (rc && errno != EEXIST)
			return -1;
	}
	return mkdir(dir, 0755) && errno != EEXIST ? -1 : 0;
}

static int has_compressed_section(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED))
			return 1;
	return 0;
}

/* Whether the ELF file at @fd carries build-id @id. */
static int build_id_is(int fd, const unsigned char *id, size_t id_size)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *its;
	int same = elf && dwelf_elf_gnu_build_id(elf, &its) == (ssize_t)id_size && !memcmp(its, id, id_size);
	elf_end(elf);
	return same;
}

/* Copy the file at @in into @out, then inflate @out's compressed sections. */
static int write_copy(int in, int out)
{
	char buf[1 << 16];
	off_t off = 0;
	ssize_t n;
	while ((n = pread(in, buf, sizeof(buf), off)) > 0) {
		if (write(out, buf, (size_t)n) != n)
			return -1;
		off += n;
	}
	if (n < 0)
		return -1;
	Elf *elf = elf_begin(out, ELF_C_RDWR, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int rc = elf ? 0 : -1;
	while (!rc && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			rc = -1;
	if (!rc && elf_update(elf, ELF_C_WRITE) < 0)
		rc = -1;
	elf_end(elf);
	return rc;
}

/* The path of @id's copy (malloc'd), or NULL when there is no cache. */
static char *copy_path_of(const unsigned char *id, size_t id_size, char **dir)
{
	char *path = NULL;
	if (!id_size || !(*dir = cache_dir()))
		return NULL;
	if ((path = malloc(strlen(*dir) + 2 * id_size + sizeof("/.debug")))) {
		char *p = path + sprintf(path, "%s/", *dir);
		hex_bytes(id, id_size, p);
		strcat(p, ".debug");
	}
	return path;
}

int debug_cache_find(const unsigned char *id, size_t id_size, char **copy_path)
{
	char *dir = NULL, *path = copy_path_of(id, id_size, &dir);
	int copy = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(dir);
	/* A copy that is not the file it is named after is left alone (a
	 * half-written one cannot be there: see the rename). */
	if (copy >= 0 && !build_id_is(copy, id, id_size)) {
		close(copy);
		copy = -1;
	}
	if (copy < 0) {
		free(path);
	} else {
		futimens(copy, NULL); /* used now: the last that pruning deletes */
		*copy_path = path;
	}
	return copy;
}

struct cached_copy {
	char *name;
	long long bytes;
	struct timespec used;
};

static int older_first(const void *a, const void *b)
{
	const struct timespec *x = &((const struct cached_copy *)a)->used, *y = &((const struct cached_copy *)b)->used;
	return x->tv_sec != y->tv_sec ? (x->tv_sec > y->tv_sec) - (x->tv_sec < y->tv_sec)
				      : (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

void debug_cache_prune(const char *dir, long long max_bytes, const char *keep)
{
	DIR *d = opendir(dir);
	struct cached_copy *copies = NULL;
	size_t n = 0, cap = 0;
	long long total = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		struct stat sb;
		size_t len = strlen(e->d_name);
		if (len <= 6 || strcmp(e->d_name + len - 6, ".debug") ||
		    fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode))
			continue;
		struct cached_copy *more = grow_array(copies, &cap, n, sizeof(*more), 64);
		if (!more)
			break;
		copies = more;
		if (!(copies[n].name = strdup(e->d_name)))
			break;
		copies[n].bytes = (long long)sb.st_size;
		copies[n++].used = sb.st_mtim;
		total += (long long)sb.st_size;
	}
	if (total > max_bytes)
		qsort(copies, n, sizeof(*copies), older_first);
	for (size_t i = 0; i < n && total > max_bytes; i++)
		if ((!keep || strcmp(copies[i].name, keep)) && unlinkat(dirfd(d), copies[i].name, 0) == 0)
			total -= copies[i].bytes;
	for (size_t i = 0; i < n; i++)
		free(copies[i].name);
	free(copies);
	if (d)
		closedir(d);
}

void debug_cache_add(int fd, const unsigned char *id, size_t id_size)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int compressed = elf && has_compressed_section(elf);
	elf_end(elf);
	char *dir = NULL, *path = compressed ? copy_path_of(id, id_size, &dir) : NULL, *tmp = NULL;
	if (path && make_dirs(dir) == 0 && asprintf(&tmp, "%s.XXXXXX", path) >= 0) {
		int out = mkostemp(tmp, O_CLOEXEC);
		if (out >= 0 && (write_copy(fd, out) || fchmod(out, 0644) || rename(tmp, path)))
			unlink(tmp);
		else if (out >= 0)
			debug_cache_prune(dir, DEBUG_CACHE_MAX_BYTES, strrchr(path, '/') + 1);
		if (out >= 0)
			close(out);
		free(tmp);
	}
	free(path);
	free(dir);
}

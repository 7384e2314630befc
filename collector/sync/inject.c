/* collector/sync/inject.c - see inject.h. */
#include "config.h"
#include "collector/sync/inject.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PRELOAD_NAME "libmtx-preload.so"

static int usable(const char *path)
{
	return path[0] == '/' && access(path, R_OK) == 0;
}

int inject_find_library(char *out, size_t size)
{
	const char *env = getenv("MTX_PRELOAD_LIB");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(out, size, "%s", env);
		return usable(out) ? 0 : -ENOENT;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;
		size_t dir_len, bin_len = strlen(BINDIR);
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(out, size, "%s/collector/preload/.libs/" PRELOAD_NAME, self);
			if (usable(out))
				return 0;
			/* Installed under a root of its own (make install
			 * DESTDIR=/tmp/inst): the library is under the same. */
			dir_len = strlen(self);
			if (dir_len > bin_len && !strcmp(self + dir_len - bin_len, BINDIR)) {
				snprintf(out, size, "%.*s%s/" PRELOAD_NAME, (int)(dir_len - bin_len), self, PKGLIBDIR);
				if (usable(out))
					return 0;
			}
		}
	}
	snprintf(out, size, "%s/" PRELOAD_NAME, PKGLIBDIR);
	return usable(out) ? 0 : -ENOENT;
}

/* Whether the ELF file open on @fd asks for a program interpreter (the
 * dynamic loader). 1 yes, 0 no, -1 not an ELF file we can read, 2 a 32-bit
 * one (our library is 64-bit). */
static int has_interpreter(int fd)
{
	unsigned char ident[EI_NIDENT];
	if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		return -1;
	if (ident[EI_CLASS] == ELFCLASS32)
		return 2;
	if (ident[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;
		if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
			return -1;
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
			    (ssize_t)sizeof(ph))
				return -1;
			if (ph.p_type == PT_INTERP)
				return 1;
		}
		return 0;
	}
	return -1;
}

const char *inject_blocker(const char *path)
{
	struct stat sb;
	int fd, interp;

	if (stat(path, &sb) < 0)
		return NULL;
	/* The loader runs set-ID programs in secure mode, which ignores a
	 * preload library given by path. */
	if ((sb.st_mode & S_ISUID) && sb.st_uid != geteuid())
		return "is set-user-ID";
	if ((sb.st_mode & S_ISGID) && sb.st_gid != getegid())
		return "is set-group-ID";
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	interp = has_interpreter(fd);
	close(fd);
	/* Scripts (#!) are not ELF: their interpreter is dynamic in practice. */
	if (interp == 2)
		return "is a 32-bit program";
	return interp == 0 ? "is statically linked" : NULL;
}

int inject_ld_preload(const char *lib, char *out, size_t size)
{
	const char *old = getenv("LD_PRELOAD");
	int n;
	if (old && *old)
		n = snprintf(out, size, "LD_PRELOAD=%s:%s", lib, old);
	else
		n = snprintf(out, size, "LD_PRELOAD=%s", lib);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

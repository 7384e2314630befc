/*
 * src/small-file.h - the text of a small file (/proc, tracefs) in one read,
 * and the fields of a /proc stat file.
 */
#ifndef MTX_SMALL_FILE_H
#define MTX_SMALL_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* small_file_read - up to @size - 1 bytes of the file at @path into @buf,
 * NUL-terminated. Returns how many, -errno, or -ENODATA for an empty
 * file. One read: the kernel's pseudo-files give their text whole. */
static inline ssize_t small_file_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n == 0)
		n = -ENODATA;
	if (n > 0)
		buf[n] = '\0';
	return n;
}

/* proc_stat_read - a /proc/PID[/task/TID]/stat file at @path into @buf;
 * returns where its field 3 (the state) starts, after the name in
 * parentheses (which may hold blanks and parentheses), or NULL. */
static inline const char *proc_stat_read(const char *path, char *buf, size_t size)
{
	char *p;

	if (small_file_read(path, buf, size) < 0 || !(p = strrchr(buf, ')')))
		return NULL;
	return p + 1;
}

/* proc_stat_field - field @n (proc(5)'s numbering, n >= 3) of the stat
 * fields starting at @fields (proc_stat_read), as a number in *@v.
 * Returns 0, or -1 when the text has no such field. */
static inline int proc_stat_field(const char *fields, int n, long long *v)
{
	const char *p = fields;

	for (int field = 3; field < n; field++) {
		while (*p == ' ')
			p++;
		if (!*p || !(p = strchr(p, ' ')))
			return -1;
	}
	while (*p == ' ')
		p++;
	if (!*p)
		return -1;
	*v = strtoll(p, NULL, 10);
	return 0;
}

#endif

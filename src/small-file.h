/*
 * src/small-file.h - the text of a small file (/proc, tracefs) in one read.
 */
#ifndef MTX_SMALL_FILE_H
#define MTX_SMALL_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
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

#endif

/*
 * iobound - threads that mostly wait for the disk and for a pipe.
 *
 * Usage: iobound [files=4]     (1 <= files <= 64)
 *
 * Phase 1: one writer thread per file ("writer-<i>") fills an 8 MiB file in
 * a fresh mkdtemp directory under $TMPDIR (or /tmp) with generated data
 * (fill_block()), 64 KiB per write(2) and an fsync every 256 KiB, then
 * drops it from the page cache (posix_fadvise DONTNEED) so that phase 2
 * reads the disk.
 * Phase 2: a consumer thread ("consumer", detached) reads 4 KiB records
 * from a pipe and checksums them (checksum_record()); one reader thread per
 * file ("reader-<i>") reads its file in 4 KiB records and writes each into
 * the pipe (4 KiB = PIPE_BUF, so records never interleave).  Main joins the
 * readers, closes the pipe and waits for the consumer on a semaphore.  The
 * checksum is a sum of per-record hashes, so it does not depend on the order
 * in which records cross the pipe.  Writers and readers add their byte
 * counts to totals under a mutex.  Everything is removed at the end.
 *
 * A run under mtx must show:
 *  - 2*files+2 threads: main, the writers (phase 1), then the readers and
 *    the consumer (phase 2), the two phases not overlapping;
 *  - writers blocked on I/O (write, fsync), readers blocked on I/O (read of
 *    uncached data) and on the full pipe (write), the consumer blocked on
 *    the empty pipe (read); lots of read/write syscalls, little CPU except
 *    fill_block() and checksum_record();
 *  - the consumer detached (never joined); main blocked in sem_wait.
 * Output: files, bytes and checksum; the same for the same arguments.
 * The consumer's last call, sem_post, is counted before its
 * selfcheck_thread_done: a detached thread has nobody to wait for its end.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samples/selfcheck.h"

#define FILE_SIZE (8UL << 20)
#define BLOCK_SIZE (64UL << 10)
#define SYNC_EVERY 4		/* blocks: fsync every 256 KiB */
#define RECORD_SIZE 4096UL	/* == PIPE_BUF on Linux: atomic pipe writes */

static unsigned int nr_files;
static char dir[PATH_MAX - 32];
static int pipe_fds[2];
static pthread_mutex_t totals_lock;
static unsigned long bytes_written, bytes_read;
static sem_t consumer_done;
static uint64_t checksum;	/* written by the consumer before it posts */

static void file_path(char *path, size_t size, unsigned int i)
{
	snprintf(path, size, "%s/file-%u", dir, i);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void add_total(unsigned long *total, unsigned long n)
{
	selfcheck_count("mutex", "lock");
	pthread_mutex_lock(&totals_lock);
	*total += n;
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&totals_lock);
}

static __attribute__((noinline)) void fill_block(uint64_t *block, unsigned int file, unsigned long nr)
{
	uint64_t x = ((uint64_t)file << 32 | nr) * 0x9e3779b97f4a7c15ULL + 1;
	size_t i;

	for (i = 0; i < BLOCK_SIZE / sizeof(*block); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		block[i] = x;
	}
}

static __attribute__((noinline)) uint64_t checksum_record(const unsigned char *rec)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < RECORD_SIZE; i++)
		h = (h ^ rec[i]) * 0x100000001b3ULL;
	return h;
}

static void *writer(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;
	static __thread uint64_t block[BLOCK_SIZE / sizeof(uint64_t)];
	char path[PATH_MAX], name[16];
	unsigned long nr;
	int fd;

	snprintf(name, sizeof(name), "writer-%u", id);
	pthread_setname_np(pthread_self(), name);
	file_path(path, sizeof(path), id);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path);
	for (nr = 0; nr < FILE_SIZE / BLOCK_SIZE; nr++) {
		fill_block(block, id, nr);
		if (write(fd, block, BLOCK_SIZE) != (ssize_t)BLOCK_SIZE)
			die("iobound: write");
		if (nr % SYNC_EVERY == SYNC_EVERY - 1 && fsync(fd) != 0)
			die("iobound: fsync");
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	add_total(&bytes_written, FILE_SIZE);
	selfcheck_thread_done("writer");
	return NULL;
}

static int read_full(int fd, unsigned char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;

	while (got < size) {
		n = read(fd, buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("iobound: read");
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return got == size;
}

static void *reader(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;
	unsigned char rec[RECORD_SIZE];
	char path[PATH_MAX], name[16];
	unsigned long total = 0;
	int fd;

	snprintf(name, sizeof(name), "reader-%u", id);
	pthread_setname_np(pthread_self(), name);
	file_path(path, sizeof(path), id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	while (read_full(fd, rec, sizeof(rec))) {
		if (write(pipe_fds[1], rec, sizeof(rec)) != (ssize_t)sizeof(rec))
			die("iobound: write to pipe");
		total += sizeof(rec);
	}
	close(fd);
	add_total(&bytes_read, total);
	selfcheck_thread_done("reader");
	return NULL;
}

static void *consumer(void *arg)
{
	unsigned char rec[RECORD_SIZE];
	uint64_t sum = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "consumer");
	while (read_full(pipe_fds[0], rec, sizeof(rec)))
		sum += checksum_record(rec);
	checksum = sum;
	selfcheck_count("sem", "post");
	selfcheck_thread_done("consumer");
	sem_post(&consumer_done);
	return NULL;
}

static void start(pthread_t *t, void *(*fn)(void *), unsigned long arg)
{
	selfcheck_count("thread", "create");
	if (pthread_create(t, NULL, fn, (void *)arg) != 0) {
		fprintf(stderr, "iobound: pthread_create failed\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	pthread_t *threads, cons;
	unsigned long n = 4;
	unsigned int i;

	if (argc > 1) {
		char *end;

		errno = 0;
		n = strtoul(argv[1], &end, 10);
		if (argc > 2 || errno || end == argv[1] || *end || argv[1][0] == '-' || n < 1 || n > 64) {
			fprintf(stderr, "usage: iobound [files=4 (1..64)]\n");
			return 2;
		}
	}
	nr_files = (unsigned int)n;
	threads = calloc(nr_files, sizeof(*threads));
	if (!threads)
		die("iobound: calloc");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if ((size_t)snprintf(dir, sizeof(dir), "%s/mtx-iobound-XXXXXX", tmp) >= sizeof(dir)) {
		fprintf(stderr, "iobound: TMPDIR too long\n");
		return 1;
	}
	if (!mkdtemp(dir))
		die("iobound: mkdtemp");
	selfcheck_count("mutex", "init");
	pthread_mutex_init(&totals_lock, NULL);
	selfcheck_count("sem", "init");
	sem_init(&consumer_done, 0, 0);

	for (i = 0; i < nr_files; i++)
		start(&threads[i], writer, i);
	for (i = 0; i < nr_files; i++) {
		selfcheck_count("thread", "join");
		pthread_join(threads[i], NULL);
	}

	if (pipe2(pipe_fds, O_CLOEXEC) != 0)
		die("iobound: pipe");
	start(&cons, consumer, 0);
	selfcheck_count("thread", "detach");
	pthread_detach(cons);
	for (i = 0; i < nr_files; i++)
		start(&threads[i], reader, i);
	for (i = 0; i < nr_files; i++) {
		selfcheck_count("thread", "join");
		pthread_join(threads[i], NULL);
	}
	close(pipe_fds[1]);	/* EOF for the consumer */
	selfcheck_count("sem", "wait");
	while (sem_wait(&consumer_done) != 0)
		selfcheck_count("sem", "wait");
	close(pipe_fds[0]);

	for (i = 0; i < nr_files; i++) {
		file_path(path, sizeof(path), i);
		unlink(path);
	}
	rmdir(dir);
	printf("files %u\n", nr_files);
	printf("bytes written %lu read %lu\n", bytes_written, bytes_read);
	printf("checksum %016llx\n", (unsigned long long)checksum);
	fflush(stdout);
	selfcheck_count("sem", "destroy");
	sem_destroy(&consumer_done);
	selfcheck_count("mutex", "destroy");
	pthread_mutex_destroy(&totals_lock);
	free(threads);
	selfcheck_thread_done("main");
	return 0;
}

/*
 * tests/unit/test-fd-kind.c - what a file descriptor is: the link texts of
 * /proc/<pid>/fd classified, the real resolver on descriptors of this very
 * process, and the table of syscalls that take or make descriptors.
 */
#define _GNU_SOURCE
#include "config.h"
#include "collector/fd-kind.h"
#include "collector/syscall-names.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

Test(fd_kind, link_texts_are_classified)
{
	static const struct {
		const char *link;
		mode_t mode;
		const char *kind; /* NULL: unknown */
	} cases[] = {
		{ "pipe:[320592]", S_IFIFO, "pipe" },
		{ "socket:[320603]", S_IFSOCK, "socket" },
		{ "anon_inode:[eventfd]", 0, "eventfd" },
		{ "anon_inode:[timerfd]", 0, "timerfd" },
		{ "anon_inode:[signalfd]", 0, "signalfd" },
		{ "anon_inode:[eventpoll]", 0, "epoll" },
		{ "anon_inode:inotify", 0, "inotify" },
		{ "anon_inode:[pidfd]", 0, "pidfd" },
		{ "anon_inode:[userfaultfd]", 0, "anon" },
		{ "anon_inode:[io_uring]", 0, "anon" },
		{ "/memfd:buffer (deleted)", S_IFREG, "memfd" },
		{ "/tmp/x/file-0", S_IFREG, "file" },
		{ "/tmp/x/file-0 (deleted)", S_IFREG, "file" },
		{ "/dev/shm/seg", S_IFREG, "file" }, /* under /dev but a file */
		{ "/tmp", S_IFDIR, "dir" },
		{ "/tmp/fifo", S_IFIFO, "pipe" },
		{ "/dev/pts/3", S_IFCHR, "tty" },
		{ "/dev/tty1", S_IFCHR, "tty" },
		{ "/dev/ttyS0", S_IFCHR, "tty" },
		{ "/dev/console", S_IFCHR, "tty" },
		{ "/dev/null", S_IFCHR, "dev" },
		{ "/dev/sda", S_IFBLK, "dev" },
		{ "/tmp/gone", 0, NULL },            /* stat failed */
		{ "net:[4026531833]", S_IFREG, NULL }, /* a namespace */
		{ "", 0, NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = fd_kind_name(fd_kind_classify(cases[i].link, cases[i].mode));
		if (cases[i].kind)
			cr_expect(got && strcmp(got, cases[i].kind) == 0, "%s: %s, not %s", cases[i].link,
				  got ? got : "NULL", cases[i].kind);
		else
			cr_expect_null(got, "%s: %s, not unknown", cases[i].link, got);
	}
}

Test(fd_kind, every_kind_has_a_distinct_name)
{
	cr_assert_null(fd_kind_name(MTX_FD_UNKNOWN));
	cr_assert_null(fd_kind_name(MTX_FD__COUNT));
	for (int a = 1; a < MTX_FD__COUNT; a++) {
		cr_assert_not_null(fd_kind_name(a));
		for (int b = a + 1; b < MTX_FD__COUNT; b++)
			cr_assert_str_neq(fd_kind_name(a), fd_kind_name(b));
	}
}

static char resolved_path[4096];

static const char *resolve(int fd)
{
	uint64_t looked_ns = 0;
	enum mtx_fd_kind kind = fd_kind_resolve_proc(NULL, getpid(), fd, &looked_ns, resolved_path,
						     sizeof(resolved_path));
	cr_assert_gt(looked_ns, 0, "the lookup is stamped");
	return fd_kind_name(kind);
}

#define assert_resolves(fd, want)                                                          \
	do {                                                                               \
		int fd_ = (fd);                                                            \
		const char *got_;                                                          \
		cr_assert_geq(fd_, 0, "creating the descriptor for %s", want);             \
		got_ = resolve(fd_);                                                       \
		cr_assert(got_ && strcmp(got_, want) == 0, "%s resolved as %s", want,     \
			  got_ ? got_ : "NULL");                                           \
	} while (0)

Test(fd_kind, this_process_descriptors_resolve_from_proc)
{
	int p[2], sv[2];
	char path[] = "/tmp/mtx-test-fd-kind-XXXXXX";
	sigset_t mask;
	int fd;

	cr_assert_eq(pipe(p), 0);
	assert_resolves(p[0], "pipe");
	assert_resolves(p[1], "pipe");
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_resolves(sv[0], "socket");
	assert_resolves(eventfd(0, 0), "eventfd");
	assert_resolves(timerfd_create(CLOCK_MONOTONIC, 0), "timerfd");
	sigemptyset(&mask);
	assert_resolves(signalfd(-1, &mask, 0), "signalfd");
	assert_resolves(epoll_create1(0), "epoll");
	assert_resolves(inotify_init1(0), "inotify");
	assert_resolves(memfd_create("mtx-test", 0), "memfd");
	assert_resolves(open("/tmp", O_RDONLY | O_DIRECTORY), "dir");
	assert_resolves(open("/dev/null", O_RDONLY), "dev");
	cr_assert_str_eq(resolved_path, "/dev/null");
	assert_resolves(p[0], "pipe");
	cr_assert_str_eq(resolved_path, "", "a pipe has no path");
	fd = mkstemp(path);
	assert_resolves(fd, "file");
	cr_assert_str_eq(resolved_path, path);
	{
		uint64_t looked_ns;
		char small[8] = "x";
		cr_assert_eq(fd_kind_resolve_proc(NULL, getpid(), fd, &looked_ns, small, sizeof(small)), MTX_FD_FILE);
		cr_assert_str_eq(small, "", "a path cut short is none");
	}
	unlink(path);
	assert_resolves(fd, "file"); /* deleted but open */
	char deleted[sizeof(path) + 16];
	snprintf(deleted, sizeof(deleted), "%s (deleted)", path);
	cr_assert_str_eq(resolved_path, deleted);
	fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (fd >= 0) /* kernels before 5.3 have no pidfd */
		assert_resolves(fd, "pidfd");
	fd = open("/proc/self/ns/net", O_RDONLY);
	if (fd >= 0)
		cr_assert_null(resolve(fd), "a namespace is none of our kinds");
	fd = dup(p[0]);
	close(fd);
	cr_assert_null(resolve(fd), "a closed descriptor is unknown");
}

Test(fd_kind, the_syscall_table_names_real_syscalls_once)
{
	for (size_t i = 0; i < mtx_fd_nr_syscalls; i++) {
		int found = 0;
		for (int nr = 0; nr < syscall_names_count; nr++)
			found += syscall_names[nr] && strcmp(syscall_names[nr], mtx_fd_syscalls[i].name) == 0;
		cr_expect_eq(found, 1, "%s: %d syscalls of that name", mtx_fd_syscalls[i].name, found);
		for (size_t j = i + 1; j < mtx_fd_nr_syscalls; j++)
			cr_expect_str_neq(mtx_fd_syscalls[i].name, mtx_fd_syscalls[j].name);
		cr_expect_neq(mtx_fd_syscalls[i].roles, 0u, "%s does nothing with descriptors",
			      mtx_fd_syscalls[i].name);
	}
}

/*
 * tests/unit/test-unwind.c - collector/unwind.c without perf: this test
 * (built with -fomit-frame-pointer) takes its own registers and a copy of
 * its own stack, as a dwarf sample would carry them, and unwinds them over
 * its own executable's mapping; plus the ways a file or a sample is
 * refused.
 */
#include "config.h"
#include "collector/unwind.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COPY_BYTES 8192

#if defined(__GNUC__) && !defined(__clang__)
#define KEEP_CALL __attribute__((noipa))
#else
#define KEEP_CALL __attribute__((noinline))
#endif

/* The executable mapping of this test's own file (@lib NULL), or of the
 * file whose name ends in @lib: its path, start and offset. */
static int mapping_of(const char *lib, char *path, uint64_t *start, uint64_t *pgoff)
{
	char line[PATH_MAX + 128], exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "re");
	int found = 0;
	if (n <= 0 || !f)
		return -1;
	exe[n] = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perms[8], file[PATH_MAX];
		size_t len;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &lo, &hi, perms, &off, file) != 5 ||
		    perms[2] != 'x')
			continue;
		len = strlen(file);
		if (lib ? len >= strlen(lib) && !strcmp(file + len - strlen(lib), lib) : !strcmp(file, exe)) {
			*start = lo;
			*pgoff = off;
			strcpy(path, file);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

static struct mtx_user_stack *sample;
static uint64_t ret_into_level2, ret_into_level1;

/*
 * Copy @len bytes of this thread's stack from @from, as the kernel copies
 * it for PERF_SAMPLE_STACK_USER: every byte, whoever's it is. Under
 * AddressSanitizer the frames hold poisoned redzones, which memcpy (ASan
 * intercepts it) refuses to read: this function is not instrumented, and
 * its reads are volatile so that the compiler cannot make a memcpy of the
 * loop.
 */
#if defined(__GNUC__)
__attribute__((no_sanitize_address))
#endif
static void copy_raw_stack(uint8_t *to, const volatile uint8_t *from, size_t len)
{
	for (size_t i = 0; i < len; i++)
		to[i] = from[i];
}

/*
 * Registers (DWARF numbers) at one instruction of this function: the
 * callee-saved ones, sp and ip, all the CFI of the callers can ask for;
 * then a copy of the stack from that sp up to COPY_BYTES or the end of
 * the thread's stack, as PERF_SAMPLE_STACK_USER gives it.
 */
static KEEP_CALL int take_sample(void)
{
	struct { uint64_t rbx, rbp, rsp, r12, r13, r14, r15, rip; } c;
	pthread_attr_t attr;
	void *lo;
	size_t size, len;

	__asm__ volatile("mov %%rbx, 0(%0)\n\t"
			 "mov %%rbp, 8(%0)\n\t"
			 "mov %%rsp, 16(%0)\n\t"
			 "mov %%r12, 24(%0)\n\t"
			 "mov %%r13, 32(%0)\n\t"
			 "mov %%r14, 40(%0)\n\t"
			 "mov %%r15, 48(%0)\n\t"
			 "lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, 56(%0)\n\t"
			 :
			 : "r"(&c)
			 : "rax", "memory");
	ret_into_level2 = (uint64_t)__builtin_return_address(0);
	if (pthread_getattr_np(pthread_self(), &attr) || pthread_attr_getstack(&attr, &lo, &size))
		return -1;
	pthread_attr_destroy(&attr);
	len = (uint64_t)lo + size - c.rsp;
	if (len > COPY_BYTES)
		len = COPY_BYTES;
	sample = calloc(1, sizeof(*sample) + len);
	if (!sample)
		return -1;
	sample->regs[3] = c.rbx;
	sample->regs[6] = c.rbp;
	sample->regs[7] = c.rsp;
	sample->regs[12] = c.r12;
	sample->regs[13] = c.r13;
	sample->regs[14] = c.r14;
	sample->regs[15] = c.r15;
	sample->regs[16] = c.rip;
	sample->size = len;
	copy_raw_stack(sample->data, (const volatile uint8_t *)c.rsp, len);
	return 0;
}

static KEEP_CALL int level2(int x)
{
	int rc = take_sample();
	ret_into_level1 = (uint64_t)__builtin_return_address(0);
	return rc + x;
}

static KEEP_CALL int level1(int x)
{
	return level2(x + 1) * 3;
}

Test(unwind, own_stack_without_frame_pointers)
{
	char path[PATH_MAX];
	uint64_t start, pgoff, pcs[UNWIND_MAX_FRAMES];
	enum unwind_fail why;
	int truncated, n;
	struct mtx_unwinder *u = unwinder_new();

	cr_assert_not_null(u);
	cr_assert_eq(mapping_of(NULL, path, &start, &pgoff), 0, "no executable mapping of this test in /proc/self/maps");
	cr_assert_eq(unwinder_add_file(u, path, start, pgoff, NULL, 0), 0);
	cr_assert_eq(level1(1), 6);
	cr_assert_not_null(sample);
	n = unwinder_walk(u, (int32_t)gettid(), sample, pcs, NULL, &why, &truncated);
	/* take_sample, then level2 and level1 by their return addresses; the
	 * walk may go on (or stop) in libcriterion, which is not reported. */
	cr_assert_geq(n, 3, "only %d frames (why %s)", n, unwind_fail_name(why));
	cr_assert_eq(pcs[0], sample->regs[16]);
	cr_assert_eq(pcs[1], ret_into_level2);
	cr_assert_eq(pcs[2], ret_into_level1);
	/* A file mapped later (dlopen) is added to the attached session,
	 * which walks the same afterwards. */
	cr_assert_eq(mapping_of("/libc.so.6", path, &start, &pgoff), 0, "libc is not mapped");
	cr_assert_eq(unwinder_add_file(u, path, start, pgoff, NULL, 0), 0);
	cr_assert_geq(unwinder_walk(u, (int32_t)gettid(), sample, pcs, NULL, &why, &truncated), 3);
	cr_assert_eq(pcs[2], ret_into_level1);
	/* Without the copy, only the leaf: the callers needed stack. */
	sample->size = 0;
	n = unwinder_walk(u, (int32_t)gettid(), sample, pcs, NULL, &why, &truncated);
	cr_assert_eq(n, 1);
	cr_assert_eq(why, UNWIND_FAIL_NO_CALLER);
	cr_assert_eq(truncated, 1);
	free(sample);
	unwinder_free(u);
}

Test(unwind, refusals)
{
	uint8_t wrong[20];
	char path[PATH_MAX];
	uint64_t start, pgoff, pcs[UNWIND_MAX_FRAMES];
	struct mtx_user_stack none = { .size = 0 };
	enum unwind_fail why;
	int truncated;
	struct mtx_unwinder *u = unwinder_new();

	cr_assert_eq(mapping_of(NULL, path, &start, &pgoff), 0);
	memset(wrong, 0xab, sizeof(wrong));
	cr_assert_eq(unwinder_add_file(u, path, start, pgoff, wrong, sizeof(wrong)), -ESTALE,
		     "a file with another build-id is used");
	cr_assert_eq(unwinder_add_file(u, "/nonexistent/lib.so", start, 0, NULL, 0), -ENOENT);
	cr_assert_eq(unwinder_add_file(u, "/proc/self/maps", start, 0, NULL, 0), -ENOEXEC);
	/* Nothing reported: no module; no stack: said so. */
	none.regs[16] = start;
	cr_assert_eq(unwinder_walk(u, 1, &none, pcs, NULL, &why, &truncated), 0);
	cr_assert_eq(why, UNWIND_FAIL_NO_MODULE);
	cr_assert_eq(unwinder_walk(u, 1, NULL, pcs, NULL, &why, &truncated), 0);
	cr_assert_eq(why, UNWIND_FAIL_NO_STACK);
	cr_assert_str_eq(unwind_fail_name(UNWIND_FAIL_NO_CALLER), "no_caller");
	unwinder_free(u);
}

/*
 * tests/e2e/forkcalls.c - a process forked inside calls: main calls work,
 * which forks; parent and child both return from work (the child after
 * calling leaf once, the parent after waiting for it and calling leaf
 * once). Built plain (uprobes: mtx collect --functions) and with -pg (the
 * preload hooks). Under mtx each process must show main > work > leaf,
 * every return matched: the child's calls begin at the fork.
 * Prints "child 2" then "parent 3", exit 0.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int leaf(int n);
__attribute__((noinline)) int work(void);

__attribute__((noinline)) int leaf(int n)
{
	__asm__ volatile("" : "+r"(n));
	return n + 1;
}

__attribute__((noinline)) int work(void)
{
	pid_t child = fork();

	if (child == 0)
		return leaf(1);
	waitpid(child, NULL, 0);
	return leaf(2);
}

int main(void)
{
	int r = work();

	printf("%s %d\n", r == 2 ? "child" : "parent", r);
	fflush(stdout);
	return 0;
}

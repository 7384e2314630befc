/*
 * cxxframes - C++ locking as libstdc++ does it, for "where in my code":
 * every std::mutex operation reaches pthread_mutex_lock/unlock through
 * std::lock_guard or std::unique_lock, std::mutex::lock and
 * __gthread_mutex_lock, all inlined from the system's headers into the
 * functions below; std::condition_variable::wait is a function of
 * libstdc++ itself, which calls pthread_cond_wait.
 *
 * Usage: cxxframes [tellers=4] [rounds=2000]
 *        (1 <= tellers <= 64, 1 <= rounds <= 10000000)
 *
 * Each teller thread ("teller-i", a std::thread) runs rounds rounds of
 * bank::deposit(long), which holds the global std::mutex ledger_lock (a
 * std::lock_guard) while it adds to the balance and stirs it a little (so
 * that tellers often find it held), and every tenth round bank::audit(),
 * which takes it with a std::unique_lock and gives it back early. Then it
 * says it is done (done_lock, done_cv) and ends; main waits on done_cv
 * until all are, and joins them.
 *
 * A run under mtx collect, with or without --sync-stacks, must name every
 * op of ledger_lock by a function of this file (bank::deposit(long),
 * bank::audit(), or the teller that called them, where a call's last op
 * was a jump) and the line addr2line gives for its call site, never
 * __gthread_mutex_lock or another function of the system's headers. With
 * --sample, most of its time is in pthread calls: a profile of it shows
 * what mtx's wrappers cost.
 * Output: "balance <sum>" (the sum of every deposit), the same for the
 * same arguments.
 */
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <vector>

extern "C" {
#include "samples/args.h"
}

namespace bank {

std::mutex ledger_lock;
static long balance;
static volatile unsigned long stirred;

__attribute__((noinline, noipa)) void deposit(long n)
{
	std::lock_guard<std::mutex> hold(ledger_lock);
	balance += n;
	for (int i = 0; i < 50; i++)
		stirred = stirred + (unsigned long)i;
}

__attribute__((noinline, noipa)) long audit()
{
	std::unique_lock<std::mutex> hold(ledger_lock);
	long seen = balance;
	hold.unlock();
	stirred = stirred + 1;
	return seen;
}

} // namespace bank

static std::mutex done_lock;
static std::condition_variable done_cv;
static unsigned long done;

static void teller(int index, unsigned long rounds)
{
	char name[16];
	snprintf(name, sizeof(name), "teller-%d", index);
	pthread_setname_np(pthread_self(), name);
	for (unsigned long r = 0; r < rounds; r++) {
		bank::deposit((long)r);
		if (r % 10 == 0 && bank::audit() < 0)
			fprintf(stderr, "cxxframes: a negative balance\n");
	}
	{
		std::lock_guard<std::mutex> hold(done_lock);
		done++;
	}
	done_cv.notify_one();
}

int main(int argc, char **argv)
{
	unsigned long tellers = 4, rounds = 2000;
	std::vector<std::thread> threads;
	if (argc > 3 || (argc > 1 && parse_arg(argv[1], 1, 64, &tellers)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 10000000, &rounds))) {
		fprintf(stderr, "usage: cxxframes [tellers=4] [rounds=2000]\n");
		return 2;
	}
	for (unsigned long i = 0; i < tellers; i++)
		threads.emplace_back(teller, (int)i, rounds);
	{
		std::unique_lock<std::mutex> hold(done_lock);
		done_cv.wait(hold, [&] { return done == tellers; });
	}
	for (auto &t : threads)
		t.join();
	printf("balance %ld\n", bank::balance);
	return 0;
}

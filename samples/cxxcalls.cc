/*
 * cxxcalls - a C++ program: threads call a function in a namespace and a
 * member of a class template, and take a std::mutex, for mtx on C++ code
 * (readable names, and the C++ runtime's locks and threads traced like C's).
 *
 * Usage: cxxcalls [threads=3] [rounds=100] [throw]
 *        (1 <= threads <= 64, 1 <= rounds <= 1000000)
 *
 * Thread i ("worker-i", a std::thread) runs rounds * (i + 1) rounds. A round
 * calls work::step(long) once; step takes the shared std::mutex (one
 * pthread_mutex_lock and one pthread_mutex_unlock, through libstdc++) and
 * calls work::Counter<long>::add(long) twice. The functions' mangled
 * names are _ZN4work4stepEl and _ZN4work7CounterIlE3addEl. With "throw",
 * step first calls work::check(long), which throws std::range_error in
 * every fifth round, through its own frame, to the handler in step (which
 * then adds nothing that round).
 *
 * A run under mtx collect --functions 'work::' must show these functions
 * by their readable names, per thread exactly the calls counted here, each
 * add inside a step, and the mutex's lock and unlock ops per thread. Built
 * with -pg (cxxcalls-pg), with "throw", the same under mtx collect alone:
 * each check call ends, the thrown ones where step caught the exception.
 * Output: "worker-<i>: <n> rounds" per thread as it is joined, then
 * "total <sum of the counter>"; the same for the same arguments.
 * Self-check (MTX_SELFCHECK, see selfcheck.h): the thread and op lines,
 * and "call pid=<pid> tid=<tid> caller=<fn or -> callee=<fn> count=<n>"
 * per (caller, callee), as samples/calltree writes them.
 */
#include <cstdio>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <stdexcept>
#include <thread>
#include <vector>

extern "C" {
#include "samples/args.h"
#include "samples/selfcheck.h"
}

namespace work {

static std::mutex lock;
static thread_local unsigned long steps, adds, checks;
static bool throwing;

template <typename T> class Counter {
public:
	/* Not inlined, so that each call is a call that can be traced. */
	__attribute__((noinline, noipa)) void add(T n)
	{
		total_ += n;
		adds++;
	}
	T total() const { return total_; }

private:
	T total_ = 0;
};

static Counter<long> counter;

__attribute__((noinline, noipa)) void check(long n)
{
	checks++;
	if (n % 5 == 4)
		throw std::range_error("fifth round");
}

__attribute__((noinline, noipa)) void step(long n)
{
	steps++;
	if (throwing) {
		try {
			check(n);
		} catch (const std::range_error &) {
			return;
		}
	}
	selfcheck_count("mutex", "lock");
	std::lock_guard<std::mutex> hold(lock);
	counter.add(n);
	counter.add(1);
	selfcheck_count("mutex", "unlock");
}

} // namespace work

static void write_calls()
{
	char line[256];
	int fd = selfcheck_open(), pid = (int)getpid(), tid = (int)syscall(SYS_gettid);
	if (fd < 0)
		return;
	selfcheck_write_line(fd, line, snprintf(line, sizeof(line),
			     "call pid=%d tid=%d caller=- callee=work::step(long) count=%lu\n", pid, tid,
			     work::steps));
	selfcheck_write_line(fd, line, snprintf(line, sizeof(line),
			     "call pid=%d tid=%d caller=work::step(long) callee=work::Counter<long>::add(long) count=%lu\n",
			     pid, tid, work::adds));
	if (work::checks)
		selfcheck_write_line(fd, line, snprintf(line, sizeof(line),
				     "call pid=%d tid=%d caller=work::step(long) callee=work::check(long) count=%lu\n",
				     pid, tid, work::checks));
	close(fd);
}

static void worker(int index, unsigned long rounds)
{
	char name[16];
	snprintf(name, sizeof(name), "worker-%d", index);
	pthread_setname_np(pthread_self(), name);
	for (unsigned long r = 0; r < rounds; r++)
		work::step((long)r);
	write_calls();
	selfcheck_thread_done("worker");
}

int main(int argc, char **argv)
{
	unsigned long nr_threads = 3, rounds = 100;
	std::vector<std::thread> threads;
	if (argc > 4 || (argc > 1 && parse_arg(argv[1], 1, 64, &nr_threads)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 1000000, &rounds)) || (argc > 3 && strcmp(argv[3], "throw"))) {
		fprintf(stderr, "usage: cxxcalls [threads=3] [rounds=100] [throw]\n");
		return 2;
	}
	work::throwing = argc > 3;
	for (unsigned long i = 0; i < nr_threads; i++) {
		selfcheck_count("thread", "create");
		threads.emplace_back(worker, (int)i, rounds * (i + 1));
	}
	for (unsigned long i = 0; i < nr_threads; i++) {
		selfcheck_count("thread", "join");
		threads[i].join();
		printf("worker-%lu: %lu rounds\n", i, rounds * (i + 1));
	}
	printf("total %ld\n", work::counter.total());
	selfcheck_thread_done("main");
	return 0;
}

/*
 * bank - a C++ bank whose locks have names: for mtx naming objects by the
 * symbols that hold them and by where they were made, and for a semaphore
 * used as a lock (what Python's threading.Lock is).
 *
 * Usage: bank [threads=3] [rounds=2000]
 *        (2 <= threads <= 64, 1 <= rounds <= 1000000)
 *
 * The locks:
 *  - log_mutex, a global std::mutex: every round counts a log line under
 *    it, in every thread (the busiest lock);
 *  - ledger::accounts, a global array of four accounts, each a balance
 *    and a std::mutex (ledger::accounts+0x8, +0x38, ...): a transfer
 *    takes two of them, the lower address first;
 *  - count_round()'s function-local static std::mutex (count_round()::lock);
 *  - in the Bank made with new: the std::mutex vault, first used in
 *    Bank::deposit(long), and the sem_t audit, made a lock by
 *    sem_init(&audit, 0, 1) in Bank::Bank() and then only taken
 *    (sem_wait, sem_trywait) and given back (sem_post) by one thread at a
 *    time, as Python's threading.Lock does.
 * Threads "teller-i" (std::thread) each run rounds rounds: a transfer, a
 * log line, a deposit, and every 16th round an audit. Before the rounds,
 * teller-0 and teller-1 meet over two more semaphores, go and tried, used
 * to signal (posted by one thread, waited for by the other, so not
 * locks): teller-0 holds audit while teller-1 tries it (sem_trywait
 * fails), so audit has had a holder that another thread found.
 *
 * A run under mtx must show: log_mutex, ledger::accounts+0x..,
 * count_round()::lock by those names (as nm -C names the symbols), the
 * vault as "first used at bank.cc:<line> in Bank::deposit(long)" (its
 * vault.lock(), not the libstdc++ code inlined there) and audit as "init
 * at bank.cc:<line> in Bank::Bank()"; audit, a semaphore, in mtx report
 * locks with teller-0 as a holder that made teller-1 find it held; go and
 * tried not there.
 * Output: "teller-<i>: <n> rounds" per thread as it is joined, then
 * "balance <sum of the accounts and the vault>"; the same for the same
 * arguments. Self-check (MTX_SELFCHECK, see selfcheck.h): the thread and op
 * lines, and "anchor fn=bank_anchor addr=0x<its address>": with nm, the
 * executable's load address.
 */
#include <cstdio>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <semaphore.h>
#include <thread>
#include <vector>

extern "C" {
#include "samples/args.h"
#include "samples/selfcheck.h"
}

enum { NR_ACCOUNTS = 4 };

std::mutex log_mutex;
static unsigned long log_lines;

namespace ledger {
struct Account {
	long balance;
	std::mutex lock;
};
Account accounts[NR_ACCOUNTS];
} // namespace ledger

class Bank {
public:
	Bank();
	~Bank();
	void deposit(long amount);
	long audit();
	long vault_total();
	void try_audit_held_by_other(bool holder);

private:
	std::mutex vault;
	long vault_total_ = 0;
	sem_t audit_lock; /* Python's threading.Lock: a semaphore of value 1 */
	sem_t go, tried;  /* signals between two tellers, not locks */
};

static Bank *bank;

/* Its address, with nm's, gives the executable's load address. */
extern "C" __attribute__((noinline)) void bank_anchor(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) Bank::Bank()
{
	selfcheck_count("sem", "init");
	sem_init(&audit_lock, 0, 1);
	selfcheck_count("sem", "init");
	sem_init(&go, 0, 0);
	selfcheck_count("sem", "init");
	sem_init(&tried, 0, 0);
}

Bank::~Bank()
{
	selfcheck_count("sem", "destroy");
	sem_destroy(&audit_lock);
	selfcheck_count("sem", "destroy");
	sem_destroy(&go);
	selfcheck_count("sem", "destroy");
	sem_destroy(&tried);
}

__attribute__((noinline)) void Bank::deposit(long amount)
{
	selfcheck_count("mutex", "lock");
	vault.lock();
	vault_total_ += amount;
	selfcheck_count("mutex", "unlock");
	vault.unlock();
}

long Bank::vault_total()
{
	return vault_total_;
}

/* sem_wait, again after a signal (EINTR), each call counted. */
static void wait_sem(sem_t *s)
{
	selfcheck_count("sem", "wait");
	while (sem_wait(s) != 0)
		selfcheck_count("sem", "wait");
}

/* The accounts' sum, under audit_lock taken as Python takes a Lock: try
 * first, then wait. */
__attribute__((noinline)) long Bank::audit()
{
	long sum = 0;
	selfcheck_count("sem", "trywait");
	if (sem_trywait(&audit_lock) != 0)
		wait_sem(&audit_lock);
	for (int i = 0; i < NR_ACCOUNTS; i++)
		sum += __atomic_load_n(&ledger::accounts[i].balance, __ATOMIC_RELAXED);
	selfcheck_count("sem", "post");
	sem_post(&audit_lock);
	return sum;
}

/* The holder takes audit_lock and lets the other try it while held. */
void Bank::try_audit_held_by_other(bool holder)
{
	if (holder) {
		wait_sem(&audit_lock);
		selfcheck_count("sem", "post");
		sem_post(&go);
		wait_sem(&tried);
		selfcheck_count("sem", "post");
		sem_post(&audit_lock);
		return;
	}
	wait_sem(&go);
	selfcheck_count("sem", "trywait");
	if (sem_trywait(&audit_lock) == 0) { /* cannot be: held */
		fprintf(stderr, "bank: audit lock not held\n");
		_exit(1);
	}
	selfcheck_count("sem", "post");
	sem_post(&tried);
}

static void count_round()
{
	static std::mutex lock;
	static unsigned long rounds;
	selfcheck_count("mutex", "lock");
	lock.lock();
	rounds++;
	selfcheck_count("mutex", "unlock");
	lock.unlock();
}

static void transfer(int from, int to, long amount)
{
	ledger::Account *a = &ledger::accounts[from < to ? from : to], *b = &ledger::accounts[from < to ? to : from];
	selfcheck_count("mutex", "lock");
	a->lock.lock();
	selfcheck_count("mutex", "lock");
	b->lock.lock();
	ledger::accounts[from].balance -= amount;
	ledger::accounts[to].balance += amount;
	selfcheck_count("mutex", "unlock");
	b->lock.unlock();
	selfcheck_count("mutex", "unlock");
	a->lock.unlock();
}

static void teller(int index, unsigned long rounds)
{
	char name[16];
	snprintf(name, sizeof(name), "teller-%d", index);
	pthread_setname_np(pthread_self(), name);
	if (index < 2)
		bank->try_audit_held_by_other(index == 0);
	for (unsigned long r = 0; r < rounds; r++) {
		transfer(index % NR_ACCOUNTS, (int)((index + 1 + r % 3) % NR_ACCOUNTS), (long)(r % 7));
		selfcheck_count("mutex", "lock");
		log_mutex.lock();
		log_lines++;
		selfcheck_count("mutex", "unlock");
		log_mutex.unlock();
		bank->deposit(1);
		count_round();
		if (r % 16 == 0)
			bank->audit();
	}
	selfcheck_thread_done("teller");
}

int main(int argc, char **argv)
{
	unsigned long nr_threads = 3, rounds = 2000;
	std::vector<std::thread> threads;
	long balance = 0;
	if (argc > 3 || (argc > 1 && parse_arg(argv[1], 2, 64, &nr_threads)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 1000000, &rounds))) {
		fprintf(stderr, "usage: bank [threads=3] [rounds=2000]\n");
		return 2;
	}
	if (getenv("MTX_SELFCHECK")) {
		char line[128];
		int fd = selfcheck_open();
		if (fd >= 0) {
			selfcheck_write_line(fd, line, snprintf(line, sizeof(line), "anchor fn=bank_anchor addr=%p\n",
								reinterpret_cast<void *>(&bank_anchor)));
			close(fd);
		}
	}
	for (int i = 0; i < NR_ACCOUNTS; i++)
		ledger::accounts[i].balance = 1000;
	bank = new Bank();
	for (unsigned long i = 0; i < nr_threads; i++) {
		selfcheck_count("thread", "create");
		threads.emplace_back(teller, (int)i, rounds);
	}
	for (unsigned long i = 0; i < nr_threads; i++) {
		selfcheck_count("thread", "join");
		threads[i].join();
		printf("teller-%lu: %lu rounds\n", i, rounds);
	}
	for (int i = 0; i < NR_ACCOUNTS; i++)
		balance += ledger::accounts[i].balance;
	printf("balance %ld\n", balance + bank->vault_total());
	delete bank;
	selfcheck_thread_done("main");
	return log_lines == nr_threads * rounds ? 0 : 1;
}

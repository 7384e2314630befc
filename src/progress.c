/* src/progress.c - see progress.h. */
#include "config.h"
#include "src/progress.h"
#include "src/clock.h"
#include "src/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#define REDRAW_NS 250000000ull

static struct {
	pthread_mutex_t lock; /* all but the counts */
	pthread_cond_t wake;
	pthread_t thread;
	bool running, stopping;
	const char *what, *name, *part;
	int step, nr_steps;
	uint64_t begun_ns;
	_Atomic uint64_t done, total;
} p = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Under p.lock. */
static void draw(void)
{
	char line[256], share[16] = "", elapsed[24] = "";
	uint64_t done = atomic_load_explicit(&p.done, memory_order_relaxed);
	uint64_t total = atomic_load_explicit(&p.total, memory_order_relaxed);
	uint64_t s = (clock_now_ns() - p.begun_ns) / 1000000000ull;

	if (!p.name)
		return;
	if (total)
		snprintf(share, sizeof(share), " %d%%", (int)(100 * (done < total ? done : total) / total));
	if (s)
		snprintf(elapsed, sizeof(elapsed), " (%llu s)", (unsigned long long)s);
	snprintf(line, sizeof(line), "finishing %s, %d/%d: %s%s%s%s%s", p.what, p.step, p.nr_steps, p.name,
		 p.part ? ": " : "", p.part ? p.part : "", share, elapsed);
	log_status(line);
}

/* Redraws the line while a step works, so that its time moves on. */
static void *ticker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&p.lock);
	while (!p.stopping) {
		uint64_t at = clock_now_ns() + REDRAW_NS;
		struct timespec until = { (time_t)(at / 1000000000ull), (long)(at % 1000000000ull) };
		pthread_cond_timedwait(&p.wake, &p.lock, &until);
		if (!p.stopping)
			draw();
	}
	pthread_mutex_unlock(&p.lock);
	return NULL;
}

void progress_begin(const char *what, int nr_steps)
{
	pthread_condattr_t attr;

	if (p.running || !log_status(NULL)) /* not a terminal, or quiet */
		return;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&p.wake, &attr);
	pthread_condattr_destroy(&attr);
	p.what = what;
	p.nr_steps = nr_steps;
	p.name = p.part = NULL;
	p.begun_ns = clock_now_ns();
	p.stopping = false;
	if (pthread_create(&p.thread, NULL, ticker, NULL) == 0)
		p.running = true;
	else
		pthread_cond_destroy(&p.wake);
}

void progress_step(int step, const char *name)
{
	if (!p.running)
		return;
	pthread_mutex_lock(&p.lock);
	p.step = step;
	p.name = name;
	p.part = NULL;
	atomic_store_explicit(&p.total, 0, memory_order_relaxed);
	atomic_store_explicit(&p.done, 0, memory_order_relaxed);
	draw();
	pthread_mutex_unlock(&p.lock);
}

void progress_part(const char *part)
{
	if (!p.running)
		return;
	pthread_mutex_lock(&p.lock);
	p.part = part;
	atomic_store_explicit(&p.total, 0, memory_order_relaxed);
	draw();
	pthread_mutex_unlock(&p.lock);
}

void progress_count(uint64_t done, uint64_t total)
{
	atomic_store_explicit(&p.done, done, memory_order_relaxed);
	atomic_store_explicit(&p.total, total, memory_order_relaxed);
}

void progress_end(void)
{
	if (!p.running)
		return;
	pthread_mutex_lock(&p.lock);
	p.stopping = true;
	pthread_cond_signal(&p.wake);
	pthread_mutex_unlock(&p.lock);
	pthread_join(p.thread, NULL);
	pthread_cond_destroy(&p.wake);
	p.running = false;
	log_status(NULL);
}

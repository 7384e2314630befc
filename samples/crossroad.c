/*
 * crossroad - vehicle simulation at a crossroad (seed 001, section 3).
 *
 * Usage: crossroad [cars=10] [crossings=40]    (1 <= cars <= 2000)
 *
 * A traffic-light thread ("light") turns the green between north-south and
 * east-west every 5 ms: it waits with pthread_cond_timedwait (woken early
 * when the last car is home), updates the shared road map under its write
 * lock (every other time pthread_rwlock_trywrlock first; then
 * pthread_rwlock_timedwrlock until it gets it), then switches the light under the light mutex and broadcasts
 * the "green" condvar.  Each car thread ("car-<i>") drives (drive(): busy
 * loop and a short sleep), reads the road map to plan its route
 * (plan_route() under a read lock: rdlock, or tryrdlock / timedrdlock on
 * some crossings), waits for green in its direction (pthread_cond_wait),
 * then crosses the intersection, which holds one car at a time (a mutex held
 * during cross(), a busy loop), and adds the crossing to a per-direction
 * tally guarded by a spinlock (pthread_spin_lock, or on odd crossings
 * pthread_spin_trylock first).  Car i's k-th crossing goes north-south when i+k is
 * even, east-west otherwise.
 *
 * A run under mtx must show:
 *  - cars+2 threads: main (creates, joins), "light" and the cars;
 *  - cars blocked in pthread_cond_wait on the green condvar, woken in groups
 *    by the light's broadcasts (one waker, many wakees), then contending
 *    for the intersection mutex (the most contended lock);
 *  - the road-map rwlock read by all cars and written by the light only;
 *    the spinlock taken by all cars, briefly;
 *  - the light mostly sleeping (timed wait), cars running drive()/cross()
 *    or blocked on the light and the intersection.
 * Output: crossings per direction and the total; the same for the same
 * arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "samples/args.h"
#include "samples/selfcheck.h"

#define DRIVE_ITERS 250000UL	/* ~0.5 ms */
#define CROSS_ITERS 200000UL	/* ~0.4 ms, holding the intersection */
#define LIGHT_PERIOD_NS 5000000L

enum direction { NORTH_SOUTH, EAST_WEST };

static unsigned int nr_cars;
static unsigned long nr_crossings;

static pthread_mutex_t light_lock;	/* green, cars_home */
static pthread_cond_t green_cond;	/* the light changed */
static pthread_cond_t light_cond;	/* wakes the light: all cars home */
static enum direction green = NORTH_SOUTH;
static unsigned int cars_home;

static pthread_mutex_t intersection;
static pthread_rwlock_t map_lock;
static struct { unsigned long lanes[2]; unsigned long version; } road_map;
static pthread_spinlock_t tally_lock;
static unsigned long tally[2];

static void timespec_add_ns(struct timespec *ts, long ns)
{
	ts->tv_nsec += ns;
	while (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static __attribute__((noinline)) void drive(unsigned int id, unsigned long k)
{
	struct timespec nap = { 0, 100000L + 50000L * (long)((id + k) % 4) };
	volatile unsigned long acc = id;
	unsigned long i;

	for (i = 0; i < DRIVE_ITERS; i++)
		acc = acc * 31 + i;
	while (nanosleep(&nap, &nap) != 0)
		;
}

static __attribute__((noinline)) unsigned long plan_route(unsigned int id, unsigned long k)
{
	struct timespec deadline;
	unsigned long lanes;

	if (k % 4 == 1) {
		selfcheck_count("rwlock", "tryrdlock");
		if (pthread_rwlock_tryrdlock(&map_lock) != 0) {
			selfcheck_count("rwlock", "rdlock");
			pthread_rwlock_rdlock(&map_lock);
		}
	} else if (k % 4 == 3) {
		do {
			clock_gettime(CLOCK_REALTIME, &deadline);
			timespec_add_ns(&deadline, 1000000L);
			selfcheck_count("rwlock", "timedrdlock");
		} while (pthread_rwlock_timedrdlock(&map_lock, &deadline) != 0);
	} else {
		selfcheck_count("rwlock", "rdlock");
		pthread_rwlock_rdlock(&map_lock);
	}
	lanes = road_map.lanes[(id + k) % 2];
	selfcheck_count("rwlock", "unlock");
	pthread_rwlock_unlock(&map_lock);
	return lanes;
}

static __attribute__((noinline)) void cross(unsigned int id)
{
	volatile unsigned long acc = id;
	unsigned long i;

	for (i = 0; i < CROSS_ITERS; i++)
		acc = acc * 17 + i;
}

static void *car(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;
	unsigned long k;
	char name[16];

	snprintf(name, sizeof(name), "car-%u", id);
	pthread_setname_np(pthread_self(), name);
	for (k = 0; k < nr_crossings; k++) {
		enum direction dir = (id + k) % 2 ? EAST_WEST : NORTH_SOUTH;

		drive(id, k);
		plan_route(id, k);

		selfcheck_count("mutex", "lock");
		pthread_mutex_lock(&light_lock);
		while (green != dir) {
			selfcheck_count("cond", "wait");
			pthread_cond_wait(&green_cond, &light_lock);
		}
		selfcheck_count("mutex", "unlock");
		pthread_mutex_unlock(&light_lock);

		selfcheck_count("mutex", "lock");
		pthread_mutex_lock(&intersection);
		cross(id);
		selfcheck_count("mutex", "unlock");
		pthread_mutex_unlock(&intersection);

		if (k % 2) {
			selfcheck_count("spinlock", "trylock");
			if (pthread_spin_trylock(&tally_lock) != 0) {
				selfcheck_count("spinlock", "lock");
				pthread_spin_lock(&tally_lock);
			}
		} else {
			selfcheck_count("spinlock", "lock");
			pthread_spin_lock(&tally_lock);
		}
		tally[dir]++;
		selfcheck_count("spinlock", "unlock");
		pthread_spin_unlock(&tally_lock);
	}

	selfcheck_count("mutex", "lock");
	pthread_mutex_lock(&light_lock);
	if (++cars_home == nr_cars) {
		selfcheck_count("cond", "signal");
		pthread_cond_signal(&light_cond);
	}
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&light_lock);
	selfcheck_thread_done("car");
	return NULL;
}

static __attribute__((noinline)) void update_map(unsigned long toggle)
{
	struct timespec deadline;
	int locked = 0;

	if (toggle % 2 == 0) {
		selfcheck_count("rwlock", "trywrlock");
		locked = pthread_rwlock_trywrlock(&map_lock) == 0;
	}
	if (!locked) {
		do {
			clock_gettime(CLOCK_REALTIME, &deadline);
			timespec_add_ns(&deadline, 1000000L);
			selfcheck_count("rwlock", "timedwrlock");
		} while (pthread_rwlock_timedwrlock(&map_lock, &deadline) != 0);
	}
	road_map.lanes[green] += 1;
	road_map.version++;
	selfcheck_count("rwlock", "unlock");
	pthread_rwlock_unlock(&map_lock);
}

static void *traffic_light(void *arg)
{
	unsigned long toggles = 0;
	struct timespec deadline;

	(void)arg;
	pthread_setname_np(pthread_self(), "light");
	selfcheck_count("mutex", "lock");
	pthread_mutex_lock(&light_lock);
	clock_gettime(CLOCK_REALTIME, &deadline);
	timespec_add_ns(&deadline, LIGHT_PERIOD_NS);
	while (cars_home < nr_cars) {
		selfcheck_count("cond", "timedwait");
		if (pthread_cond_timedwait(&light_cond, &light_lock, &deadline) != ETIMEDOUT)
			continue;	/* woken (or spuriously): check cars_home */
		selfcheck_count("mutex", "unlock");
		pthread_mutex_unlock(&light_lock);
		update_map(toggles++);
		selfcheck_count("mutex", "lock");
		pthread_mutex_lock(&light_lock);
		green = green == NORTH_SOUTH ? EAST_WEST : NORTH_SOUTH;
		selfcheck_count("cond", "broadcast");
		pthread_cond_broadcast(&green_cond);
		timespec_add_ns(&deadline, LIGHT_PERIOD_NS);
	}
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&light_lock);
	selfcheck_thread_done("light");
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = 10;
	pthread_t light, *cars;
	unsigned int i;

	nr_crossings = 40;
	if (argc > 3 || (argc > 1 && parse_arg(argv[1], 1, 2000, &n)) ||
	    (argc > 2 && parse_arg(argv[2], 0, 1000000, &nr_crossings))) {
		fprintf(stderr, "usage: crossroad [cars=10 (1..2000)] [crossings=40]\n");
		return 2;
	}
	nr_cars = (unsigned int)n;
	cars = calloc(nr_cars, sizeof(*cars));
	if (!cars) {
		fprintf(stderr, "crossroad: out of memory\n");
		return 1;
	}
	selfcheck_count("mutex", "init");
	pthread_mutex_init(&light_lock, NULL);
	selfcheck_count("mutex", "init");
	pthread_mutex_init(&intersection, NULL);
	selfcheck_count("cond", "init");
	pthread_cond_init(&green_cond, NULL);
	selfcheck_count("cond", "init");
	pthread_cond_init(&light_cond, NULL);
	selfcheck_count("rwlock", "init");
	pthread_rwlock_init(&map_lock, NULL);
	selfcheck_count("spinlock", "init");
	pthread_spin_init(&tally_lock, PTHREAD_PROCESS_PRIVATE);

	selfcheck_count("thread", "create");
	if (pthread_create(&light, NULL, traffic_light, NULL) != 0)
		goto fail;
	for (i = 0; i < nr_cars; i++) {
		selfcheck_count("thread", "create");
		if (pthread_create(&cars[i], NULL, car, (void *)(unsigned long)i) != 0)
			goto fail;
	}
	for (i = 0; i < nr_cars; i++) {
		selfcheck_count("thread", "join");
		pthread_join(cars[i], NULL);
	}
	selfcheck_count("thread", "join");
	pthread_join(light, NULL);

	printf("north-south crossings %lu\n", tally[NORTH_SOUTH]);
	printf("east-west crossings %lu\n", tally[EAST_WEST]);
	printf("total crossings %lu\n", tally[NORTH_SOUTH] + tally[EAST_WEST]);
	fflush(stdout);

	selfcheck_count("spinlock", "destroy");
	pthread_spin_destroy(&tally_lock);
	selfcheck_count("rwlock", "destroy");
	pthread_rwlock_destroy(&map_lock);
	selfcheck_count("cond", "destroy");
	pthread_cond_destroy(&light_cond);
	selfcheck_count("cond", "destroy");
	pthread_cond_destroy(&green_cond);
	selfcheck_count("mutex", "destroy");
	pthread_mutex_destroy(&intersection);
	selfcheck_count("mutex", "destroy");
	pthread_mutex_destroy(&light_lock);
	free(cars);
	selfcheck_thread_done("main");
	return 0;
fail:
	fprintf(stderr, "crossroad: pthread_create failed\n");
	return 1;
}

/*
 * src/pi-mutex.h - a mutex that lends its waiter's priority to its holder.
 * The collector's loop drains the kernel's rings at real-time priority
 * (collector/collect.c) and shares queues with threads of lower classes
 * (the writer at SCHED_IDLE, the sync pump): with a plain mutex, a holder
 * that the program's threads keep off the CPU keeps the loop waiting too,
 * and the rings fill. Priority inheritance runs the holder at the loop's
 * priority until it lets go.
 */
#ifndef MTX_SRC_PI_MUTEX_H
#define MTX_SRC_PI_MUTEX_H

#include <pthread.h>

/* pi_mutex_init - as pthread_mutex_init, with PTHREAD_PRIO_INHERIT (a
 * plain mutex where the system has none). Returns 0 or an error number. */
static inline int pi_mutex_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;
	int rc;

	if (pthread_mutexattr_init(&a))
		return pthread_mutex_init(m, NULL);
	if (pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT))
		rc = pthread_mutex_init(m, NULL);
	else
		rc = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return rc;
}

#endif

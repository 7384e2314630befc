/*
 * tests/e2e/smallstack.c - threads with small stacks, as sysbench makes them
 * (64 KiB): each takes a mutex and uses 40 KiB of its stack. glibc carves a
 * thread's static TLS out of its stack, so a preloaded library with a large
 * TLS block leaves such a thread too little and it crashes (a
 * libmtx-preload.so with 48 KiB of TLS did). Prints "ok <sum>", exit 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long sum;

static void *work(void *arg)
{
	volatile unsigned char scratch[40 << 10];
	unsigned long n = 0;

	memset((void *)scratch, (int)(unsigned long)arg, sizeof(scratch));
	for (size_t i = 0; i < sizeof(scratch); i += 4096)
		n += scratch[i];
	pthread_mutex_lock(&lock);
	sum += n;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (unsigned long i = 0; i < 4; i++)
		if (pthread_create(&t[i], &attr, work, (void *)(i + 1)) != 0) {
			fprintf(stderr, "smallstack: cannot create a thread\n");
			return 1;
		}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("ok %lu\n", sum);
	return 0;
}

/* The replays' thread handshakes and main(), plain user space. */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>
static sem_t s[4];
void h_init(void) { for (int i = 0; i < 4; i++) sem_init(&s[i], 0, 0); }
void h_post(int i) { sem_post(&s[i]); }
void h_wait(int i) { sem_wait(&s[i]); }
int h_wait_ms(int i, int ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += ms % 1000 * 1000000L;
	t.tv_sec += ms / 1000 + t.tv_nsec / 1000000000L;
	t.tv_nsec %= 1000000000L;
	return sem_timedwait(&s[i], &t) == 0;
}
void *h_start(void *(*fn)(void *)) { pthread_t *t = malloc(sizeof(*t)); pthread_create(t, NULL, fn, NULL); return t; }
void h_join(void *t) { pthread_join(*(pthread_t *)t, NULL); }
int h_pin(int cpu) { cpu_set_t c; CPU_ZERO(&c); CPU_SET(cpu, &c); return pthread_setaffinity_np(pthread_self(), sizeof(c), &c); }
int h_cpu(void) { return sched_getcpu(); }
extern int demo_main(void);
int main(void) { return demo_main(); }

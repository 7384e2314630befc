/*
 * src/thread-names.h - how a thread is named, in SQL: a tid may have had
 * several lifetimes (tid reuse) and names (pthread_setname_np); every
 * reader shows its latest lifetime's name, by these.
 */
#ifndef MTX_THREAD_NAMES_H
#define MTX_THREAD_NAMES_H

/* SQL for column @col of thread @tid (a column or parameter): its latest
 * lifetime's, as every named query shows it; NAME_OF its name. */
#define OF_THREAD(col, tid) \
	"(SELECT th." col " FROM threads th WHERE th.tid = " tid " ORDER BY th.start_ns DESC LIMIT 1)"
#define NAME_OF(tid) OF_THREAD("name", tid)
/* SQL rows (tid, name, ...): each thread's name as NAME_OF gives it, for
 * queries that name many threads at once. */
#define LATEST_NAMES "SELECT th.tid, th.name, MAX(th.start_ns) FROM threads th GROUP BY th.tid"
/*
 * SQL rows (tid, label), one per thread: its name (as NAME_OF), or
 * "name (tid)" where another thread's name is the same. Wait-for chains
 * name their threads so: by role where the names tell threads apart
 * (client-3 > rs-3), by tid where they share one (every MariaDB thread is
 * "mariadbd"). NULL for a thread without a name.
 */
#define THREAD_LABELS                                                                                   \
	"SELECT n.tid, CASE WHEN COUNT(*) OVER (PARTITION BY n.name) > 1 THEN n.name || ' (' || n.tid || ')' " \
	"ELSE n.name END AS label FROM (" LATEST_NAMES ") n"

#endif

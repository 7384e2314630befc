/*
 * src/report-external.c - `mtx report external`: seed 004's external
 * events, those of its system thread T_0, as the traced threads saw them
 * (the view external_events): each wakeup of a traced thread by an
 * interrupt (a device's irq, a softirq, a timer ending a sleep or a
 * timeout) or by a task of another process, in time order, with the
 * handler's duration, which handler or task it was (woken_by) and the
 * syscall the thread was woken out of (ends).
 */
#include "config.h"
#include "src/reports.h"

#define FROM_NS "COALESCE(:from, -9223372036854775807)"
#define TO_NS "COALESCE(:to, 9223372036854775807)"

/* What kind of T_0 event, as shown: "irq 36", "softirq", "timer". */
#define KIND_LABEL "CASE e.kind WHEN 'irq' THEN 'irq ' || e.irq ELSE e.kind END"
/* Which one: the irq's action or the softirq's vector ("virtio1-req.0",
 * "NET_RX"), the timer's function, "pid (comm)" of another process. */
#define WOKEN_BY \
	"CASE WHEN e.kind = 'other-process' THEN e.waker_pid || COALESCE(' (' || e.waker_comm || ')', '') ELSE e.name END"
/* The syscall thread @tid was in at @ts (the one the wakeup ended), and
 * what its descriptor was: "read (pipe)"; NULL outside one. */
#define SYSCALL_AT(tid, ts)                                                                          \
	"(SELECT y.name || COALESCE(' (' || y.fd_kind || ')', '') "                                  \
	"FROM syscalls y WHERE y.tid = " tid " AND y.start_ns <= " ts " AND (y.end_ns IS NULL OR "     \
	"y.end_ns >= " ts ") ORDER BY y.start_ns DESC LIMIT 1)"
#define EVENTS_IN_WINDOW \
	"FROM external_events e WHERE (:tid IS NULL OR e.wakee_tid = :tid) AND e.ts_ns >= " FROM_NS " AND e.ts_ns < " TO_NS

const struct mtx_query external_queries[] = {
	{ "external.summary", "What woke each traced thread from outside: interrupts, timers, other processes",
	  "SELECT e.wakee_tid AS tid, " NAME_OF("e.wakee_tid") " AS name, e.kind, COUNT(*) AS wakeups "
	  EVENTS_IN_WINDOW " GROUP BY e.wakee_tid, e.kind ORDER BY e.wakee_tid, wakeups DESC, e.kind" },
	{ "external", "External events: wakeups of traced threads by interrupts and other processes",
	  "SELECT e.ts_ns, " KIND_LABEL " AS kind, e.cpu, e.interrupt_end_ns - e.interrupt_start_ns AS duration_ns, "
	  "COALESCE(" NAME_OF("e.wakee_tid") ", '?') || ' (' || e.wakee_tid || ')' AS target, " WOKEN_BY " AS woken_by, "
	  SYSCALL_AT("e.wakee_tid", "e.ts_ns") " AS ends "
	  EVENTS_IN_WINDOW " ORDER BY e.ts_ns, e.wakee_tid" },
	{ 0 },
};

/*
 * src/io-ops.h - the read and write family of syscalls: what an I/O op is
 * for TooManySmallIOOps (src/derived/consultant.h), declared once for the
 * SQL that reads a finished run and the collector that adds them up live.
 */
#ifndef MTX_IO_OPS_H
#define MTX_IO_OPS_H

#define IO_OP_SYSCALLS(X) \
	X(read) X(write) X(pread64) X(pwrite64) X(readv) X(writev) X(preadv) X(pwritev) X(preadv2) X(pwritev2)

/* SQL: the family as a list for IN (the NULL closes it and matches nothing). */
#define IO_OP_SQL_ITEM(name) "'" #name "', "
#define IO_OP_SQL_LIST "(" IO_OP_SYSCALLS(IO_OP_SQL_ITEM) "NULL)"

#endif

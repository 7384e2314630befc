/*
 * src/match.h - PCRE2 patterns, the one way mtx matches names (functions,
 * threads) given by the user: --function, --thread NAME, and the REGEXP
 * operator in report and browser queries.
 */
#ifndef MTX_MATCH_H
#define MTX_MATCH_H

#include <sqlite3.h>
#include <stdbool.h>

struct mtx_match;

/* match_compile - compile @pattern. Returns NULL with a one-line message
 * in @err (caller frees) naming the pattern and where it is wrong. */
struct mtx_match *match_compile(const char *pattern, char **err);

/* match_test - whether @text matches anywhere (NULL text never does). */
bool match_test(const struct mtx_match *m, const char *text);

void match_free(struct mtx_match *m);

/* match_register_sql - make "X REGEXP P" work in @db's queries (P is
 * compiled once per statement). Returns 0 or -EIO. */
int match_register_sql(sqlite3 *db);

#endif

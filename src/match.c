/* src/match.c - see match.h. */
#include "config.h"
#include "src/match.h"
#include "src/error.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mtx_match {
	pcre2_code *code;
	pcre2_match_data *data;
};

struct mtx_match *match_compile(const char *pattern, char **err)
{
	int code;
	PCRE2_SIZE offset;
	struct mtx_match *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &offset, NULL);
	if (!m->code) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(code, msg, sizeof(msg));
		error_set(err, "bad pattern '%s' at offset %zu: %s", pattern, (size_t)offset,
				(const char *)msg);
		free(m);
		return NULL;
	}
	m->data = pcre2_match_data_create_from_pattern(m->code, NULL);
	if (!m->data) {
		match_free(m);
		return NULL;
	}
	return m;
}

bool match_test(const struct mtx_match *m, const char *text)
{
	return text && pcre2_match(m->code, (PCRE2_SPTR)text, strlen(text), 0, 0, m->data, NULL) >= 0;
}

void match_free(struct mtx_match *m)
{
	if (!m)
		return;
	pcre2_match_data_free(m->data);
	pcre2_code_free(m->code);
	free(m);
}

static void free_match(void *m)
{
	match_free(m);
}

/* regexp(pattern, text): SQLite calls this for "text REGEXP pattern". The
 * compiled pattern is kept as auxiliary data of argument 0, so a statement
 * compiles it once. */
static void sql_regexp(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct mtx_match *m = sqlite3_get_auxdata(ctx, 0);
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	if (!m) {
		char *err = NULL;
		m = match_compile((const char *)sqlite3_value_text(argv[0]), &err);
		if (!m) {
			sqlite3_result_error(ctx, err ? err : "out of memory", -1);
			free(err);
			return;
		}
		sqlite3_set_auxdata(ctx, 0, m, free_match);
		m = sqlite3_get_auxdata(ctx, 0);
		if (!m) { /* SQLite could not keep it and already freed it */
			sqlite3_result_error_nomem(ctx);
			return;
		}
	}
	sqlite3_result_int(ctx, match_test(m, (const char *)sqlite3_value_text(argv[1])));
}

int match_register_sql(sqlite3 *db)
{
	return sqlite3_create_function(db, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_regexp, NULL,
				       NULL) == SQLITE_OK
		       ? 0
		       : -EIO;
}

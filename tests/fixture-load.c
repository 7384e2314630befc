/* tests/fixture-load.c - see fixture-load.h. */
#include "config.h"
#include "tests/fixture-load.h"
#include "schema/schema.h"
#include "src/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	long size;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0) {
		rewind(f);
		text = calloc(1, (size_t)size + 1);
		if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
			free(text);
			text = NULL;
		}
	}
	fclose(f);
	return text;
}

int fixture_load(const char *sql_path, const char *db_path, sqlite3 **out, char **err)
{
	char *sql = read_file(sql_path);
	sqlite3 *db;
	if (!sql) {
		if (asprintf(err, "cannot read %s", sql_path) < 0)
			*err = NULL;
		return -1;
	}
	unlink(db_path);
	if (db_create(db_path, &db, err) || db_exec(db, sql, err) || db_create_indexes(db, err)) {
		free(sql);
		return -1;
	}
	free(sql);
	*out = db;
	return 0;
}

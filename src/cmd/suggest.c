/*
 * src/cmd/suggest.c - "did you mean": the known name closest to a
 * misspelled one (see cmd.h).
 */
#include "config.h"
#include "src/cmd/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Edits (insert, delete, replace, swap two neighbours) from @a to @b,
 * counted up to @most + 1. */
static size_t distance(const char *a, const char *b, size_t most)
{
	size_t n = strlen(a), m = strlen(b), best = most + 1;
	size_t *row[3];

	if ((n > m ? n - m : m - n) > most)
		return most + 1;
	for (int i = 0; i < 3; i++)
		if (!(row[i] = calloc(m + 1, sizeof(size_t)))) {
			while (i--)
				free(row[i]);
			return most + 1;
		}
	/* row[2]: the row for a[..i], row[1] the one before, row[0] the one before that */
	for (size_t j = 0; j <= m; j++)
		row[2][j] = j;
	for (size_t i = 1; i <= n; i++) {
		size_t *t = row[0];
		row[0] = row[1], row[1] = row[2], row[2] = t;
		row[2][0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t d = row[1][j - 1] + (a[i - 1] != b[j - 1]);
			if (row[1][j] + 1 < d)
				d = row[1][j] + 1;
			if (row[2][j - 1] + 1 < d)
				d = row[2][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && row[0][j - 2] + 1 < d)
				d = row[0][j - 2] + 1;
			row[2][j] = d;
		}
	}
	best = row[2][m];
	for (int i = 0; i < 3; i++)
		free(row[i]);
	return best;
}

const char *cmd_suggest(const char *word, const char *const *names, size_t nr)
{
	/* A third of the word may be wrong, and at least one letter. */
	size_t len = strlen(word), most = len / 3 > 1 ? len / 3 : 1, best = most + 1;
	const char *found = NULL, *prefixed = NULL;
	int nr_prefixed = 0;

	for (size_t i = 0; i < nr; i++) {
		size_t d = distance(word, names[i], most);
		if (d < best)
			best = d, found = names[i];
		if (len >= 2 && !strncmp(names[i], word, len))
			prefixed = names[i], nr_prefixed++;
	}
	/* Else the one name that begins with it ("thr" for threads). */
	return found ? found : nr_prefixed == 1 ? prefixed : NULL;
}

/* The long option @arg ("--thred", "--thred=5") misspells, or NULL. */
static const char *suggest_option(const char *arg, const struct option *longopts)
{
	const char *names[64];
	char word[64];
	size_t nr = 0;

	if (strncmp(arg, "--", 2))
		return NULL;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	for (; longopts[nr].name && nr < sizeof(names) / sizeof(names[0]); nr++)
		names[nr] = longopts[nr].name;
	return cmd_suggest(word, names, nr);
}

int cmd_unknown_option(const char *command, const char *arg, const struct option *longopts)
{
	const char *near = longopts ? suggest_option(arg, longopts) : NULL;

	if (near)
		return cmd_usage_error(command, "unknown option '%s' (did you mean --%s?)", arg, near);
	return cmd_usage_error(command, "unknown option '%s'", arg);
}

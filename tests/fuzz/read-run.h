/*
 * tests/fuzz/read-run.h - what the run.db fuzz targets (fuzz-db-readers,
 * fuzz-db-rows) do with the file they made of their input: read it as
 * 'mtx info' and 'mtx report' do, within a budget.
 */
#ifndef MTX_TESTS_FUZZ_READ_RUN_H
#define MTX_TESTS_FUZZ_READ_RUN_H

/*
 * read_run_setup - once per process: quiet logs, stdout to /dev/null, and
 * a budget of SQLite steps on every connection opened from now on, so that
 * a file whose schema or rows make a query run for ever costs one slow
 * input, not a hang (the readers see an interrupted statement, an SQLite
 * error like any other). Returns the path of a scratch "run.db" in a
 * directory of its own, removed at exit; the file does not exist yet.
 */
const char *read_run_setup(void);

/* read_run_remove - remove the scratch run.db and its journals. */
void read_run_remove(void);

/* read_run_budget - the steps all connections may take from now on
 * together, in thousands. */
void read_run_budget(int thousand_steps);

/*
 * read_run - 'mtx info' on @path, then what 'mtx report' does: what an
 * incomplete run lacks, the derived tables (as TEMP tables when the file
 * has no write permission bits) and every named report, each section in
 * one of the three formats, to /dev/null. Aborts when a reader refuses
 * the file without saying why.
 */
void read_run(const char *path);

#endif

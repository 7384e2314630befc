/*
 * schema/schema.h - the database schema, embedded from the schema/ SQL files at build
 * time (schema/embed.sh). schema/mtx.sql is the format specification.
 */
#ifndef MTX_SCHEMA_H
#define MTX_SCHEMA_H

/* PRAGMA user_version of databases this build writes; readers refuse newer. */
#define MTX_SCHEMA_VERSION 1
/* PRAGMA application_id marking a file as an mtx run database ("mtx" 0x01). */
#define MTX_APPLICATION_ID 0x6d747801

extern const char schema_mtx_sql[];     /* tables */
extern const char schema_views_sql[];   /* views */
extern const char schema_indexes_sql[]; /* secondary indexes, built at finalize */
extern const char schema_derived_sql[];  /* derived tables (src/derived/analysis.c) */
extern const char schema_probe_sql[];    /* mtx probe-effect's results (src/probe/verdict.c) */

#endif

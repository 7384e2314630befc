# The schema is embedded into the binary as C strings.
SCHEMA_SQL = schema/mtx.sql schema/views.sql schema/indexes.sql schema/derived.sql schema/probe.sql
EXTRA_DIST += $(SCHEMA_SQL) schema/embed.sh schema/schema.h
BUILT_SOURCES += schema/schema-sql.c
CLEANFILES += schema/schema-sql.c

schema/schema-sql.c: $(SCHEMA_SQL) schema/embed.sh
	$(AM_V_GEN)mkdir -p schema && \
	$(SHELL) $(srcdir)/schema/embed.sh $(srcdir) > $@.tmp && mv $@.tmp $@

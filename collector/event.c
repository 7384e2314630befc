/* collector/event.c - names of event types and sources (see event.h). */
#include "config.h"
#include "collector/event.h"

static const char *const event_type_names[] = {
#define X(e, n) n,
	MTX_EVENT_TYPES(X)
#undef X
};

static const char *const source_names[] = {
#define X(e, n) n,
	MTX_SOURCES(X)
#undef X
};

const char *event_type_name(uint32_t type)
{
	return type < MTX_EV__COUNT ? event_type_names[type] : "?";
}

const char *source_name(uint32_t source)
{
	return source < MTX_SRC__COUNT ? source_names[source] : "?";
}

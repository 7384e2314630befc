/*
 * ui/view-help.c - the keys, made from the action table (ui/actions.c), so
 * the help never disagrees with what the keys do.
 */
#include "config.h"
#include "ui/views.h"

static int help_load(struct view *v, char **err)
{
	static const char *const columns[] = { "keys", "where", "what it does" };
	int nr;
	const struct action_info *a = action_table(&nr);
	(void)err;
	int section = table_add_columns(&v->table, "help", "Keys", columns, 3);
	if (section < 0)
		return section;
	for (int i = 0; i < nr; i++) {
		const char *cells[] = { a[i].key_names, a[i].where, a[i].help };
		table_add_cells(&v->table, section, cells);
	}
	return 0;
}

static const struct view_ops help_view_ops = {
	.name = "help",
	.load = help_load,
};

struct view *help_view_new(struct browse *b)
{
	return view_new(b, &help_view_ops, "help", NULL);
}

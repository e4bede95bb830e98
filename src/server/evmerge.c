/* evmerge.c: (being written) */
#include "out.h"

void srv_merge_free(struct srv_merge *m)
{
	(void)m;
}

int srv_merge_ready(struct srv_exp *e)
{
	(void)e;
	return 1;
}

void srv_merge_start(struct srv *s, struct srv_exp *e)
{
	(void)s;
	(void)e;
}

void srv_cursors_free(struct srv_cursors *c)
{
	(void)c;
}

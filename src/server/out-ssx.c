/* out-ssx.c: (being written) */
#include "out.h"

static int no(struct srv_exp *e)
{
	(void)e;
	return 0;
}

const struct srv_output srv_out_ssx = {
	.index = SRV_OUT_COUNT - 1,
	.id = "sht.ssx",
	.name = "ssx",
	.description = "",
	.type = SRV_OUT_TIME_GRAPH,
	.applies = no,
};

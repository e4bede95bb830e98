/* out-histogram.c: (being written) */
#include "out.h"

static int no(struct srv_exp *e)
{
	(void)e;
	return 0;
}

const struct srv_output srv_out_histogram = {
	.index = SRV_OUT_COUNT - 1,
	.id = "sht.histogram",
	.name = "histogram",
	.description = "",
	.type = SRV_OUT_TIME_GRAPH,
	.applies = no,
};

/*
 * gzip.c: gzip a big answer when the client offers it (the TSP client's
 * HTTP library does, and inflates transparently): time-graph states and
 * table lines shrink five to ten times.
 */
#include <stdlib.h>
#include <zlib.h>

#include "http.h"
#include "srv.h"

int srv_gzip(struct srv_reply *rep)
{
	z_stream z = { 0 };
	uLong bound;
	unsigned char *out;
	int rc = Z_OK;

	if (rep->len > UINT32_MAX || rep->len2 > UINT32_MAX ||
	    rep->len + rep->len2 > UINT32_MAX)
		return -1;
	/* windowBits 15 + 16: a gzip header; level 1: speed over size. */
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	bound = deflateBound(&z, (uLong)(rep->len + rep->len2)) + 64;
	out = malloc(bound);
	if (!out) {
		deflateEnd(&z);
		return -1;
	}
	z.next_out = out;
	z.avail_out = (uInt)bound;
	z.next_in = (unsigned char *)rep->body;     /* the parts in turn */
	z.avail_in = (uInt)rep->len;
	if (rep->body2)
		rc = deflate(&z, Z_NO_FLUSH);
	if (rc == Z_OK && rep->body2) {
		z.next_in = (unsigned char *)rep->body2;
		z.avail_in = (uInt)rep->len2;
	}
	if (rc == Z_OK)
		rc = deflate(&z, Z_FINISH);
	if (rc != Z_STREAM_END) {
		deflateEnd(&z);
		free(out);
		return -1;
	}
	srv_reply_free(rep);
	rep->body = (char *)out;
	rep->len = z.total_out;
	deflateEnd(&z);
	return 0;
}

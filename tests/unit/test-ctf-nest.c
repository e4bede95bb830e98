/* sht-test-label: threads
 * test-ctf-nest.c: fields below the top level of CTF events, by dotted
 * path (sht/trace.h), read by the stream reader (copied nodes,
 * src/trace/ctf-nest.c) and by babeltrace2's graph (live fields,
 * ctf-path.c) with 0 and 2 decoding threads.
 *
 * The trace is written here: a TSDL metadata whose event has a variant
 * (two options, one a structure holding another variant tagged by an
 * enumeration inside it), a structure of an integer and a string, and an
 * array, and two stream files of packets of 1 KiB with every option
 * drawn at random.  Each event's values are known: every path must give
 * them, in both readers, and the paths that lead nowhere (an option not
 * selected, a member that does not exist, an empty element, a step into
 * an integer or an array, more than 128 elements) must give nothing in
 * both.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sht/sht.h"
#include "rng.h"
#include "tap.h"

#define NEV 3000                  /* events per stream */
#define PKT 1024                  /* bytes per packet */
#define HDR 44                    /* packet header and context */

static const char METADATA[] =
"/* CTF 1.8 */\n"
"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
"trace {\n"
"  major = 1; minor = 8; byte_order = le;\n"
"  packet.header := struct { uint32_t magic; uint32_t stream_id; };\n"
"};\n"
"env { hostname = \"nest\"; domain = \"kernel\"; };\n"
"clock { name = \"monotonic\"; uuid = \"5e1a6e38-0d1b-4c2f-9a51-3c0c1a2b3d4e\";\n"
"  freq = 1000000000; offset = 0; };\n"
"typealias integer { size = 64; align = 8; signed = false;\n"
"  map = clock.monotonic.value; } := clk_t;\n"
"stream {\n"
"  id = 0;\n"
"  packet.context := struct { clk_t timestamp_begin; clk_t timestamp_end;\n"
"    uint64_t content_size; uint64_t packet_size; uint32_t cpu_id; };\n"
"  event.header := struct { uint32_t id; clk_t timestamp; };\n"
"};\n"
"event {\n"
"  name = \"net_dev_queue\"; id = 0; stream_id = 0;\n"
"  fields := struct {\n"
"    enum : uint8_t { ipv4 = 0, ipv6 = 1 } proto;\n"
"    variant <proto> {\n"
"      struct {\n"
"        uint8_t version;\n"
"        enum : uint8_t { none = 0, tcp = 1 } protocol;\n"
"        variant <protocol> {\n"
"          uint8_t none;\n"
"          struct { uint32_t seq; string s; } tcp;\n"
"        } transport_header;\n"
"      } ipv4;\n"
"      struct { uint16_t flow; } ipv6;\n"
"    } network_header;\n"
"    struct { int64_t a; string b; } st;\n"
"    uint8_t arr[2];\n"
"    uint32_t len;\n"
"  };\n"
"};\n";

/* What one event holds. */
struct nev {
	uint8_t proto, proto4, none, arr[2];
	uint8_t version;
	uint16_t flow;
	uint32_t seq, len;
	int64_t a;
	char s[16], b[16];
};

struct wbuf {
	unsigned char p[PKT];
	size_t n;
};

static void put(struct wbuf *w, const void *p, size_t n)
{
	memcpy(w->p + w->n, p, n);
	w->n += n;
}

static void put_str(struct wbuf *w, const char *s)
{
	put(w, s, strlen(s) + 1);
}

/* Event e as its bytes after the payload's start. */
static size_t event_bytes(const struct nev *e, uint64_t ts, unsigned char *out)
{
	struct wbuf w = { { 0 }, 0 };
	uint32_t id = 0;

	put(&w, &id, 4);
	put(&w, &ts, 8);
	put(&w, &e->proto, 1);
	if (e->proto == 0) {
		put(&w, &e->version, 1);
		put(&w, &e->proto4, 1);
		if (e->proto4 == 0) {
			put(&w, &e->none, 1);
		} else {
			put(&w, &e->seq, 4);
			put_str(&w, e->s);
		}
	} else {
		put(&w, &e->flow, 2);
	}
	put(&w, &e->a, 8);
	put_str(&w, e->b);
	put(&w, e->arr, 2);
	put(&w, &e->len, 4);
	memcpy(out, w.p, w.n);
	return w.n;
}

static void draw(struct rng *r, struct nev *e)
{
	memset(e, 0, sizeof *e);
	e->proto = (uint8_t)rng_below(r, 2);
	e->version = (uint8_t)(4 + rng_below(r, 3));
	e->proto4 = (uint8_t)rng_below(r, 2);
	e->none = (uint8_t)rng_below(r, 256);
	e->seq = (uint32_t)rng_next(r);
	e->flow = (uint16_t)rng_next(r);
	e->a = (int64_t)rng_next(r);
	e->len = (uint32_t)rng_below(r, 1500);
	e->arr[0] = (uint8_t)rng_next(r);
	e->arr[1] = (uint8_t)rng_next(r);
	snprintf(e->s, sizeof e->s, "s%" PRIu64, rng_below(r, 100000));
	/* an empty string now and then (babeltrace2 recycles fields) */
	if (rng_below(r, 4))
		snprintf(e->b, sizeof e->b, "b%" PRIu64, rng_below(r, 1000));
}

static void flush_packet(FILE *f, struct wbuf *pk, uint64_t t0, uint64_t t1,
			 uint32_t cpu)
{
	uint32_t magic = 0xC1FC1FC1u, sid = 0;
	uint64_t content = (uint64_t)pk->n * 8, size = (uint64_t)PKT * 8;
	unsigned char *h = pk->p;

	memcpy(h, &magic, 4);
	memcpy(h + 4, &sid, 4);
	memcpy(h + 8, &t0, 8);
	memcpy(h + 16, &t1, 8);
	memcpy(h + 24, &content, 8);
	memcpy(h + 32, &size, 8);
	memcpy(h + 40, &cpu, 4);
	memset(pk->p + pk->n, 0, PKT - pk->n);
	fwrite(pk->p, 1, PKT, f);
	pk->n = HDR;
}

/* Stream cpu: NEV events of times 1000 + 10 i + cpu, values ev[]. */
static int write_stream(const char *dir, uint32_t cpu, const struct nev *ev)
{
	char path[4200];
	struct wbuf pk = { { 0 }, HDR };
	unsigned char one[256];
	uint64_t t0 = 0, last = 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/channel0_%u", dir, cpu);
	if (!(f = fopen(path, "wb")))
		return 0;
	for (int i = 0; i < NEV; i++) {
		uint64_t ts = 1000 + 10 * (uint64_t)i + cpu;
		size_t n = event_bytes(&ev[i], ts, one);

		if (pk.n + n > PKT)
			flush_packet(f, &pk, t0, last, cpu);
		if (pk.n == HDR)
			t0 = ts;
		put(&pk, one, n);
		last = ts;
	}
	flush_packet(f, &pk, t0, last, cpu);
	return fclose(f) == 0;
}

static int write_trace(const char *dir, struct nev ev[2][NEV])
{
	char path[4200];
	struct rng r = RNG_INIT(17);
	FILE *f;

	snprintf(path, sizeof path, "%s/metadata", dir);
	if (mkdir(dir, 0755) != 0 || !(f = fopen(path, "w")))
		return 0;
	fputs(METADATA, f);
	if (fclose(f) != 0)
		return 0;
	for (uint32_t c = 0; c < 2; c++)
		for (int i = 0; i < NEV; i++)
			draw(&r, &ev[c][i]);
	return write_stream(dir, 0, ev[0]) && write_stream(dir, 1, ev[1]);
}

/* ---- the paths ---------------------------------------------------------- */

enum { U, S, NONE, OTHER };

struct want {
	const char *path;
	int kind;
	uint64_t u;
	const char *s;
};

/* Every path asked of event e, with what it must give. */
static size_t wants(const struct nev *e, struct want *w, const char *deep)
{
	size_t n = 0;
	int v4 = e->proto == 0, tcp = v4 && e->proto4 == 1;

#define W(p, k, uv, sv) (w[n++] = (struct want){ p, k, (uint64_t)(uv), sv })
	W("network_header.*.version", v4 ? U : NONE, v4 ? e->version : 0, NULL);
	W("network_header.ipv4.version", v4 ? U : NONE, v4 ? e->version : 0, NULL);
	W("network_header.ipv6.version", NONE, 0, NULL);
	W("network_header.ipv6.flow", v4 ? NONE : U, v4 ? 0 : e->flow, NULL);
	W("network_header.*.flow", v4 ? NONE : U, v4 ? 0 : e->flow, NULL);
	W("network_header.*.protocol", v4 ? U : NONE, v4 ? e->proto4 : 0, NULL);
	W("network_header.*.transport_header.tcp.seq", tcp ? U : NONE,
	  tcp ? e->seq : 0, NULL);
	W("network_header.ipv4.transport_header.*.seq", tcp ? U : NONE,
	  tcp ? e->seq : 0, NULL);
	W("network_header.*.transport_header.*.s", tcp ? S : NONE, 0,
	  tcp ? e->s : NULL);
	W("network_header.*.transport_header.none", v4 && !tcp ? U : NONE,
	  v4 && !tcp ? e->none : 0, NULL);
	W("network_header.*.transport_header.tcp", tcp ? OTHER : NONE, 0, NULL);
	W("network_header.*.transport_header", v4 ? OTHER : NONE, 0, NULL);
	W("network_header.*", OTHER, 0, NULL);
	W("network_header", OTHER, 0, NULL);
	W("network_header.*.transport_header.tcp.seq.x", NONE, 0, NULL);
	W("network_header.**.version", NONE, 0, NULL);
	W("st.a", U, e->a, NULL);
	W("st.b", S, 0, e->b);
	W("st", OTHER, 0, NULL);
	W("st.c", NONE, 0, NULL);
	W("st..a", NONE, 0, NULL);
	W("st.", NONE, 0, NULL);
	W(".st", NONE, 0, NULL);
	W("st.*", NONE, 0, NULL);
	W("arr", OTHER, 0, NULL);
	W("arr.0", NONE, 0, NULL);
	W("len", U, e->len, NULL);
	W("len.x", NONE, 0, NULL);
	W("cpu_id.x", NONE, 0, NULL);
	W("nope.a", NONE, 0, NULL);
	W(deep, NONE, 0, NULL);
#undef W
	return n;
}

/* 1 if got is what w says (st.a is signed: compared as bits). */
static int matches(const struct want *w, const sht_field *got)
{
	switch (w->kind) {
	case U:
		return (got->type == SHT_FIELD_UINT || got->type == SHT_FIELD_INT) &&
		       got->v.u == w->u;
	case S:
		return got->type == SHT_FIELD_STRING && strcmp(got->v.s, w->s) == 0;
	case OTHER:
		return got->type == SHT_FIELD_OTHER;
	default:
		return got->type == SHT_FIELD_NONE;
	}
}

static void check_reader(const char *dir, int muxer, uint32_t jobs,
			 struct nev ev[2][NEV], const char *deep)
{
	struct want w[64];
	sht_ctf_opts o;
	sht_source src;
	sht_event e;
	sht_err err;
	size_t seen[2] = { 0, 0 }, bad = 0, asked = 0, order = 0;
	char host[64];

	sht_ctf_opts_init(&o);
	o.muxer = muxer;
	o.jobs = jobs;
	if (!ok(sht_ctf_open(dir, &o, &src) == SHT_OK, "%s: opens",
		muxer ? "babeltrace2's graph" : "stream reader")) {
		diag("%s", sht_errmsg());
		return;
	}
	while ((err = src.ops->next(src.src, &e)) == SHT_OK) {
		int c = e.cpu == 1;
		size_t i = seen[c]++, n;

		order += i >= NEV || (uint64_t)e.ts != 1000 + 10 * i + (uint64_t)c;
		if (i >= NEV)
			continue;
		n = wants(&ev[c][i], w, deep);
		for (size_t k = 0; k < n; k++) {
			sht_field got;

			sht_event_field(&e, w[k].path, &got);
			asked++;
			if (!matches(&w[k], &got) && bad++ < 5)
				diag("cpu %d event %zu: %s: type %d", c, i, w[k].path,
				     (int)got.type);
		}
	}
	is_int(err, SHT_END, "%s, %u threads: reads to the end", muxer ? "graph" : "streams", jobs);
	ok(seen[0] == NEV && seen[1] == NEV && order == 0,
	   "%s, %u threads: every event, in order", muxer ? "graph" : "streams", jobs);
	ok(bad == 0, "%s, %u threads: %zu paths, each as written (%zu wrong)",
	   muxer ? "graph" : "streams", jobs, asked, bad);
	ok(sht_ctf_host_id(&src, host, sizeof host) == SHT_OK &&
	   strcmp(host, "5e1a6e38-0d1b-4c2f-9a51-3c0c1a2b3d4e") == 0,
	   "%s, %u threads: host id from the clock's UUID", muxer ? "graph" : "streams",
	   jobs);
	sht_ctf_close(&src);
}

int main(void)
{
	const char *tmp = getenv("SHT_TMP");
	static struct nev ev[2][NEV];
	char dir[4096], cmd[8400], deep[1024];
	size_t n = 0;

	if (!tmp)
		tmp = "/tmp";
	snprintf(dir, sizeof dir, "%s/nest-trace", tmp);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0 || !ok(write_trace(dir, ev), "trace written"))
		return done_testing();
	/* 129 elements: past the longest path */
	n += (size_t)snprintf(deep, sizeof deep, "network_header");
	for (int i = 0; i < 128; i++)
		n += (size_t)snprintf(deep + n, sizeof deep - n, ".*");
	check_reader(dir, 1, 0, ev, deep);
	check_reader(dir, 0, 0, ev, deep);
	check_reader(dir, 0, 2, ev, deep);
	return done_testing();
}

/*
 * fuzz-request.c: the server's request handling (src/server/: routes,
 * parameter parsing, every output) as a fuzz target, without HTTP.
 *
 * Input: "METHOD PATH\n" then the body.  In PATH, "{e}" and "{t}" stand
 * for the UUIDs of an experiment and a trace opened once, at the first
 * input: a small synthetic kernel trace (VSTF, written here with the
 * public writer) analysed to completion, so that inputs reach the outputs
 * with real histories behind them.  DELETE is read as GET (inputs must
 * not close what the next ones use).  Every answer must be an HTTP status
 * with a JSON body, or a file of the viewer (200, a plain path outside
 * the protocol's); anything else aborts.  SHT_FUZZ_VERBOSE=1 prints
 * each input's status and the start of its answer.
 *
 *   build/fuzz/fuzz-request -max_len=8192 CORPUS_DIR
 *
 * Without libFuzzer: the smoke driver of fuzz-main.h (CTest runs it over
 * tests/data/fuzz/request).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "srv.h"

#define FUZZ_NAME "fuzz-request"

static struct srv S;
static char exp_id[40], trace_id[40];

/* ---- the trace ---------------------------------------------------------------- */

static void field_int(sht_vstf_writer *w, const char *name, int64_t v)
{
	sht_field f = { .type = SHT_FIELD_INT, .v.i = v };

	sht_vstf_writer_field(w, name, &f);
}

static void field_str(sht_vstf_writer *w, const char *name, const char *s)
{
	sht_field f = { .type = SHT_FIELD_STRING, .v.s = s };

	sht_vstf_writer_field(w, name, &f);
}

/* 600 events of an LTTng 2.8 kernel trace on 2 CPUs: context switches
 * among 6 threads, system calls, soft IRQs. */
static int write_trace(const char *path)
{
	static const char *const comm[] = { "init", "bash", "ls", "cc1", "make", "sshd" };
	sht_vstf_writer *w;
	sht_field f;
	int cur[2] = { 0, 0 };

	if (sht_vstf_writer_create(path, 64, &w) != SHT_OK)
		return -1;
	f.type = SHT_FIELD_STRING;
	f.v.s = "lttng-modules";
	sht_vstf_writer_env(w, "tracer_name", &f);
	f.v.s = "kernel";
	sht_vstf_writer_env(w, "domain", &f);
	f.type = SHT_FIELD_INT;
	f.v.i = 2;
	sht_vstf_writer_env(w, "tracer_major", &f);
	f.v.i = 8;
	sht_vstf_writer_env(w, "tracer_minor", &f);
	for (int i = 0; i < 600; i++) {
		int cpu = i % 2, next = (i * 7 + 3) % 6 + 1;
		sht_time t = 1000000 + (sht_time)i * 1000;

		if (i % 3 == 0) {
			sht_vstf_writer_begin(w, t, cpu, "sched_switch");
			field_str(w, "prev_comm", comm[cur[cpu] % 6]);
			field_int(w, "prev_tid", cur[cpu]);
			field_int(w, "prev_prio", 20);
			field_int(w, "prev_state", i % 2);
			field_str(w, "next_comm", comm[next - 1]);
			field_int(w, "next_tid", next);
			field_int(w, "next_prio", 20);
			cur[cpu] = next;
		} else if (i % 3 == 1) {
			sht_vstf_writer_begin(w, t, cpu, i % 2 ? "syscall_entry_read"
							       : "irq_softirq_entry");
			field_int(w, "vec", 1);
			field_int(w, "fd", 3);
		} else {
			sht_vstf_writer_begin(w, t, cpu, i % 2 ? "syscall_exit_read"
							       : "irq_softirq_exit");
			field_int(w, "vec", 1);
			field_int(w, "ret", 0);
		}
		sht_vstf_writer_end(w);
	}
	if (sht_vstf_writer_finish(w, NULL) != SHT_OK) {
		sht_vstf_writer_close(w);
		return -1;
	}
	sht_vstf_writer_close(w);
	return 0;
}

/* ---- requests ------------------------------------------------------------------ */

static const char *no_arg(void *conn, const char *key)
{
	(void)conn;
	(void)key;
	return NULL;
}

/* Handle one request; abort unless the answer is a status and JSON. */
static void request(const char *method, const char *path, const char *body,
		    size_t len, struct srv_reply *rep)
{
	static const char *const names[] = { "GET", "POST", "PUT", "DELETE",
					     "OPTIONS", "HEAD" };
	struct srv_req req;
	json_error_t err;
	json_t *j;

	memset(&req, 0, sizeof req);
	memset(rep, 0, sizeof *rep);
	req.srv = &S;
	req.method = SRV_OTHER;
	for (int i = 0; i < 6; i++)
		if (strcmp(method, names[i]) == 0)
			req.method = (enum srv_method)i;
	if (req.method == SRV_DELETE)
		req.method = SRV_GET;
	req.path = path;
	req.body = body;
	req.body_len = len;
	req.arg = no_arg;
	srv_handle(&req, rep);
	json_decref(req.root);
	srv_reply_join(rep);          /* a big screen's answer is in two parts */
	if (rep->status < 200 || rep->status > 599 || !rep->body)
		abort();
	if (rep->ctype) {             /* a file of the viewer (static.c) */
		if (rep->status != 200 || strncmp(path, "/tsp/", 5) == 0 ||
		    strstr(path, "..") || strstr(path, "/."))
			abort();
		return;
	}
	j = json_loadb(rep->body, rep->len, 0, &err);
	if (!j) {
		fprintf(stderr, "not JSON: %.*s\n", (int)rep->len, rep->body);
		abort();
	}
	json_decref(j);
}

/* The "UUID" of a JSON answer into out. */
static void uuid_of(const struct srv_reply *rep, char *out)
{
	json_t *j = json_loadb(rep->body, rep->len, 0, NULL);
	const char *s = json_string_value(json_object_get(j, "UUID"));

	snprintf(out, 40, "%s", s ? s : "none");
	json_decref(j);
}

/* At exit: stop the trace's pass (joined) and free everything. */
static void fini(void)
{
	srv_teardown(&S);
}

static void init(void)
{
	static char dir[] = "/tmp/fuzz-request-XXXXXX";
	static char cache[64], trace[64];
	static const char *roots[1];
	struct srv_config cfg;
	struct srv_reply rep;
	char body[256];

	if (!mkdtemp(dir))
		abort();
	snprintf(cache, sizeof cache, "%s/cache", dir);
	snprintf(trace, sizeof trace, "%s/k.vstf", dir);
	if (write_trace(trace) != 0)
		abort();
	roots[0] = dir;
	memset(&cfg, 0, sizeof cfg);
	cfg.roots = roots;
	cfg.nroots = 1;
	cfg.cache = cache;
	cfg.quiet = 1;
	if (srv_setup(&S, &cfg) != 0)
		abort();
	atexit(fini);
	snprintf(body, sizeof body, "{\"parameters\":{\"uri\":\"%s\"}}", trace);
	request("POST", "/tsp/api/traces", body, strlen(body), &rep);
	uuid_of(&rep, trace_id);
	srv_reply_free(&rep);
	snprintf(body, sizeof body, "{\"parameters\":{\"name\":\"k\",\"traces\":[\"%s\"]}}",
		 trace_id);
	request("POST", "/tsp/api/experiments", body, strlen(body), &rep);
	uuid_of(&rep, exp_id);
	srv_reply_free(&rep);
	for (int i = 0; i < 1000; i++) {      /* the analyses end */
		struct srv_exp *e = srv_registry_exp(&S.reg, exp_id);
		sht_time a, b;
		uint64_t n;
		int complete = e && srv_exp_progress(e, &a, &b, &n);
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		srv_exp_unref(e);
		if (complete)
			break;
		nanosleep(&ts, NULL);
	}
}

/* PATH with {e} and {t} replaced, into out. */
static void expand(const char *path, size_t len, char *out, size_t size)
{
	size_t k = 0;

	for (size_t i = 0; i < len && k + 40 < size; i++) {
		if (path[i] == '{' && i + 2 < len && path[i + 2] == '}' &&
		    (path[i + 1] == 'e' || path[i + 1] == 't')) {
			k += (size_t)snprintf(out + k, size - k, "%s",
					      path[i + 1] == 'e' ? exp_id : trace_id);
			i += 2;
		} else {
			out[k++] = path[i];
		}
	}
	out[k] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size), *sp;
	char method[16], path[4096];
	struct srv_reply rep;
	char *body;
	size_t line, blen;

	if (!exp_id[0])
		init();
	if (!nl)
		return 0;
	line = (size_t)(nl - (const char *)data);
	sp = memchr(data, ' ', line);
	if (!sp || (size_t)(sp - (const char *)data) >= sizeof method)
		return 0;
	memcpy(method, data, (size_t)(sp - (const char *)data));
	method[sp - (const char *)data] = '\0';
	expand(sp + 1, line - (size_t)(sp + 1 - (const char *)data), path, sizeof path);
	blen = size - line - 1;
	body = malloc(blen + 1);              /* exact size: ASan sees overreads */
	if (!body)
		return 0;
	memcpy(body, nl + 1, blen);
	body[blen] = '\0';
	request(method, path, blen ? body : NULL, blen, &rep);
	if (getenv("SHT_FUZZ_VERBOSE"))     /* what each input got */
		fprintf(stderr, "%d %s %s %.120s\n", rep.status, method, path, rep.body);
	srv_reply_free(&rep);
	free(body);
	return 0;
}

#include "fuzz-main.h"

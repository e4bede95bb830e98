/*
 * ctfw-meta.c: what the CTF writer (ctfw.h) declares, the environment
 * and the event classes, and the TSDL metadata text that describes the
 * trace, in the shape of LTTng 2.x kernel traces (typealiases, the trace
 * block with its packet header, env, clock "monotonic", the clock-mapped
 * integer, the packet context, one stream class), with a plain event
 * header (uint32 id, uint64 timestamp) instead of LTTng's compact and
 * large variants, and event fields declared as LTTng declares them.  The
 * binary layout this text describes is in ctfw-int.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ctfw-int.h"
#include "gen/gen-int.h"

/* ---- text buffer -------------------------------------------------------- */

struct text {
	char *p;
	size_t n, cap;
	int oom;                  /* an allocation failed: p is unusable */
};

static void text_reserve(struct text *t, size_t more)
{
	size_t cap;
	char *np;

	if (t->oom || t->cap - t->n > more)
		return;
	cap = t->cap ? t->cap : 4096;
	while (cap - t->n <= more)
		cap *= 2;
	np = realloc(t->p, cap);
	if (!np) {
		t->oom = 1;
		return;
	}
	t->p = np;
	t->cap = cap;
}

static void text_printf(struct text *t, const char *fmt, ...) SHTGEN_PRINTF(2, 3);
static void text_printf(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0) {
		t->oom = 1;
		return;
	}
	text_reserve(t, (size_t)k);
	if (t->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap);
	va_end(ap);
	t->n += (size_t)k;
}

/* s as a TSDL string literal, quotes included. */
static void text_quoted(struct text *t, const char *s)
{
	text_reserve(t, 2 * strlen(s) + 2);
	if (t->oom)
		return;
	t->p[t->n++] = '"';
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			t->p[t->n++] = '\\';
		t->p[t->n++] = *s;
	}
	t->p[t->n++] = '"';
	t->p[t->n] = '\0';
}

static void text_uuid(struct text *t, const uint8_t u[16])
{
	text_printf(t, "\"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		    "%02x%02x%02x%02x%02x%02x\"", u[0], u[1], u[2], u[3],
		    u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		    u[13], u[14], u[15]);
}

/* ---- names -------------------------------------------------------------- */

static const char *const tsdl_keywords[] = {
	"align", "callsite", "const", "char", "clock", "double", "enum",
	"env", "event", "floating_point", "float", "integer", "int", "long",
	"short", "signed", "stream", "string", "struct", "trace",
	"typealias", "typedef", "unsigned", "variant", "void", "_Bool",
	"_Complex", "_Imaginary",
};

static int is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static int field_name_ok(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!is_word_char(*s))
			return 0;
	return 1;
}

static int ident_ok(const char *s)
{
	if (!field_name_ok(s) || (*s >= '0' && *s <= '9'))
		return 0;
	for (size_t i = 0; i < sizeof tsdl_keywords / sizeof *tsdl_keywords;
	     i++)
		if (strcmp(s, tsdl_keywords[i]) == 0)
			return 0;
	return 1;
}

static int text_ok(const char *s)
{
	if (!s)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* ---- public: declarations ------------------------------------------------ */

static int env_has(const shtgen_ctfw *w, const char *name)
{
	for (size_t i = 0; i < w->nenv; i++)
		if (strcmp(w->env[i].name, name) == 0)
			return 1;
	return 0;
}

static sht_err env_add(shtgen_ctfw *w, const char *name, const char *str,
		       int64_t i)
{
	struct ctfw_env *e;
	sht_err err = shtgen_ctfw_check(w);

	if (err)
		return err;
	if (w->events)
		return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "env entry '%s' "
				      "after the first event",
				      name ? name : "(null)");
	if (!ident_ok(name) || env_has(w, name))
		return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "env name '%s' is "
				      "not an identifier, is a TSDL keyword "
				      "or is already set",
				      name ? name : "(null)");
	if (str && !text_ok(str))
		return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "env '%s': the "
				      "value holds control characters", name);
	if (w->nenv == w->cap_env) {
		size_t cap = w->cap_env ? 2 * w->cap_env : 16;
		struct ctfw_env *ne = realloc(w->env, cap * sizeof *ne);

		if (!ne)
			return shtgen_ctfw_fail(w, SHT_ERR_NOMEM,
					      "out of memory");
		w->env = ne;
		w->cap_env = cap;
	}
	e = &w->env[w->nenv];
	e->name = strdup(name);
	e->str = str ? strdup(str) : NULL;
	e->i = i;
	if (!e->name || (str && !e->str)) {
		free(e->name);
		free(e->str);
		return shtgen_ctfw_fail(w, SHT_ERR_NOMEM, "out of memory");
	}
	w->nenv++;
	return SHT_OK;
}

sht_err shtgen_ctfw_env_str(shtgen_ctfw *w, const char *name, const char *value)
{
	if (w && !value)
		return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "env '%s': no value",
				      name ? name : "(null)");
	return env_add(w, name, value, 0);
}

sht_err shtgen_ctfw_env_int(shtgen_ctfw *w, const char *name, int64_t value)
{
	return env_add(w, name, NULL, value);
}

static size_t field_size(shtgen_ctfw_type t)
{
	switch (t) {
	case SHTGEN_CTFW_S32:
	case SHTGEN_CTFW_U32:
		return 4;
	case SHTGEN_CTFW_S64:
	case SHTGEN_CTFW_U64:
		return 8;
	case SHTGEN_CTFW_TEXT16:
		return CTFW_TEXT16;
	default:
		return 0;
	}
}

/* The index of the first bad field (name, type, or a repeated name), or
 * n if all are good. */
static size_t fields_check(const shtgen_ctfw_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!field_name_ok(f[i].name) ||
		    (unsigned)f[i].type > SHTGEN_CTFW_TEXT16)
			return i;
		for (size_t j = 0; j < i; j++)
			if (strcmp(f[i].name, f[j].name) == 0)
				return i;
	}
	return n;
}

static sht_err class_copy(shtgen_ctfw *w, struct ctfw_class *c,
			  const char *name, const shtgen_ctfw_field *fields,
			  size_t n)
{
	c->name = strdup(name);
	c->fields = calloc(n ? n : 1, sizeof *c->fields);
	c->nfields = 0;
	c->fixed = CTFW_EV_HEADER;
	if (!c->name || !c->fields)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		c->fields[i].type = fields[i].type;
		c->fields[i].name = strdup(fields[i].name);
		if (!c->fields[i].name)
			goto oom;
		c->nfields++;
		c->fixed += field_size(fields[i].type);
	}
	return SHT_OK;
oom:
	for (size_t i = 0; i < c->nfields; i++)
		free(c->fields[i].name);
	free(c->fields);
	free(c->name);
	return shtgen_ctfw_fail(w, SHT_ERR_NOMEM, "out of memory");
}

sht_err shtgen_ctfw_event_class(shtgen_ctfw *w, const char *name,
			      const shtgen_ctfw_field *fields, size_t nfields,
			      uint32_t *id)
{
	sht_err err = shtgen_ctfw_check(w);
	size_t bad;

	if (err)
		return err;
	if (!name || !*name || !text_ok(name) ||
	    (nfields && !fields) || w->ncls >= UINT32_MAX)
		return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "bad event class "
				      "'%s' (empty name, control characters, "
				      "or no fields)", name ? name : "(null)");
	bad = fields_check(fields, nfields);
	if (bad < nfields)
		return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "event class '%s': "
				      "field %zu '%s' has a bad or repeated "
				      "name, or a bad type", name, bad,
				      fields[bad].name ? fields[bad].name :
				      "(null)");
	if (w->ncls == w->cap_cls) {
		size_t cap = w->cap_cls ? 2 * w->cap_cls : 16;
		struct ctfw_class *nc = realloc(w->cls, cap * sizeof *nc);

		if (!nc)
			return shtgen_ctfw_fail(w, SHT_ERR_NOMEM,
					      "out of memory");
		w->cls = nc;
		w->cap_cls = cap;
	}
	err = class_copy(w, &w->cls[w->ncls], name, fields, nfields);
	if (err)
		return err;
	if (id)
		*id = (uint32_t)w->ncls;
	w->ncls++;
	return SHT_OK;
}

/* ---- sections ----------------------------------------------------------- */

static void meta_trace(struct text *t, const struct shtgen_ctfw *w)
{
	static const struct { unsigned bits; const char *name; } aliases[] = {
		{ 8, "uint8_t" }, { 16, "uint16_t" }, { 32, "uint32_t" },
		{ 64, "uint64_t" }, { 64, "unsigned long" },
	};

	text_printf(t, "/* CTF 1.8 */\n\n");
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		text_printf(t, "typealias integer { size = %u; align = 8; "
			    "signed = false; } := %s;\n", aliases[i].bits,
			    aliases[i].name);
	text_printf(t, "\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = ");
	text_uuid(t, w->uuid);
	text_printf(t, ";\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n"
		"\t\tuint32_t magic;\n"
		"\t\tuint8_t  uuid[16];\n"
		"\t\tuint32_t stream_id;\n"
		"\t\tuint64_t stream_instance_id;\n"
		"\t};\n};\n\n");
}

static void meta_env(struct text *t, const struct shtgen_ctfw *w)
{
	if (!w->nenv)
		return;
	text_printf(t, "env {\n");
	for (size_t i = 0; i < w->nenv; i++) {
		const struct ctfw_env *e = &w->env[i];

		text_printf(t, "\t%s = ", e->name);
		if (e->str)
			text_quoted(t, e->str);
		else
			text_printf(t, "%lld", (long long)e->i);
		text_printf(t, ";\n");
	}
	text_printf(t, "};\n\n");
}

static void meta_clock(struct text *t, const struct shtgen_ctfw *w)
{
	text_printf(t, "clock {\n\tname = \"monotonic\";\n\tuuid = ");
	text_uuid(t, w->clock_uuid);
	text_printf(t, ";\n\tdescription = \"Monotonic Clock\";\n"
		"\tfreq = 1000000000; /* Frequency, in Hz */\n"
		"\tprecision = 0;\n"
		"\t/* offset from the origin: offset_s s + offset cycles */\n"
		"\toffset_s = %lld;\n\toffset = %lld;\n};\n\n",
		(long long)(w->clock_offset / 1000000000),
		(long long)(w->clock_offset % 1000000000));
	text_printf(t, "typealias integer {\n"
		"\tsize = 64; align = 8; signed = false;\n"
		"\tmap = clock.monotonic.value;\n"
		"} := uint64_clock_monotonic_t;\n\n");
}

static void meta_stream(struct text *t)
{
	text_printf(t, "struct packet_context {\n"
		"\tuint64_clock_monotonic_t timestamp_begin;\n"
		"\tuint64_clock_monotonic_t timestamp_end;\n"
		"\tuint64_t content_size;\n"
		"\tuint64_t packet_size;\n"
		"\tuint64_t packet_seq_num;\n"
		"\tunsigned long events_discarded;\n"
		"\tuint32_t cpu_id;\n"
		"};\n\n"
		"struct event_header {\n"
		"\tuint32_t id;\n"
		"\tuint64_clock_monotonic_t timestamp;\n"
		"};\n\n"
		"stream {\n"
		"\tid = 0;\n"
		"\tevent.header := struct event_header;\n"
		"\tpacket.context := struct packet_context;\n"
		"};\n\n");
}

static void meta_field(struct text *t, const struct ctfw_cfield *f)
{
	static const char *const ints[] = {
		[SHTGEN_CTFW_S32] = "size = 32; align = 8; signed = 1",
		[SHTGEN_CTFW_S64] = "size = 64; align = 8; signed = 1",
		[SHTGEN_CTFW_U32] = "size = 32; align = 8; signed = 0",
		[SHTGEN_CTFW_U64] = "size = 64; align = 8; signed = 0",
	};

	switch (f->type) {
	case SHTGEN_CTFW_STRING:
		text_printf(t, "\t\tstring _%s;\n", f->name);
		break;
	case SHTGEN_CTFW_TEXT16:
		text_printf(t, "\t\tinteger { size = 8; align = 8; signed = 0; "
			    "encoding = UTF8; base = 10; } _%s[%u];\n",
			    f->name, CTFW_TEXT16);
		break;
	default:
		text_printf(t, "\t\tinteger { %s; encoding = none; base = 10; "
			    "} _%s;\n", ints[f->type], f->name);
		break;
	}
}

static void meta_event(struct text *t, const struct ctfw_class *c, size_t id)
{
	text_printf(t, "event {\n\tname = ");
	text_quoted(t, c->name);
	text_printf(t, ";\n\tid = %zu;\n\tstream_id = 0;\n"
		    "\tfields := struct {\n", id);
	for (size_t i = 0; i < c->nfields; i++)
		meta_field(t, &c->fields[i]);
	text_printf(t, "\t};\n};\n\n");
}

char *shtgen_ctfw_metadata(const struct shtgen_ctfw *w, size_t *len)
{
	struct text t = { 0 };

	meta_trace(&t, w);
	meta_env(&t, w);
	meta_clock(&t, w);
	meta_stream(&t);
	for (size_t i = 0; i < w->ncls; i++)
		meta_event(&t, &w->cls[i], i);
	if (t.oom) {
		free(t.p);
		return NULL;
	}
	*len = t.n;
	return t.p;
}

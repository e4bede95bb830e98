/*
 * rules-xml.c: Trace Compass XML state providers, read with libxml2 and
 * compiled into a rules program (docs/RULES.md): the document, the
 * stateProvider (id, version, head), definedValue, location and
 * eventHandler elements, and the provider's identity.  State changes
 * are compiled in rules-xml-change.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "analysis/rules-xml-int.h"

bool sht_rules_have_xml(void)
{
	return true;
}

/* ---- helpers ---------------------------------------------------------------- */

sht_err sht__xc_error(struct xc *x, xmlNode *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sht__error(SHT_ERR_INVALID, "%s:%ld: <%s>: %s", x->file,
			  xmlGetLineNo(n), (const char *)n->name, msg);
}

const char *sht__xc_prop(xmlNode *n, const char *name)
{
	xmlAttr *a = xmlHasNsProp(n, (const xmlChar *)name, NULL);

	if (!a)
		return NULL;
	if (!a->children)
		return "";
	return (const char *)a->children->content;
}

xmlNode *sht__xc_elem(xmlNode *n)
{
	while (n && n->type != XML_ELEMENT_NODE)
		n = n->next;
	return n;
}

int sht__xc_is(const xmlNode *n, const char *name)
{
	return n && strcmp((const char *)n->name, name) == 0;
}

static int blank(const xmlChar *s)
{
	for (; s && *s; s++) {
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return 0;
	}
	return 1;
}

sht_err sht__xc_check(struct xc *x, xmlNode *n, const char *const *allowed)
{
	for (xmlAttr *a = n->properties; a; a = a->next) {
		size_t i = 0;

		if (a->ns)           /* xsi:..., other namespaces: not ours */
			continue;
		while (allowed[i] && strcmp(allowed[i], (const char *)a->name) != 0)
			i++;
		if (!allowed[i])
			return sht__xc_error(x, n, "unsupported attribute '%s'", (const char *)a->name);
		if (a->children && (a->children->next || a->children->type != XML_TEXT_NODE))
			return sht__xc_error(x, n, "attribute '%s': entity references are not supported", (const char *)a->name);
	}
	for (xmlNode *c = n->children; c; c = c->next) {
		if ((c->type == XML_TEXT_NODE && !blank(c->content)) ||
		    c->type == XML_CDATA_SECTION_NODE || c->type == XML_ENTITY_REF_NODE)
			return sht__xc_error(x, n, "unexpected text");
	}
	return SHT_OK;
}

sht_err sht__xc_value(struct xc *x, xmlNode *n, const char *v, const char **out)
{
	*out = v;
	if (!v || v[0] != '$')
		return SHT_OK;
	for (size_t i = x->ndefs; i-- > 0;) {
		if (strcmp(x->defs[i].name, v + 1) == 0) {
			*out = x->defs[i].value;
			return SHT_OK;
		}
	}
	return sht__xc_error(x, n, "no definedValue named '%s'", v + 1);
}

/* ---- provider elements ------------------------------------------------------------ */

static sht_err defined_value(struct xc *x, xmlNode *n)
{
	static const char *const ok[] = { "name", "value", NULL };
	const char *name = sht__xc_prop(n, "name"), *value = sht__xc_prop(n, "value");
	struct xc_def *d;
	sht_err err = sht__xc_check(x, n, ok);

	if (err != SHT_OK)
		return err;
	if (!name || !*name || !value)
		return sht__xc_error(x, n, "needs the attributes 'name' and 'value'");
	if (sht__xc_elem(n->children))
		return sht__xc_error(x, sht__xc_elem(n->children), "unexpected element");
	d = realloc(x->defs, (x->ndefs + 1) * sizeof *d);
	if (!d)
		return sht__error(SHT_ERR_NOMEM, "Cannot store a definedValue");
	x->defs = d;
	d[x->ndefs].name = name;
	d[x->ndefs++].value = value;
	return SHT_OK;
}

static sht_err location(struct xc *x, xmlNode *n)
{
	static const char *const ok[] = { "id", NULL };
	const char *id = sht__xc_prop(n, "id");
	struct xc_loc *l;
	sht_err err = sht__xc_check(x, n, ok);

	if (err != SHT_OK)
		return err;
	if (!id || !*id)
		return sht__xc_error(x, n, "needs the attribute 'id'");
	for (xmlNode *c = sht__xc_elem(n->children); c; c = sht__xc_elem(c->next)) {
		if (!sht__xc_is(c, "stateAttribute"))
			return sht__xc_error(x, c, "unexpected element in <location>");
	}
	if (!sht__xc_elem(n->children))
		return sht__xc_error(x, n, "needs at least one <stateAttribute>");
	l = realloc(x->locs, (x->nlocs + 1) * sizeof *l);
	if (!l)
		return sht__error(SHT_ERR_NOMEM, "Cannot store a location");
	x->locs = l;
	l[x->nlocs].id = id;
	l[x->nlocs++].node = n;
	return SHT_OK;
}

static sht_err event_handler(struct xc *x, xmlNode *n)
{
	static const char *const ok[] = { "eventName", NULL };
	const char *name = sht__xc_prop(n, "eventName");
	struct rl_handler *h;
	sht_err err = sht__xc_check(x, n, ok);

	if (err != SHT_OK)
		return err;
	if (!name || !*name)
		return sht__xc_error(x, n, "needs the attribute 'eventName'");
	err = sht__rules_add_handler(x->r, name, &h);
	for (xmlNode *c = sht__xc_elem(n->children); err == SHT_OK && c;
	     c = sht__xc_elem(c->next)) {
		struct rl_change *cs;

		if (!sht__xc_is(c, "stateChange"))
			return sht__xc_error(x, c, "unexpected element in <eventHandler>");
		cs = realloc(h->changes, (h->nchanges + 1) * sizeof *cs);
		if (!cs)
			return sht__error(SHT_ERR_NOMEM, "Cannot add a state change");
		h->changes = cs;
		memset(&cs[h->nchanges], 0, sizeof *cs);
		err = sht__xc_change(x, c, &cs[h->nchanges]);
		h->nchanges++;            /* freed with the handler, even half-built */
	}
	if (err == SHT_OK && h->nchanges == 0)
		return sht__xc_error(x, n, "needs at least one <stateChange>");
	return err;
}

/* <head>: traceType and label are metadata, accepted and ignored. */
static sht_err head(struct xc *x, xmlNode *n)
{
	static const char *const none[] = { NULL };
	static const char *const tt[] = { "id", NULL };
	static const char *const label[] = { "value", NULL };
	sht_err err = sht__xc_check(x, n, none);

	for (xmlNode *c = sht__xc_elem(n->children); err == SHT_OK && c;
	     c = sht__xc_elem(c->next)) {
		if (sht__xc_is(c, "traceType"))
			err = sht__xc_check(x, c, tt);
		else if (sht__xc_is(c, "label"))
			err = sht__xc_check(x, c, label);
		else
			err = sht__xc_error(x, c, "unsupported element in <head>");
	}
	return err;
}

static sht_err parse_version(struct xc *x, xmlNode *n, uint32_t *out)
{
	const char *v = sht__xc_prop(n, "version");
	char *end;
	unsigned long long u;

	if (!v || !*v)
		return sht__xc_error(x, n, "needs the attribute 'version'");
	errno = 0;
	u = strtoull(v, &end, 10);
	if (*end || errno || u > 255 || v[0] == '-')
		return sht__xc_error(x, n, "version '%s': expected an integer from 0 to 255", v);
	*out = (uint32_t)u;
	return SHT_OK;
}

static sht_err provider(struct xc *x, xmlNode *n)
{
	static const char *const ok[] = { "id", "version", NULL };
	const char *id = sht__xc_prop(n, "id");
	sht_err err = sht__xc_check(x, n, ok);

	if (err == SHT_OK && (!id || !*id))
		err = sht__xc_error(x, n, "needs the attribute 'id'");
	if (err == SHT_OK)
		err = parse_version(x, n, &x->r->declared_version);
	if (err == SHT_OK && !(x->r->id = strdup(id)))
		err = sht__error(SHT_ERR_NOMEM, "Cannot copy the provider id");
	for (xmlNode *c = sht__xc_elem(n->children); err == SHT_OK && c;
	     c = sht__xc_elem(c->next)) {
		if (sht__xc_is(c, "head"))
			err = head(x, c);
		else if (sht__xc_is(c, "definedValue"))
			err = defined_value(x, c);
		else if (sht__xc_is(c, "location"))
			err = location(x, c);
		else if (sht__xc_is(c, "eventHandler"))
			err = event_handler(x, c);
		else
			err = sht__xc_error(x, c, "unsupported element in <stateProvider>");
	}
	if (err == SHT_OK && x->r->nhandlers == 0)
		err = sht__xc_error(x, n, "needs at least one <eventHandler>");
	return err;
}

/* ---- document ------------------------------------------------------------------ */

/* Views and patterns do not change the state: skipped. */
static int skipped_top(const xmlNode *n)
{
	return sht__xc_is(n, "timeGraphView") || sht__xc_is(n, "xyView") ||
	       sht__xc_is(n, "pattern");
}

static sht_err document(struct xc *x, xmlNode *root, const char *want)
{
	xmlNode *found = NULL;

	if (!sht__xc_is(root, "tmfxml"))
		return sht__xc_error(x, root, "the root element must be <tmfxml>");
	for (xmlNode *c = sht__xc_elem(root->children); c; c = sht__xc_elem(c->next)) {
		const char *id;

		if (skipped_top(c))
			continue;
		if (!sht__xc_is(c, "stateProvider"))
			return sht__xc_error(x, c, "unsupported element in <tmfxml>");
		id = sht__xc_prop(c, "id");
		if (!found && (!want || (id && strcmp(id, want) == 0)))
			found = c;
	}
	if (!found && want)
		return sht__xc_error(x, root, "no <stateProvider> with id '%s'", want);
	if (!found)
		return sht__xc_error(x, root, "no <stateProvider>");
	return provider(x, found);
}

/* libxml2's own message of a document that is not well-formed. */
static sht_err parse_error(xmlParserCtxt *ctx, const char *file)
{
	const xmlError *e = xmlCtxtGetLastError(ctx);
	char msg[256] = "not well-formed XML";

	if (e && e->message) {
		size_t n;

		snprintf(msg, sizeof msg, "%s", e->message);
		n = strlen(msg);
		while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			msg[--n] = '\0';
	}
	return sht__error(SHT_ERR_INVALID, "%s:%d: %s", file, e ? e->line : 0, msg);
}

sht_err sht_rules_parse_xml(const char *buf, size_t len, const char *name,
			    const char *provider_id, sht_rules **out)
{
	struct xc x;
	xmlParserCtxt *ctx;
	xmlDoc *doc;
	sht_err err;

	memset(&x, 0, sizeof x);
	x.file = name ? name : "(memory)";
	if (len > INT32_MAX)
		return sht__error(SHT_ERR_TOOBIG, "%s: rules file of %zu bytes is too big", x.file, len);
	ctx = xmlNewParserCtxt();
	if (!ctx)
		return sht__error(SHT_ERR_NOMEM, "Cannot create an XML parser");
	doc = xmlCtxtReadMemory(ctx, buf, (int)len, x.file, NULL,
				XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		err = parse_error(ctx, x.file);
		xmlFreeParserCtxt(ctx);
		return err;
	}
	err = sht__rules_new(&x.r);
	if (err == SHT_OK)
		err = document(&x, xmlDocGetRootElement(doc), provider_id);
	if (err == SHT_OK) {
		/* Identity: the declared version in the top byte, a hash of
		 * the file's bytes below (docs/RULES.md). */
		sht__rules_identity(x.r, buf, len);
		err = sht__rules_model(x.r);
	}
	if (err == SHT_OK) {
		*out = x.r;
	} else {
		sht_rules_destroy(x.r);
	}
	free(x.defs);
	free(x.locs);
	xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctx);
	return err;
}

xmlNode *sht__xc_location(struct xc *x, const char *id)
{
	for (size_t i = 0; i < x->nlocs; i++) {
		if (strcmp(x->locs[i].id, id) == 0)
			return x->locs[i].node;
	}
	return NULL;
}

sht_err sht_rules_load_xml(const char *path, const char *provider_id,
			   sht_rules **out)
{
	char *buf;
	size_t len;
	sht_err err = sht__rules_read_file(path, &buf, &len);

	if (err == SHT_OK)
		err = sht_rules_parse_xml(buf, len, path, provider_id, out);
	free(buf);
	return err;
}

/*
 * test-rules.c: every supported construct of Trace Compass XML state
 * providers (docs/RULES.md), compiled with sht_rules_parse_xml and run
 * over synthetic events into an in-memory history: paths (constant,
 * eventField, eventName, query, location, concat), values (int, long,
 * string, null, eventField, eventName and strip, query, forcedType),
 * operations (modify, delete, push, pop, popAll, peek, increment,
 * update), conditions (field, attribute, two values, every operator,
 * not, and, or, else, nesting), definedValue, wildcards, the provider's
 * identity, and the extensions (concat, strip, mask).
 */
#include <stdlib.h>

#include "rules-test.h"
#include "util/util.h"

#define PROV(body) "<?xml version=\"1.0\"?>\n<tmfxml xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"" \
	" xsi:noNamespaceSchemaLocation=\"xmlDefinition.xsd\">\n" \
	"<stateProvider id=\"t\" version=\"3\">\n" body "</stateProvider>\n</tmfxml>\n"
#define SET(path, value) "<stateChange>" path value "</stateChange>\n"
#define C(v) "<stateAttribute type=\"constant\" value=\"" v "\"/>"
#define F(v) "<stateAttribute type=\"eventField\" value=\"" v "\"/>"

static const char XML_PATHS[] = PROV(
	"<definedValue name=\"RUN\" value=\"2\"/>\n"
	"<definedValue name=\"NODE\" value=\"Threads\"/>\n"
	"<location id=\"T\"><stateAttribute type=\"constant\" value=\"$NODE\"/>" F("tid") "</location>\n"
	"<location id=\"TS\"><stateAttribute type=\"location\" value=\"T\"/>" C("Status") "</location>\n"
	"<eventHandler eventName=\"run\">\n"
	SET("<stateAttribute type=\"location\" value=\"TS\"/>", "<stateValue type=\"int\" value=\"$RUN\"/>")
	SET(C("CPUs") F("cpu") C("Current"), "<stateValue type=\"eventField\" value=\"tid\" forcedType=\"int\"/>")
	SET(C("Names") "<stateAttribute type=\"eventName\"/>", "<stateValue type=\"eventName\"/>")
	SET(C("Long") C("x"), "<stateValue type=\"long\" value=\"-5000000000\"/>")
	SET(C("Str") C("x"), "<stateValue type=\"string\" value=\"a b\"/>")
	SET(C("Field") C("x"), "<stateValue type=\"eventField\" value=\"tid\"/>")
	SET(C("Field") C("s"), "<stateValue type=\"eventField\" value=\"tid\" forcedType=\"string\"/>")
	SET(C("Byquery") "<stateAttribute type=\"query\">" C("CPUs") F("cpu") C("Current") "</stateAttribute>",
	    "<stateValue type=\"query\"><stateAttribute type=\"location\" value=\"TS\"/></stateValue>")
	SET(C("Idle") "<stateAttribute type=\"concat\">" C("0_") F("cpu") "</stateAttribute>", "<stateValue type=\"int\" value=\"1\"/>")
	SET(C("Missing") F("nosuch"), "<stateValue type=\"int\" value=\"1\"/>")
	SET("<stateAttribute type=\"null\"/>" C("Forced") C("l"), "<stateValue type=\"eventField\" value=\"tid\" forcedType=\"long\"/>")
	SET(C("Forced") C("d"), "<stateValue type=\"eventField\" value=\"tid\" forcedType=\"double\"/>")
	SET(C("Forced") C("fromstr"), "<stateValue type=\"string\" value=\"17\" forcedType=\"int\"/>")
	SET(C("Forced") C("bad"), "<stateValue type=\"string\" value=\"x7\" forcedType=\"int\"/>")
	SET(C("Defstr"), "<stateValue type=\"string\" value=\"$NODE\"/>")
	"</eventHandler>\n"
	"<eventHandler eventName=\"sys_*\">\n"
	SET(C("Sys"), "<stateValue type=\"eventName\" strip=\"sys_\"/>")
	"</eventHandler>\n"
	"<eventHandler eventName=\"*_exit\">\n"
	SET(C("Sys"), "<stateValue type=\"null\"/>")
	"</eventHandler>\n"
	"<eventHandler eventName=\"sys_exit\">\n"
	SET(C("Both"), "<stateValue type=\"eventName\"/>")
	"</eventHandler>\n");

static void test_paths_values(void)
{
	struct run r;
	sht_rules_stats st;

	RUN(&r, XML_PATHS, EV_PATHS);
	is_int(r.err, SHT_OK, "paths: run");
	VAL(&r, "Threads/42/Status", 10, "i:2", "location of a location, definedValue in path and value");
	VAL(&r, "CPUs/3/Current", 10, "i:42", "field \"cpu\" is the event's CPU; forcedType int");
	VAL(&r, "Names/run", 10, "s:run", "eventName as path element and as value");
	VAL(&r, "Long/x", 10, "l:-5000000000", "long constant");
	VAL(&r, "Str/x", 10, "s:a b", "string constant");
	VAL(&r, "Field/x", 10, "l:42", "integer field reads as long");
	VAL(&r, "Field/s", 10, "s:42", "forcedType string");
	VAL(&r, "Byquery/42", 10, "i:2", "query element names by a value; query value");
	VAL(&r, "Idle/0_3", 10, "i:1", "concat extension");
	VAL(&r, "Forced/l", 10, "l:42", "a null stateAttribute adds nothing; forcedType long");
	VAL(&r, "Forced/d", 10, "d:42", "forcedType double");
	VAL(&r, "Forced/fromstr", 10, "i:17", "forcedType int of a numeric string");
	VAL(&r, "Forced/bad", 10, "null", "forcedType int of other text: null");
	VAL(&r, "Defstr", 10, "s:Threads", "definedValue in a string value");
	VAL(&r, "Missing", 10, "null", "missing field: nothing set (the elements before it exist)");
	sht_rules_stats_get(r.r, &st);
	is_int(st.skipped, 1, "missing field: the change is skipped and counted");
	is_int(st.events, 3, "three events seen");
	VAL(&r, "Sys", 20, "s:open", "wildcard handler, strip extension");
	VAL(&r, "Sys", 30, "null", "leading wildcard");
	VAL(&r, "Both", 30, "s:sys_exit", "exact and wildcard handlers both run");
	VAL(&r, "Sys", 10, "null", "null before");
	done(&r);
}

static const char XML_OPS[] = PROV(
	"<eventHandler eventName=\"in\">\n"
	SET(C("Stack"), "<stateValue type=\"eventField\" value=\"f\" stack=\"push\"/>")
	SET(C("Count"), "<stateValue type=\"int\" value=\"1\" increment=\"true\"/>")
	SET(C("LCount"), "<stateValue type=\"long\" value=\"10\" increment=\"true\"/>")
	SET(C("Top"), "<stateValue type=\"query\" stack=\"peek\">" C("Stack") "</stateValue>")
	SET(C("Upd"), "<stateValue type=\"eventField\" value=\"f\" update=\"true\"/>")
	SET(C("Node") C("child"), "<stateValue type=\"int\" value=\"7\"/>")
	SET(C("Node"), "<stateValue type=\"int\" value=\"8\"/>")
	"</eventHandler>\n"
	"<eventHandler eventName=\"out\">\n"
	SET(C("Stack"), "<stateValue type=\"null\" stack=\"pop\"/>")
	"</eventHandler>\n"
	"<eventHandler eventName=\"all\">\n"
	SET(C("Stack"), "<stateValue type=\"null\" stack=\"popAll\"/>")
	SET(C("Node"), "<stateValue type=\"delete\"/>")
	"</eventHandler>\n");

static void test_operations(void)
{
	struct run r;

	RUN(&r, XML_OPS, EV_OPS);
	is_int(r.err, SHT_OK, "ops: run (a pop from an empty stack is no error)");
	check_ops(&r);
	done(&r);
}

#define IFF(cond, then, els) "<stateChange><if>" cond "</if><then>" then "</then>" els "</stateChange>\n"
#define CMP(op, left, right) "<condition operator=\"" op "\">" left right "</condition>"
#define FLD(n) "<field name=\"" n "\"/>"
#define V(t, v) "<stateValue type=\"" t "\" value=\"" v "\"/>"
#define YES(name) C(name) V("int", "1")
#define NO(name) C(name) V("int", "0")

static const char XML_COND[] = PROV(
	"<eventHandler eventName=\"e\">\n"
	SET(C("A"), V("long", "5"))
	IFF(CMP("eq", FLD("x"), V("long", "5")), YES("eq"), "<else>" NO("eq") "</else>")
	IFF(CMP("ne", FLD("x"), V("long", "5")), YES("ne"), "<else>" NO("ne") "</else>")
	IFF(CMP("gt", FLD("x"), V("int", "4")), YES("gt"), "<else>" NO("gt") "</else>")
	IFF(CMP("ge", FLD("x"), V("int", "6")), YES("ge"), "<else>" NO("ge") "</else>")
	IFF(CMP("lt", FLD("x"), V("long", "6")), YES("lt"), "<else>" NO("lt") "</else>")
	IFF(CMP("le", FLD("x"), V("long", "4")), YES("le"), "<else>" NO("le") "</else>")
	IFF(CMP("eq", C("A"), V("int", "5")), YES("attr"), "<else>" NO("attr") "</else>")
	IFF(CMP("eq", C("Nosuch"), V("null", "")), YES("absentnull"), "")
	IFF(CMP("eq", "<stateValue type=\"eventField\" value=\"x\" mask=\"6\"/>", V("long", "4")), YES("mask"), "")
	IFF(CMP("eq", V("eventField", "s"), V("string", "abc")), YES("twovalues"), "")
	IFF(CMP("lt", FLD("s"), V("string", "abd")), YES("strlt"), "<else>" NO("strlt") "</else>")
	IFF(CMP("eq", FLD("s"), V("long", "5")), YES("mixed"), "<else>" NO("mixed") "</else>")
	IFF(CMP("ne", FLD("s"), V("long", "5")), YES("mixedne"), "<else>" NO("mixedne") "</else>")
	IFF(CMP("gt", FLD("x"), V("null", "")), YES("nullgt"), "<else>" NO("nullgt") "</else>")
	IFF("<not>" CMP("eq", FLD("s"), V("string", "abc")) "</not>", YES("not"), "<else>" NO("not") "</else>")
	IFF("<and>" CMP("eq", FLD("x"), V("long", "5")) CMP("eq", FLD("s"), V("string", "x")) "</and>",
	    YES("and"), "<else>" NO("and") "</else>")
	IFF("<or>" CMP("eq", FLD("x"), V("long", "4")) "<and>" CMP("eq", FLD("s"), V("string", "abc")) "</and></or>",
	    YES("or"), "<else>" NO("or") "</else>")
	IFF(CMP("eq", FLD("x"), V("long", "5")),
	    "<if>" CMP("eq", FLD("nosuch"), V("null", "")) "</if><then>" YES("nested") "</then>", "")
	"</eventHandler>\n");

static void test_conditions(void)
{
	struct run r;

	RUN(&r, XML_COND, EV_COND);
	is_int(r.err, SHT_OK, "conditions: run");
	VAL(&r, "eq", 10, "i:1", "eq (long field, long)");
	VAL(&r, "ne", 10, "i:0", "ne, else");
	VAL(&r, "gt", 10, "i:1", "gt (long field, int constant)");
	VAL(&r, "ge", 10, "i:0", "ge");
	VAL(&r, "lt", 10, "i:1", "lt");
	VAL(&r, "le", 10, "i:0", "le");
	VAL(&r, "attr", 10, "i:1", "attribute value (long 5 = int 5)");
	VAL(&r, "absentnull", 10, "i:1", "an absent attribute is null");
	VAL(&r, "twovalues", 10, "i:1", "two stateValues");
	VAL(&r, "mask", 10, "i:1", "mask extension: 5 AND 6 = 4");
	VAL(&r, "not", 10, "i:0", "not");
	VAL(&r, "strlt", 10, "i:1", "strings order by bytes");
	VAL(&r, "mixed", 10, "i:0", "a string is not equal to a number");
	VAL(&r, "mixedne", 10, "i:1", "... so ne holds");
	VAL(&r, "nullgt", 10, "i:0", "null is not ordered");
	VAL(&r, "and", 10, "i:0", "and");
	VAL(&r, "or", 10, "i:1", "or with a nested and");
	VAL(&r, "nested", 10, "i:1", "if inside then; a missing field is null");
	done(&r);
}

static const struct tev EV_TYPE[] = {
	{ "e", 10, 0, { I("x", 5) } },
	{ "f", 20, 0, { I("x", 6) } },
};

static void test_type_error(void)
{
	static const char xml[] = PROV(
		"<eventHandler eventName=\"e\">" SET(C("A"), V("int", "1")) "</eventHandler>\n"
		"<eventHandler eventName=\"f\">" SET(C("A"), V("string", "x")) SET(C("B"), V("int", "2")) "</eventHandler>\n");
	struct run r;

	RUN(&r, xml, EV_TYPE);
	is_int(r.err, SHT_OK, "a type error does not stop the run");
	is_int(r.skipped, 1, "it skips the rest of its event");
	VAL(&r, "A", 20, "i:1", "the value stays");
	is_str(val(&r, "B", 20), "absent", "the later change of the event is skipped");
	done(&r);
}

static void test_identity(void)
{
	static const char a[] = PROV("<eventHandler eventName=\"e\">" SET(C("A"), V("int", "1")) "</eventHandler>\n");
	static const char b[] = PROV("<eventHandler eventName=\"e\">" SET(C("A"), V("int", "2")) "</eventHandler>\n");
	static const char two[] = "<tmfxml><stateProvider id=\"one\" version=\"1\"><eventHandler eventName=\"e\">"
		SET(C("A"), V("int", "1")) "</eventHandler></stateProvider>"
		"<stateProvider id=\"two\" version=\"2\"><eventHandler eventName=\"e\">"
		SET(C("A"), V("int", "1")) "</eventHandler></stateProvider>"
		"<timeGraphView id=\"v\"><anything/></timeGraphView></tmfxml>";
	sht_rules *ra, *rb, *r1, *r2;
	sht_provider pa, pb, p2;

	if (sht_rules_parse_xml(a, strlen(a), "a.xml", NULL, &ra) != SHT_OK ||
	    sht_rules_parse_xml(b, strlen(b), "b.xml", NULL, &rb) != SHT_OK ||
	    sht_rules_parse_xml(two, strlen(two), "two.xml", NULL, &r1) != SHT_OK ||
	    sht_rules_parse_xml(two, strlen(two), "two.xml", "two", &r2) != SHT_OK)
		bail_out("identity: %s", sht_errmsg());
	sht_rules_provider(ra, &pa);
	sht_rules_provider(rb, &pb);
	sht_rules_provider(r2, &p2);
	is_str(pa.id, "t", "id: the stateProvider's id");
	is_int(sht_rules_declared_version(ra), 3, "declared version");
	is_int(pa.version >> 24, 3, "version: declared version in the top byte");
	ok(pa.version != pb.version, "a changed file changes the version");
	is_int(pa.version & 0xFFFFFF, sht__crc32c(0, a, strlen(a)) & 0xFFFFFF, "low 24 bits: CRC-32C of the file");
	is_str(p2.id, "two", "a provider chosen by id");
	is_int(sht_rules_declared_version(r1), 1, "the first provider by default; views skipped");
	ok(sht_rules_have_xml(), "XML support built in");
	sht_rules_destroy(ra);
	sht_rules_destroy(rb);
	sht_rules_destroy(r1);
	sht_rules_destroy(r2);
}

/* One program over two histories in turn: the quark memos follow. */
static void test_two_histories(void)
{
	sht_rules *rules;
	sht_provider p;
	struct run r[2];

	if (sht_rules_parse_xml(XML_OPS, strlen(XML_OPS), "t.xml", NULL, &rules) != SHT_OK)
		bail_out("compile: %s", sht_errmsg());
	sht_rules_provider(rules, &p);
	for (int k = 0; k < 2; k++) {
		struct tsrc s = { EV_OPS, sizeof EV_OPS / sizeof *EV_OPS, 0 };
		sht_source src = { &TOPS, &s };
		sht_state_opts opts;
		const char *el = "pad";
		sht_quark q;

		memset(&r[k], 0, sizeof r[k]);
		sht_state_opts_init(&opts);
		opts.backend = SHT_BACKEND_MEMORY;
		if (sht_state_create(NULL, 0, &opts, &r[k].ss) != SHT_OK)
			bail_out("create: %s", sht_errmsg());
		if (k == 1)   /* other quarks in the second history */
			sht_state_quark(r[k].ss, SHT_QUARK_ROOT, &el, 1, &q);
		is_int(sht_state_run(r[k].ss, &src, &p, NULL, NULL), SHT_OK, "history %d: run", k);
		sht_state_finish(r[k].ss, 60);
	}
	is_str(val(&r[1], "Stack/2", 20), "l:200", "second history: same answers");
	is_str(val(&r[1], "Count", 40), "i:3", "second history: counters from zero");
	for (int k = 0; k < 2; k++)
		sht_state_close(r[k].ss);
	sht_rules_destroy(rules);
}

int main(void)
{
	if (!sht_rules_have_xml())
		skip_all("libsht built without XML support");
	test_paths_values();
	test_operations();
	test_conditions();
	test_type_error();
	test_identity();
	test_two_histories();
	return done_testing();
}

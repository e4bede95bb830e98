/*
 * test-rules-errors.c: every error of the XML front end names the file,
 * the line and the element ("t.xml:LINE: <element>: what"), and leaves
 * nothing behind (the sanitizers check the frees); files that are not
 * well-formed give libxml2's message with its line.
 */
#include <stdlib.h>

#include "sht/sht.h"
#include "tap.h"

#define HEAD "<tmfxml>\n<stateProvider id=\"p\" version=\"1\">\n"   /* lines 1-2 */
#define TAIL "</stateProvider>\n</tmfxml>\n"
#define H(body) HEAD "<eventHandler eventName=\"e\">\n" body "</eventHandler>\n" TAIL  /* body at line 4 */
#define SC(body) H("<stateChange>" body "</stateChange>\n")
#define A "<stateAttribute type=\"constant\" value=\"A\"/>"
#define VI "<stateValue type=\"int\" value=\"1\"/>"

struct bad {
	const char *xml;
	const char *want;     /* the message must contain this */
};

static const struct bad BAD[] = {
	{ "<tmfxml><stateProvider", "t.xml:1: " },
	{ "<other/>", "t.xml:1: <other>: the root element must be <tmfxml>" },
	{ "<tmfxml>\n<foo/></tmfxml>", "t.xml:2: <foo>: unsupported element in <tmfxml>" },
	{ "<tmfxml>\n</tmfxml>", "t.xml:1: <tmfxml>: no <stateProvider>" },
	{ "<tmfxml>\n<stateProvider version=\"1\"/></tmfxml>", "t.xml:2: <stateProvider>: needs the attribute 'id'" },
	{ "<tmfxml>\n<stateProvider id=\"p\"/></tmfxml>", "t.xml:2: <stateProvider>: needs the attribute 'version'" },
	{ "<tmfxml>\n<stateProvider id=\"p\" version=\"x\"/></tmfxml>", "version 'x': expected an integer" },
	{ "<tmfxml>\n<stateProvider id=\"p\" version=\"256\"/></tmfxml>", "version '256'" },
	{ "<tmfxml>\n<stateProvider id=\"p\" version=\"1\" x=\"1\"/></tmfxml>", "<stateProvider>: unsupported attribute 'x'" },
	{ HEAD TAIL, "t.xml:2: <stateProvider>: needs at least one <eventHandler>" },
	{ HEAD "<mappingGroup id=\"m\"/>\n" TAIL, "t.xml:3: <mappingGroup>: unsupported element in <stateProvider>" },
	{ HEAD "<head><foo/></head>\n" TAIL, "t.xml:3: <foo>: unsupported element in <head>" },
	{ HEAD "<definedValue name=\"a\"/>\n" TAIL, "t.xml:3: <definedValue>: needs the attributes 'name' and 'value'" },
	{ HEAD "<location id=\"l\"/>\n" TAIL, "t.xml:3: <location>: needs at least one <stateAttribute>" },
	{ HEAD "<location><stateAttribute type=\"constant\" value=\"A\"/></location>\n" TAIL, "<location>: needs the attribute 'id'" },
	{ HEAD "<location id=\"l\"><foo/></location>\n" TAIL, "t.xml:3: <foo>: unexpected element in <location>" },
	{ HEAD "<eventHandler/>\n" TAIL, "t.xml:3: <eventHandler>: needs the attribute 'eventName'" },
	{ H(""), "t.xml:3: <eventHandler>: needs at least one <stateChange>" },
	{ H("<foo/>\n"), "t.xml:4: <foo>: unexpected element in <eventHandler>" },
	{ SC(""), "t.xml:4: <stateChange>: needs <stateAttribute> elements and a <stateValue>, or <if>" },
	{ SC(A), "t.xml:4: <stateChange>: needs a <stateValue>" },
	{ SC(VI), "t.xml:4: <stateValue>: unsupported element in a state change" },
	{ SC(A VI "<futureTime type=\"long\" value=\"1\"/>"), "<futureTime>: unsupported element in a state change" },
	{ SC("<stateAttribute type=\"null\"/>" VI), "<stateChange>: the attribute path must have 1 to 64 elements" },
	{ SC("<stateAttribute value=\"A\"/>" VI), "<stateAttribute>: needs the attribute 'type'" },
	{ SC("<stateAttribute type=\"self\"/>" VI), "<stateAttribute>: unsupported type 'self'" },
	{ SC("<stateAttribute type=\"pool\"/>" VI), "<stateAttribute>: unsupported type 'pool'" },
	{ SC("<stateAttribute type=\"constant\"/>" VI), "<stateAttribute>: type 'constant' needs the attribute 'value'" },
	{ SC("<stateAttribute type=\"constant\" value=\"$nope\"/>" VI), "<stateAttribute>: no definedValue named 'nope'" },
	{ SC("<stateAttribute type=\"location\" value=\"nope\"/>" VI), "no <location> with id 'nope'" },
	{ SC("<stateAttribute type=\"query\"/>" VI), "<stateAttribute>: needs <stateAttribute> children" },
	{ SC("<stateAttribute type=\"query\"><foo/></stateAttribute>" VI), "<foo>: unexpected element in <stateAttribute>" },
	{ SC("<stateAttribute type=\"constant\" value=\"A\"><foo/></stateAttribute>" VI), "<foo>: unexpected element in a stateAttribute of type 'constant'" },
	{ SC("<stateAttribute type=\"constant\" value=\"A\" x=\"1\"/>" VI), "<stateAttribute>: unsupported attribute 'x'" },
	{ SC(A "<stateValue value=\"1\"/>"), "<stateValue>: needs the attribute 'type'" },
	{ SC(A "<stateValue type=\"script\" value=\"1\"/>"), "<stateValue>: unsupported type 'script'" },
	{ SC(A "<stateValue type=\"int\" value=\"1\" mappingGroup=\"m\"/>"), "<stateValue>: unsupported attribute 'mappingGroup'" },
	{ SC(A "<stateValue type=\"int\" value=\"x\"/>"), "<stateValue>: value 'x' is not an integer of this type" },
	{ SC(A "<stateValue type=\"int\" value=\"3000000000\"/>"), "value '3000000000' is not an integer" },
	{ SC(A "<stateValue type=\"long\"/>"), "value '' is not an integer" },
	{ SC(A "<stateValue type=\"string\"/>"), "type 'string' needs the attribute 'value'" },
	{ SC(A "<stateValue type=\"eventField\"/>"), "type 'eventField' needs the attribute 'value'" },
	{ SC(A "<stateValue type=\"int\" value=\"1\" stack=\"x\"/>"), "<stateValue>: unsupported stack 'x'" },
	{ SC(A "<stateValue type=\"int\" value=\"1\" stack=\"peek\"/>"), "stack 'peek' needs type 'query'" },
	{ SC(A "<stateValue type=\"int\" value=\"1\" forcedType=\"x\"/>"), "unsupported forcedType 'x'" },
	{ SC(A "<stateValue type=\"int\" value=\"1\" increment=\"yes\"/>"), "'increment' and 'update' take 'true' or 'false'" },
	{ SC(A "<stateValue type=\"int\" value=\"1\" strip=\"x\"/>"), "'strip' needs type 'eventName'" },
	{ SC(A "<stateValue type=\"int\" value=\"1\" mask=\"3\"/>"), "'mask' needs type 'eventField' or 'query'" },
	{ SC(A "<stateValue type=\"eventField\" value=\"f\" mask=\"0\"/>"), "value '0' is not an integer" },
	{ SC(A "<stateValue type=\"int\" value=\"1\"><foo/></stateValue>"), "<foo>: unexpected element in a stateValue of type 'int'" },
	{ SC(A VI VI), "t.xml:4: <stateValue>: unsupported element in a state change" },
	{ SC(A "<stateValue type=\"int\" value=\"1\">text</stateValue>"), "<stateValue>: unexpected text" },
	{ SC("<if/>"), "<if>: needs exactly one <condition>, <not>, <and> or <or>" },
	{ SC("<if><condition><field name=\"x\"/>" VI "</condition></if>"), "<if>: expected <then> after <if>" },
	{ SC("<if><condition><field name=\"x\"/>" VI "</condition></if><then>" A VI "</then><foo/>"), "<foo>: unexpected element after <then>/<else>" },
	{ SC("<if><foo/></if><then>" A VI "</then>"), "<foo>: unsupported element in a condition" },
	{ SC("<if><not/></if><then>" A VI "</then>"), "<not>: needs exactly one condition" },
	{ SC("<if><and/></if><then>" A VI "</then>"), "<and>: needs at least one condition" },
	{ SC("<if><condition operator=\"xx\"><field name=\"x\"/>" VI "</condition></if><then>" A VI "</then>"), "<condition>: unsupported operator 'xx'" },
	{ SC("<if><condition/></if><then>" A VI "</then>"), "<condition>: needs a <stateAttribute>, <field> or <stateValue>" },
	{ SC("<if><condition><field name=\"x\"/></condition></if><then>" A VI "</then>"), "<condition>: expected a <stateValue> to compare with" },
	{ SC("<if><condition><field/>" VI "</condition></if><then>" A VI "</then>"), "<field>: needs the attribute 'name'" },
	{ SC("<if><condition><field name=\"x\"/><stateValue type=\"int\" value=\"1\" increment=\"true\"/></condition></if><then>" A VI "</then>"),
	  "delete, increment, update, push and pop are for state changes, not conditions" },
	{ SC("<if><condition><field name=\"x\"/>" VI VI "</condition></if><then>" A VI "</then>"), "<stateValue>: unexpected element in <condition>" },
	{ "<tmfxml><stateProvider id=\"a\" version=\"1\"/></tmfxml>", "NOPROVIDER" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
		const char *want = BAD[i].want;
		const char *id = NULL;
		sht_rules *r = NULL;
		sht_err err;

		if (strcmp(want, "NOPROVIDER") == 0) {
			id = "b";
			want = "t.xml:1: <tmfxml>: no <stateProvider> with id 'b'";
		}
		err = sht_rules_parse_xml(BAD[i].xml, strlen(BAD[i].xml), "t.xml", id, &r);
		if (!ok(err == SHT_ERR_INVALID && strstr(sht_errmsg(), want), "bad %zu: %s", i, want))
			diag("got %d: %s", (int)err, sht_errmsg());
		sht_rules_destroy(err == SHT_OK ? r : NULL);
	}
}

static void test_location_cycle(void)
{
	static const char xml[] = HEAD
		"<location id=\"a\"><stateAttribute type=\"location\" value=\"a\"/></location>\n"
		"<eventHandler eventName=\"e\"><stateChange><stateAttribute type=\"location\" value=\"a\"/>" VI
		"</stateChange></eventHandler>\n" TAIL;
	sht_rules *r = NULL;

	is_int(sht_rules_parse_xml(xml, strlen(xml), "t.xml", NULL, &r), SHT_ERR_INVALID, "a location naming itself");
	ok(strstr(sht_errmsg(), "locations nested deeper than 16"), "says so: %s", sht_errmsg());
}

static void test_io(void)
{
	sht_rules *r = NULL;

	is_int(sht_rules_load_xml("/nonexistent/x.xml", NULL, &r), SHT_ERR_IO, "missing file: SHT_ERR_IO");
	ok(strstr(sht_errmsg(), "/nonexistent/x.xml"), "names the file: %s", sht_errmsg());
}

int main(void)
{
	if (!sht_rules_have_xml()) {
		sht_rules *r = NULL;

		plan(2);
		is_int(sht_rules_load_xml("x.xml", NULL, &r), SHT_ERR_INVALID, "no XML: refused");
		ok(strstr(sht_errmsg(), "XML support is not built in"), "says so: %s", sht_errmsg());
		return done_testing();
	}
	test_bad();
	test_location_cycle();
	test_io();
	return done_testing();
}

/*
 * test-rules-native.c: the native rules syntax (docs/RULES.md, "Native
 * syntax"): every construct, run over synthetic events into an
 * in-memory history, and every error with its file and line.
 */
#include <stdlib.h>

#include "rules-test.h"

static const char PATHS[] =
	"# paths and values\n"
	"provider t 2\n"
	"define RUN 2\n"
	"define NODE \"Threads\"\n"
	"define BIG 5000000000L\n"
	"location t = Threads/$tid\n"
	"location ts = @t/Status   # a location in a location\n"
	"\n"
	"on run\n"
	"  @ts = RUN\n"
	"  CPUs/$cpu/Current = $tid as int\n"
	"  Names/%event = event\n"
	"  Long/x = BIG\n"
	"  Long/y = -7L\n"
	"  Str/x = \"a \\\"b\\\"\"\n"
	"  Str/def = NODE\n"
	"  Field/x = $tid\n"
	"  Field/s = $tid as string\n"
	"  Byquery/[CPUs/$cpu/Current] = [@ts]\n"
	"  Idle/0_$cpu = 1\n"
	"  \"with space\"/x = null\n"
	"  Missing/$nosuch = 1\n"
	"  Masked = $tid & 10\n"
	"end\n"
	"on sys_*\n"
	"  Sys = event without \"sys_\"\n"
	"end\n"
	"on *_exit\n"
	"  Sys = null\n"
	"end\n";

static void test_paths(void)
{
	struct run r;
	sht_rules_stats st;
	sht_provider p;

	RUN_NATIVE(&r, PATHS, EV_PATHS);
	is_int(r.err, SHT_OK, "run");
	sht_rules_provider(r.r, &p);
	is_str(p.id, "t", "provider id");
	is_int(p.version >> 24, 2, "declared version in the top byte");
	VAL(&r, "Threads/42/Status", 10, "i:2", "location in a location, a define");
	VAL(&r, "CPUs/3/Current", 10, "i:42", "$cpu; as int");
	VAL(&r, "Names/run", 10, "s:run", "%%event element, event value");
	VAL(&r, "Long/x", 10, "l:5000000000", "a long define");
	VAL(&r, "Long/y", 10, "l:-7", "a negative long");
	VAL(&r, "Str/x", 10, "s:a \"b\"", "a string with escaped quotes");
	VAL(&r, "Str/def", 10, "s:Threads", "a string define");
	VAL(&r, "Field/x", 10, "l:42", "a field is a long");
	VAL(&r, "Field/s", 10, "s:42", "as string");
	VAL(&r, "Byquery/42", 10, "i:2", "[path] as element and as value");
	VAL(&r, "Idle/0_3", 10, "i:1", "pieces joined into one element");
	VAL(&r, "with space/x", 10, "null", "a quoted element");
	VAL(&r, "Masked", 10, "l:10", "& mask (42 & 10)");
	sht_rules_stats_get(r.r, &st);
	is_int(st.skipped, 1, "a missing field skips its change");
	VAL(&r, "Sys", 20, "s:open", "pattern, without");
	VAL(&r, "Sys", 30, "null", "leading *");
	done(&r);
}

static const char OPS[] =
	"provider ops 1\n"
	"on in\n"
	"  Stack push $f\n"
	"  Count += 1\n"
	"  LCount += 10L\n"
	"  Top = [Stack].top\n"
	"  Upd update $f\n"
	"  Node/child = 7\n"
	"end\n"
	"on out\n"
	"  Stack pop\n"
	"end\n"
	"on all\n"
	"  Stack popall\n"
	"  Node delete\n"
	"end\n";

static void test_ops(void)
{
	struct run r;

	RUN_NATIVE(&r, OPS, EV_OPS);
	is_int(r.err, SHT_OK, "ops: run");
	check_ops(&r);
	done(&r);
}

/* Paths whose names come from attributes the program writes: the quark
 * memos must follow each write, within an event and between events, and
 * pushes and pops, which change the stack's elements. */
static const char MEMOS[] =
	"provider memos 1\n"
	"on a\n"
	"  Cur = $x as string\n"
	"  Out/[Cur] = 1\n"
	"  Cur = $y as string\n"
	"  Out/[Cur] += 10\n"
	"  Pair/[Cur]_[Other] = $x\n"
	"end\n"
	"on b\n"
	"  Other = $x as string\n"
	"end\n"
	"on p\n"
	"  St popall\n"
	"  St push $x as string\n"
	"  Sel/[St/1] = $x\n"
	"end\n";

static const struct tev EV_MEMOS[] = {
	{ "a", 10, 0, { I("x", 1), I("y", 2) } },
	{ "b", 15, 0, { I("x", 5) } },
	{ "a", 20, 0, { I("x", 3), I("y", 3) } },
	{ "b", 30, 0, { I("x", 7) } },
	{ "a", 40, 0, { I("x", 1), I("y", 2) } },
	{ "p", 50, 0, { I("x", 8) } },
	{ "p", 60, 0, { I("x", 9) } },
};

static void test_memos(void)
{
	struct run r;

	RUN_NATIVE(&r, MEMOS, EV_MEMOS);
	is_int(r.err, SHT_OK, "memos: run");
	VAL(&r, "Out/1", 10, "i:1", "query path, first value");
	VAL(&r, "Out/2", 10, "i:10", "query path after a write in the event");
	VAL(&r, "Out/3", 20, "i:11", "same name twice in an event");
	VAL(&r, "Pair/3_5", 20, "l:3", "concat of two queries");
	VAL(&r, "Out/2", 40, "i:20", "back to an earlier name");
	VAL(&r, "Pair/2_7", 40, "l:1", "concat after a write in another event");
	VAL(&r, "Pair/3_5", 40, "l:3", "the earlier attribute unchanged");
	VAL(&r, "Sel/8", 50, "l:8", "query of a pushed element");
	VAL(&r, "Sel/9", 60, "l:9", "after popall and push");
	VAL(&r, "Sel/8", 60, "l:8", "not written again");
	is_int((long long)r.skipped, 0, "memos: no event skipped");
	done(&r);
}

static const char COND[] =
	"provider c 1\n"
	"on e\n"
	"  A = 5L\n"
	"  if $x == 5L\n"
	"    eq = 1\n"
	"    eq2 = 1   # two statements in one branch\n"
	"  else\n"
	"    eq = 0\n"
	"  end\n"
	"  if $x != 5\n"
	"    ne = 1\n"
	"  else\n"
	"    ne = 0\n"
	"  end\n"
	"  if $x > 4 and $x >= 5 and $x < 6 and $x <= 5\n"
	"    range = 1\n"
	"  end\n"
	"  if [A] == 5 and [Nosuch] == null\n"
	"    attr = 1\n"
	"  end\n"
	"  if not $s == \"abc\" or $x == 4\n"
	"    or = 1\n"
	"  else\n"
	"    or = 0\n"
	"  end\n"
	"  if $x == 4 or $x == 5 and $s == \"abc\"\n"
	"    prec = 1\n"
	"  end\n"
	"  if not ($x == 4 or $x == 6)\n"
	"    paren = 1\n"
	"  end\n"
	"  if $x == 5\n"
	"    if $nosuch == null\n"
	"      nested = 1\n"
	"    end\n"
	"  end\n"
	"  if $x & 4 == 4\n"
	"    mask = 1\n"
	"  end\n"
	"end\n";

static void test_conditions(void)
{
	struct run r;

	RUN_NATIVE(&r, COND, EV_COND);
	is_int(r.err, SHT_OK, "conditions: run");
	VAL(&r, "eq", 10, "i:1", "==");
	VAL(&r, "eq2", 10, "i:1", "a branch of two statements");
	VAL(&r, "ne", 10, "i:0", "!=, else");
	VAL(&r, "range", 10, "i:1", "> >= < <= with and");
	VAL(&r, "attr", 10, "i:1", "[path] values, absent is null");
	VAL(&r, "or", 10, "i:0", "not, or");
	VAL(&r, "prec", 10, "i:1", "and binds tighter than or");
	VAL(&r, "paren", 10, "i:1", "parentheses");
	VAL(&r, "nested", 10, "i:1", "nested if");
	VAL(&r, "mask", 10, "i:1", "& in a condition");
	done(&r);
}

struct bad {
	const char *text, *want;
};

static const struct bad BAD[] = {
	{ "on e\n  A = 1\nend\n", "t.rules:4: no 'provider ID VERSION' line" },
	{ "provider p 1\n", "t.rules:2: no 'on EVENT' handler" },
	{ "provider p\n", "t.rules:1: expected 'provider ID VERSION'" },
	{ "provider p 300\n", "t.rules:1: expected 'provider ID VERSION' (VERSION 0 to 255)" },
	{ "provider p 1\nprovider q 1\n", "t.rules:2: a second 'provider' line" },
	{ "provider p 1\nfoo\n", "t.rules:2: expected provider, define, location or on" },
	{ "provider p 1\ndefine X\n", "t.rules:2: expected 'define NAME VALUE'" },
	{ "provider p 1\nlocation l Threads\n", "t.rules:2: expected 'location NAME = PATH'" },
	{ "provider p 1\non\n", "t.rules:2: expected 'on EVENT-NAME'" },
	{ "provider p 1\non e\n  A = 1\n", "t.rules:4: expected 'end'" },
	{ "provider p 1\non e\n  A\nend\n", "t.rules:3: expected =, +=, push, pop, popall, delete or update after the path" },
	{ "provider p 1\non e\n  A = \nend\n", "t.rules:3: expected a value" },
	{ "provider p 1\non e\n  A = foo\nend\n", "t.rules:3: 'foo' is not a value" },
	{ "provider p 1\non e\n  A = 3000000000\nend\n", "'3000000000' is not a value" },
	{ "provider p 1\non e\n  A = \"x\nend\n", "t.rules:3: unterminated string" },
	{ "provider p 1\non e\n  A = 1 2\nend\n", "t.rules:3: unexpected '2'" },
	{ "provider p 1\non e\n  @nope = 1\nend\n", "t.rules:3: no location named 'nope'" },
	{ "provider p 1\non e\n  A/$ = 1\nend\n", "t.rules:3: expected a field name after '$'" },
	{ "provider p 1\non e\n  A/%x = 1\nend\n", "t.rules:3: expected %event" },
	{ "provider p 1\non e\n  A/[B = 1\nend\n", "t.rules:3: expected ']'" },
	{ "provider p 1\non e\n  A//B = 1\nend\n", "t.rules:3: empty path element" },
	{ "provider p 1\non e\n  A = $x as float\nend\n", "t.rules:3: 'as float': expected int, long, string or double" },
	{ "provider p 1\non e\n  A = 1 & 3\nend\n", "t.rules:3: '& N' needs N > 0" },
	{ "provider p 1\non e\n  A = event without x\nend\n", "t.rules:3: expected a \"prefix\" after 'without'" },
	{ "provider p 1\non e\n  if $x = 1\n  end\nend\n", "t.rules:3: expected ==, !=, <, <=, > or >=" },
	{ "provider p 1\non e\n  if ($x == 1\n  end\nend\n", "t.rules:3: expected ')'" },
	{ "provider p 1\non e\n  if $x == 1\n    A = 1\nend\n", "t.rules:6: expected 'end'" },
	{ "provider p 1\non e\n  A = [B\nend\n", "t.rules:3: expected ']'" },
	{ "provider p 1\non e\n  A = $x & 0\nend\n", "'& N' needs N > 0" },
	{ "provider p 1\nlocation a = @a\non e\n  @a = 1\nend\n", "t.rules:2: no location named 'a'" },
	{ "provider p 1\non e\n  A = \"a\0b\"\nend\n", "a NUL byte" },
	/* Cut off by the end of the text (found by libFuzzer: reads past it). */
	{ "provider p 1\non e\n  A = [", "t.rules:3: empty path element" },
	{ "provider p 1\non e\n  A = $x & 5", "t.rules:3: expected 'end'" },
	{ "provider p 1\non e\n  A = \"abc", "t.rules:3: unterminated string" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
		sht_rules *r = NULL;
		size_t len = strlen(BAD[i].text);
		sht_err err;

		if (strcmp(BAD[i].want, "a NUL byte") == 0)
			len += 1 + strlen(BAD[i].text + len + 1);
		char *exact = malloc(len);   /* no NUL after it: ASan sees overreads */

		memcpy(exact, BAD[i].text, len);
		err = sht_rules_parse_native(exact, len, "t.rules", &r);
		free(exact);
		if (!ok(err == SHT_ERR_INVALID && strstr(sht_errmsg(), BAD[i].want), "bad %zu: %s", i, BAD[i].want))
			diag("got %d: %s", (int)err, sht_errmsg());
		if (err == SHT_OK)
			sht_rules_destroy(r);
	}
}

static void test_deep(void)
{
	char text[4096] = "provider p 1\non e\n  A = ";
	sht_rules *r = NULL;

	for (int i = 0; i < 100; i++)
		strcat(text, "[");
	strcat(text, "B\nend\n");
	is_int(sht_rules_parse_native(text, strlen(text), "t.rules", &r), SHT_ERR_INVALID, "100 nested brackets: refused");
	ok(strstr(sht_errmsg(), "nested deeper than 32"), "says so: %s", sht_errmsg());
}

int main(void)
{
	test_paths();
	test_ops();
	test_memos();
	test_conditions();
	test_bad();
	test_deep();
	return done_testing();
}

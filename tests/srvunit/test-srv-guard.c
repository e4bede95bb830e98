/*
 * test-srv-guard.c: the string checks that keep other web pages off the
 * server (guard.c, docs/SERVER.md "Security"): which Host headers name
 * the loopback (the DNS-rebinding guard), which Content-Types are JSON
 * (a page's cross-origin text/plain or form POST needs no preflight),
 * which origins get an Access-Control-Allow-Origin, and which
 * --allow-origin values are origins.  Tables of the cases a browser or
 * an attacker sends, and every dotted address with port against the
 * rule read plainly (first number 127, four numbers up to 255).
 */
#include <stdio.h>
#include <string.h>

#include "http.h"
#include "serve.h"
#include "tap.h"

static void hosts(void)
{
	static const struct { const char *host; int want; } t[] = {
		{ "localhost", 1 }, { "localhost:8080", 1 }, { "LocalHost:1", 1 },
		{ "localhost:", 1 }, { "127.0.0.1", 1 }, { "127.0.0.1:8080", 1 },
		{ "127.1.2.3:65535", 1 }, { "127.255.255.255", 1 },
		{ "[::1]", 1 }, { "[::1]:8080", 1 }, { "[0:0:0:0:0:0:0:1]:80", 1 },
		{ "[::ffff:127.0.0.1]:80", 1 },
		{ "", 0 }, { "evil.example.com", 0 }, { "evil.example.com:8080", 0 },
		{ "localhost.evil.com", 0 }, { "evil.localhost", 0 },
		{ "localhost.", 0 }, { "localhost:80:80", 0 }, { "localhost:8o", 0 },
		{ "localhost:123456", 0 }, { "127.0.0.1.evil.com", 0 },
		{ "127.0.0.1.", 0 }, { "127.0.0", 0 }, { "127.0.0.1.5", 0 },
		{ "127.0.0.256", 0 }, { "128.0.0.1", 0 }, { "0.0.0.0", 0 },
		{ "10.0.0.1:8080", 0 }, { "[::2]", 0 }, { "[::1", 0 },
		{ "[::1]x", 0 }, { "[::1]:x", 0 }, { "[evil.com]", 0 },
		{ "::1", 0 }, { "[::ffff:10.0.0.1]", 0 },
		{ "localhost\t", 0 }, { " localhost", 0 }, { "localhost:80 ", 0 },
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		is_int(srv_host_is_loopback(t[i].host), t[i].want,
		       "Host '%s' %s", t[i].host, t[i].want ? "is the loopback" : "is refused");
}

/* Every a.b.c.d (a, b in steps, c, d at the edges) with and without a
 * port, against the rule read plainly. */
static void dotted(void)
{
	static const int first[] = { 0, 1, 126, 127, 128, 255, 256, 300 };
	static const int other[] = { 0, 1, 99, 100, 254, 255, 256, 999 };
	char host[64];
	size_t n = 0, bad = 0;

	for (size_t a = 0; a < sizeof first / sizeof first[0]; a++)
		for (size_t b = 0; b < 8; b++)
			for (size_t c = 0; c < 8; c++)
				for (size_t d = 0; d < 8; d++)
					for (int port = 0; port < 2; port++) {
						int want = first[a] == 127 && other[b] <= 255 &&
							   other[c] <= 255 && other[d] <= 255;

						snprintf(host, sizeof host, "%d.%d.%d.%d%s",
							 first[a], other[b], other[c], other[d],
							 port ? ":8080" : "");
						n++;
						if (srv_host_is_loopback(host) != want) {
							if (bad++ < 5)
								diag("%s: want %d", host, want);
						}
					}
	ok(bad == 0, "%zu dotted addresses: loopback exactly when 127.x.x.x (%zu wrong)", n, bad);
}

static void ctypes(void)
{
	static const struct { const char *ct; int want; } t[] = {
		{ "application/json", 1 }, { "Application/JSON", 1 },
		{ "application/json; charset=utf-8", 1 },
		{ "application/json;charset=UTF-8", 1 },
		{ " application/json ", 1 }, { "application/json ; charset=utf-8", 1 },
		{ "text/plain", 0 }, { "text/plain; charset=utf-8", 0 },
		{ "application/x-www-form-urlencoded", 0 },
		{ "multipart/form-data; boundary=x", 0 }, { "", 0 },
		{ "application/jsonx", 0 }, { "application/json-patch+json", 0 },
		{ "application/json/x", 0 }, { "text/plain;application/json", 0 },
		{ "application", 0 },
	};

	ok(!srv_ctype_is_json(NULL), "no Content-Type is not JSON");
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		is_int(srv_ctype_is_json(t[i].ct), t[i].want, "Content-Type '%s' %s",
		       t[i].ct, t[i].want ? "is JSON" : "is refused");
}

static void origins(void)
{
	static const char *const two[] = { "http://localhost:3000", "https://Viewer.example" };
	static const char *const star[] = { "http://a.example", "*" };
	const char *o;

	ok(!srv_origin_allowed(two, 0, "http://localhost:3000"), "no --allow-origin: nobody");
	ok(!srv_origin_allowed(two, 2, NULL), "no Origin (not a browser's cross-origin request): no header");
	o = "http://localhost:3000";
	ok(srv_origin_allowed(two, 2, o) == o, "a listed origin gets itself back");
	o = "https://viewer.example";
	ok(srv_origin_allowed(two, 2, o) == o, "... whatever the case of the listed one");
	ok(!srv_origin_allowed(two, 2, "http://localhost:3001"), "another port is another origin");
	ok(!srv_origin_allowed(two, 2, "http://viewer.example"), "another scheme is another origin");
	ok(!srv_origin_allowed(two, 2, "null"), "a sandboxed page (null) is not listed");
	o = srv_origin_allowed(star, 2, "http://anything.example");
	ok(o && strcmp(o, "*") == 0, "* lets any origin in, answered with *");
}

static void valid(void)
{
	static const struct { const char *o; int want; } t[] = {
		{ "*", 1 }, { "http://localhost:3000", 1 }, { "https://a.example", 1 },
		{ "HTTP://A.example:80", 1 }, { "http://[::1]:3000", 1 },
		{ "http://127.0.0.1", 1 },
		{ "", 0 }, { "**", 0 }, { "null", 0 }, { "localhost:3000", 0 },
		{ "http://", 0 }, { "https://", 0 }, { "ftp://a.example", 0 },
		{ "file://", 0 }, { "http://a.example/", 0 }, { "http://a.example/x", 0 },
		{ "http://u@a.example", 0 }, { "http://a.example?x", 0 },
		{ "http://a example", 0 }, { "http://a.example#", 0 },
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		is_int(srv_origin_valid(t[i].o), t[i].want, "--allow-origin '%s' %s",
		       t[i].o, t[i].want ? "is an origin" : "is refused");
}

int main(void)
{
	hosts();
	dotted();
	ctypes();
	origins();
	valid();
	return done_testing();
}

/*
 * guard.c: the checks that keep other web pages off the server
 * (docs/SERVER.md, "Security"), as plain string tests that http.c
 * applies to each request and the unit tests call directly:
 *
 * - the Host a request names, when the server listens on the loopback:
 *   a page of another site can make the browser's name for that site
 *   point to 127.0.0.1 (DNS rebinding) and then read the server as its
 *   own origin; its requests still carry that site's name as Host, so
 *   only loopback names are served;
 * - the type of a request's body: a page may send a cross-origin POST
 *   of text/plain, form data or a multipart body without asking the
 *   server first (a CORS "simple" request), never one of
 *   application/json, so the API takes JSON bodies only;
 * - the origins allowed to read answers from a browser (--allow-origin,
 *   CORS), none unless asked.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "serve.h"

/* s[0..n) is 0 to 5 decimal digits (a port, possibly empty). */
static int is_port(const char *s, size_t n)
{
	if (n > 5)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* name[0..n) is "localhost" or a dotted IPv4 address in 127.0.0.0/8. */
static int loopback_name(const char *name, size_t n)
{
	char buf[16];
	struct in_addr a;

	if (n == 9 && strncasecmp(name, "localhost", 9) == 0)
		return 1;
	if (n >= sizeof buf)
		return 0;
	memcpy(buf, name, n);
	buf[n] = '\0';
	return inet_pton(AF_INET, buf, &a) == 1 &&
	       (ntohl(a.s_addr) >> 24) == 127;
}

/* v6[0..n) (between brackets) is ::1 or an IPv4-mapped 127.x address. */
static int loopback_v6(const char *v6, size_t n)
{
	char buf[48];
	struct in6_addr a;

	if (n >= sizeof buf)
		return 0;
	memcpy(buf, v6, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET6, buf, &a) != 1)
		return 0;
	return IN6_IS_ADDR_LOOPBACK(&a) ||
	       (IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127);
}

int srv_host_is_loopback(const char *host)
{
	const char *colon, *close;

	if (host[0] == '[') {
		close = strchr(host, ']');
		if (!close || (close[1] != '\0' && close[1] != ':'))
			return 0;
		if (close[1] == ':' && !is_port(close + 2, strlen(close + 2)))
			return 0;
		return loopback_v6(host + 1, (size_t)(close - host - 1));
	}
	colon = strchr(host, ':');
	if (colon && !is_port(colon + 1, strlen(colon + 1)))
		return 0;
	return loopback_name(host, colon ? (size_t)(colon - host) : strlen(host));
}

int srv_ctype_is_json(const char *ctype)
{
	static const char json[] = "application/json";
	const char *p = ctype;

	if (!p)
		return 0;
	p += strspn(p, " \t");
	if (strncasecmp(p, json, sizeof json - 1) != 0)
		return 0;
	p += sizeof json - 1;
	p += strspn(p, " \t");
	return *p == '\0' || *p == ';';   /* parameters (charset=...) allowed */
}

const char *srv_origin_allowed(const char *const *allowed, size_t n,
			       const char *origin)
{
	if (!origin)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(allowed[i], "*") == 0)
			return "*";
		if (strcasecmp(allowed[i], origin) == 0)
			return origin;
	}
	return NULL;
}

int srv_origin_valid(const char *o)
{
	size_t scheme;

	if (strcmp(o, "*") == 0)
		return 1;
	if (strncasecmp(o, "http://", 7) == 0)
		scheme = 7;
	else if (strncasecmp(o, "https://", 8) == 0)
		scheme = 8;
	else
		return 0;
	o += scheme;
	/* host[:port], as a browser writes an Origin: no path, no user,
	 * nothing but the characters of names, addresses and ports */
	if (!*o)
		return 0;
	for (; *o; o++)
		if (!isalnum((unsigned char)*o) && !strchr("-._:[]", *o))
			return 0;
	return 1;
}

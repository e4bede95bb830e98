/*
 * view.c: what `sht view TRACE...` adds to `sht serve`: once the server
 * listens, open the traces and one experiment of them through the same
 * handlers a client reaches (POST /traces, POST /experiments), print the
 * viewer's URL on a line of its own, and start a browser on it when a
 * display is there (xdg-open, only if $DISPLAY or $WAYLAND_DISPLAY is
 * set and the command line asked for it).
 */
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "srv.h"

extern char **environ;

/* POST path with the JSON body through the router; the answer's JSON
 * (NULL after printing why, on any status but 200). */
static json_t *post(struct srv *s, const char *path, json_t *params, int *status)
{
	struct srv_req req;
	struct srv_reply rep;
	json_t *body = json_object(), *ans = NULL;
	char *text;

	json_object_set_new(body, "parameters", params);
	text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	memset(&req, 0, sizeof req);
	memset(&rep, 0, sizeof rep);
	req.srv = s;
	req.method = SRV_POST;
	req.path = path;
	req.body = text;
	req.body_len = text ? strlen(text) : 0;
	srv_handle(&req, &rep);
	json_decref(req.root);
	free(text);
	srv_reply_join(&rep);
	*status = rep.status;
	if (rep.body)
		ans = json_loadb(rep.body, rep.len, 0, NULL);
	srv_reply_free(&rep);
	return ans;
}

static void print_error(const char *what, const char *arg, json_t *ans)
{
	const char *t = json_string_value(json_object_get(ans, "title"));
	const char *d = json_string_value(json_object_get(ans, "detail"));

	fprintf(stderr, "sht: cannot view %s: %s%s%s\n", arg, t ? t : what,
		d ? ": " : "", d ? d : "");
}

static const char *base_name(const char *path, char *buf, size_t size)
{
	size_t n = strlen(path);
	const char *b;

	while (n > 1 && path[n - 1] == '/')
		n--;
	snprintf(buf, size, "%.*s", (int)n, path);
	b = strrchr(buf, '/');
	return b && b[1] ? b + 1 : buf;
}

/* Open one trace; its UUID into uuid.  A name taken by another path is
 * retried as "name(1)", "name(2)", ... as the Eclipse viewer does. */
static int open_trace(struct srv *s, const char *path, char uuid[37])
{
	char buf[PATH_MAX], name[PATH_MAX + 16];
	const char *base = base_name(path, buf, sizeof buf);
	int status = 0;

	for (int k = 0; k < 100; k++) {
		json_t *p = json_object(), *ans;

		if (k)
			snprintf(name, sizeof name, "%s(%d)", base, k);
		else
			snprintf(name, sizeof name, "%s", base);
		json_object_set_new(p, "uri", srv_jstr(path));
		json_object_set_new(p, "name", srv_jstr(name));
		ans = post(s, "/tsp/api/traces", p, &status);
		if (status == 200) {
			snprintf(uuid, 37, "%s", json_string_value(
				 json_object_get(ans, "UUID")));
			json_decref(ans);
			return 0;
		}
		if (status != 409) {
			print_error("cannot open it", path, ans);
			json_decref(ans);
			return -1;
		}
		json_decref(ans);
	}
	fprintf(stderr, "sht: cannot view %s: too many traces of that name\n",
		path);
	return -1;
}

static int open_experiment(struct srv *s, char (*uuids)[37], size_t n,
			   char exp[37])
{
	char buf[PATH_MAX], name[PATH_MAX + 32];
	const struct srv_config *c = &s->cfg;
	int status = 0;

	if (c->exp_name)
		snprintf(name, sizeof name, "%s", c->exp_name);
	else if (n == 1)
		snprintf(name, sizeof name, "%s", base_name(c->open[0], buf, sizeof buf));
	else
		snprintf(name, sizeof name, "%s +%zu", base_name(c->open[0], buf,
			 sizeof buf), n - 1);
	for (int k = 0; k < 100; k++) {
		json_t *p = json_object(), *arr = json_array(), *ans;
		char nm[sizeof name + 16];

		if (k)
			snprintf(nm, sizeof nm, "%s(%d)", name, k);
		else
			snprintf(nm, sizeof nm, "%s", name);
		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, json_string(uuids[i]));
		json_object_set_new(p, "name", srv_jstr(nm));
		json_object_set_new(p, "traces", arr);
		ans = post(s, "/tsp/api/experiments", p, &status);
		if (status == 200) {
			snprintf(exp, 37, "%s", json_string_value(
				 json_object_get(ans, "UUID")));
			json_decref(ans);
			return 0;
		}
		if (status != 409) {
			print_error("cannot make the experiment", name, ans);
			json_decref(ans);
			return -1;
		}
		json_decref(ans);
	}
	return -1;
}

static void start_browser(struct srv *s, const char *url)
{
	const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
	char prog[] = "xdg-open", *arg = strdup(url);
	char *argv[] = { prog, arg, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;

	if (!s->cfg.browser || !((d && *d) || (w && *w)) || !arg) {
		free(arg);
		return;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", 0, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
	if (posix_spawnp(&pid, "xdg-open", &fa, NULL, argv, environ) == 0)
		s->browser_pid = (int)pid;
	else
		srv_log(s, "cannot start a browser (xdg-open): open the URL above");
	posix_spawn_file_actions_destroy(&fa);
	free(arg);
}

int srv_view_open(struct srv *s, unsigned port)
{
	const struct srv_config *c = &s->cfg;
	char (*uuids)[37], exp[37], url[512];
	const char *host = c->bind;
	int v6;

	if (!c->nopen)
		return 0;
	uuids = calloc(c->nopen, sizeof *uuids);
	if (!uuids)
		return -1;
	for (size_t i = 0; i < c->nopen; i++) {
		char *real = realpath(c->open[i], NULL);
		int rc = real ? open_trace(s, real, uuids[i]) : -1;

		if (!real)
			fprintf(stderr, "sht: cannot view %s: no such file or "
				"directory\n", c->open[i]);
		free(real);
		if (rc != 0) {
			free(uuids);
			return -1;
		}
	}
	if (open_experiment(s, uuids, c->nopen, exp) != 0) {
		free(uuids);
		return -1;
	}
	free(uuids);
	/* A wildcard address is reached on this machine as loopback. */
	if (strcmp(host, "0.0.0.0") == 0)
		host = "127.0.0.1";
	else if (strcmp(host, "::") == 0)
		host = "::1";
	v6 = strchr(host, ':') != NULL;
	snprintf(url, sizeof url, "http://%s%s%s:%u/#exp=%s", v6 ? "[" : "",
		 host, v6 ? "]" : "", port, exp);
	printf("%s\n", url);
	fflush(stdout);
	start_browser(s, url);
	return 0;
}

void srv_view_done(struct srv *s)
{
	if (s->browser_pid > 0)
		waitpid((pid_t)s->browser_pid, NULL, WNOHANG);
	s->browser_pid = 0;
}

/*
 * h-server.c: GET /health and GET /identifier.
 */
#include <sys/utsname.h>
#include <unistd.h>

#include "srv.h"

int srv_h_health(struct srv_req *req, struct srv_reply *rep)
{
	json_t *j = json_object();

	(void)req;
	json_object_set_new(j, "status", json_string("UP"));
	srv_reply_json(rep, 200, j);
	return 0;
}

int srv_h_identifier(struct srv_req *req, struct srv_reply *rep)
{
	json_t *j = json_object();
	struct utsname u;
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	(void)req;
	if (uname(&u) != 0) {
		snprintf(u.sysname, sizeof u.sysname, "Linux");
		u.machine[0] = u.release[0] = '\0';
	}
	json_object_set_new(j, "version", json_string(sht_version_string()));
	json_object_set_new(j, "buildTime", json_string(SHT_VERSION_STRING));
	json_object_set_new(j, "productId", json_string("sht"));
	json_object_set_new(j, "tspVersion", json_string("0.6.0"));
	json_object_set_new(j, "os", srv_jstr(u.sysname));
	json_object_set_new(j, "osArch", srv_jstr(u.machine));
	json_object_set_new(j, "osVersion", srv_jstr(u.release));
	json_object_set_new(j, "cpuCount", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(j, "maxMemory", json_integer(pages > 0 && page > 0 ?
					    (json_int_t)pages * page : 0));
	json_object_set_new(j, "launcherName", json_string("sht serve"));
	srv_reply_json(rep, 200, j);
	return 0;
}

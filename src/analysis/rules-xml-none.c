/*
 * rules-xml-none.c: the XML front end when libsht is built without
 * libxml2 (SHT_WITH_LIBXML2=OFF): loading an XML rules file says so.
 */
#include "analysis/rules-int.h"
#include "util/util.h"

bool sht_rules_have_xml(void)
{
	return false;
}

sht_err sht_rules_parse_xml(const char *buf, size_t len, const char *name,
			    const char *provider_id, sht_rules **out)
{
	(void)buf;
	(void)len;
	(void)provider_id;
	(void)out;
	return sht__error(SHT_ERR_INVALID, "%s: XML support is not built in "
			  "(libsht was built with SHT_WITH_LIBXML2=OFF)",
			  name ? name : "(memory)");
}

sht_err sht_rules_load_xml(const char *path, const char *provider_id,
			   sht_rules **out)
{
	return sht_rules_parse_xml(NULL, 0, path, provider_id, out);
}

/*
 * consumer.c: a program outside the project that uses the installed
 * library, built by cmake/install-test.sh with `pkg-config sht`.
 * Prints the runtime version; fails if it differs from the header's.
 */
#include <stdio.h>
#include <string.h>

#include <sht/sht.h>

int main(void)
{
	const char *v = sht_version_string();

	printf("%s\n", v);
	if (strcmp(v, SHT_VERSION_STRING) != 0) {
		fprintf(stderr, "header says %s, library says %s\n",
			SHT_VERSION_STRING, v);
		return 1;
	}
	return 0;
}

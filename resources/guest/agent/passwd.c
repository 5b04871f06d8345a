/* User lookup from /etc/passwd and /etc/group. Parsed directly: getpwnam in a
 * static glibc binary needs NSS modules matching the build host's glibc. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

/* split s on ':' into at most n fields (in place); returns the field count */
static int split(char *s, char **f, int n)
{
	int i = 0;
	f[i++] = s;
	while (i < n && (s = strchr(s, ':'))) {
		*s++ = 0;
		f[i++] = s;
	}
	return i;
}

static int is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static void add_groups(struct user_info *u)
{
	u->groups[0] = u->gid;
	u->ngroups = 1;
	FILE *fp = fopen("/etc/group", "re");
	char line[4096];
	while (fp && fgets(line, sizeof line, fp)) {
		char *f[4];
		line[strcspn(line, "\n")] = 0;
		if (split(line, f, 4) < 4)
			continue;
		gid_t gid = (gid_t)strtoul(f[2], NULL, 10);
		for (char *m = strtok(f[3], ","); m; m = strtok(NULL, ","))
			if (!strcmp(m, u->name) && gid != u->gid && u->ngroups < 64)
				u->groups[u->ngroups++] = gid;
	}
	if (fp)
		fclose(fp);
}

/* name may be a user name or a numeric uid */
int lookup_user(const char *name, struct user_info *u)
{
	FILE *fp = fopen("/etc/passwd", "re");
	char line[4096];
	int found = 0;
	while (fp && !found && fgets(line, sizeof line, fp)) {
		char *f[7];
		line[strcspn(line, "\n")] = 0;
		if (split(line, f, 7) < 7)
			continue;
		if (strcmp(f[0], name) != 0 && !(is_number(name) && !strcmp(f[2], name)))
			continue;
		u->uid = (uid_t)strtoul(f[2], NULL, 10);
		u->gid = (gid_t)strtoul(f[3], NULL, 10);
		snprintf(u->name, sizeof u->name, "%s", f[0]);
		snprintf(u->home, sizeof u->home, "%s", *f[5] ? f[5] : "/");
		snprintf(u->shell, sizeof u->shell, "%s", *f[6] ? f[6] : "/bin/sh");
		found = 1;
	}
	if (fp)
		fclose(fp);
	if (!found && is_number(name)) {
		u->uid = u->gid = (uid_t)strtoul(name, NULL, 10);
		snprintf(u->name, sizeof u->name, "%s", name);
		strcpy(u->home, "/");
		strcpy(u->shell, "/bin/sh");
		found = 1;
	}
	if (!found)
		return -ENOENT;
	add_groups(u);
	return 0;
}

/* Files the host asks about: stat, list (sorted by name), mkdir -p. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"

int mkdir_p(const char *path, mode_t mode)
{
	char buf[4096];
	struct stat st;
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return -ENAMETOOLONG;
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != 0)
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			break;
	}
	if (stat(path, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static const char *type_of(mode_t m)
{
	return S_ISREG(m) ? "file" : S_ISDIR(m) ? "directory" : S_ISLNK(m) ? "symlink" : "other";
}

static void put_stat(const char *name, const struct stat *st, const char *link)
{
	fb_str(T_NAME, name);
	fb_str(T_TYPE, type_of(st->st_mode));
	fb_int(T_SIZE, st->st_size);
	fb_int(T_MODE, st->st_mode & 07777);
	fb_int(T_MTIME_NS, (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec);
	if (link) {
		char t[4096];
		ssize_t n = readlinkat(AT_FDCWD, link, t, sizeof t - 1);
		if (n >= 0)
			fb_bytes(T_TARGET, t, (size_t)n);
	}
}

void do_stat(uint32_t id, char *path, int follow)
{
	struct stat st;
	if ((follow ? stat(path, &st) : lstat(path, &st)) < 0)
		return send_errno(id, errno, path);
	char *copy = strdup(path);
	fb_begin(M_STAT_REPLY, 0, id);
	put_stat(basename(copy), &st, S_ISLNK(st.st_mode) ? path : NULL);
	fb_end();
	free(copy);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void do_list(uint32_t id, const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return send_errno(id, errno, path);
	size_t n = 0, cap = 64;
	char **names = malloc(cap * sizeof *names);
	struct dirent *de;
	while (names && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap)
			names = realloc(names, (cap *= 2) * sizeof *names);
		if (names)
			names[n++] = strdup(de->d_name);
	}
	qsort(names, n, sizeof *names, by_name);
	int nopen = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		char full[4096 + 256];
		if (fstatat(dirfd(d), names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* vanished meanwhile */
		snprintf(full, sizeof full, "%s/%s", path, names[i]);
		if (nopen && fb_payload() > 48 * 1024) {
			fb_end();
			nopen = 0;
		}
		if (!nopen)
			fb_begin(M_LIST_ENTRIES, 0, id);
		nopen++;
		size_t mark = fb_nest_begin(T_ENTRY);
		put_stat(names[i], &st, S_ISLNK(st.st_mode) ? full : NULL);
		fb_nest_end(mark);
	}
	if (nopen)
		fb_end();
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	fb_begin(M_OK, 0, id);
	fb_int(T_SIZE, (int64_t)n);
	fb_end();
}

/* Files the host asks about: stat, list (sorted by name), mkdir -p. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "agent.h"

int mkdir_p(const char *path, mode_t mode) { return mkdir_p_owned(path, mode, (uid_t)-1, (gid_t)-1); }

/* mkdir -p; each directory it creates is given to uid:gid (-1: left as created), as
 * envd's EnsureDirs does for an upload as a user. */
int mkdir_p_owned(const char *path, mode_t mode, uid_t uid, gid_t gid)
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
		if (mkdir(buf, mode) == 0) {
			if (uid != (uid_t)-1 && chown(buf, uid, gid) < 0)
				return -errno;
		} else if (errno != EEXIST) {
			return -errno;
		}
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

/* `box-agent --xattrs PATH...` (run in the box by any user, from /.box/agent): prints each
 * path's user-defined metadata, the xattrs under `user.e2b.` (envd 0.6.2's file metadata),
 * as NUL-terminated fields: the path, the count, then key and value pairs (the prefix
 * stripped). Paths without any are left out; values holding a NUL are skipped. */
#define META_PREFIX "user.e2b."
int xattrs_main(int argc, char **argv)
{
	static char names[65536], value[65536];
	for (int i = 0; i < argc; i++) {
		ssize_t n = listxattr(argv[i], names, sizeof names);
		if (n <= 0)
			continue;
		const char *keys[256];
		size_t offs[256], lens[256];
		int count = 0;
		char *store = NULL;
		size_t used = 0;
		for (char *k = names; k < names + n && count < 256; k += strlen(k) + 1) {
			if (strncmp(k, META_PREFIX, sizeof META_PREFIX - 1) != 0)
				continue;
			ssize_t v = getxattr(argv[i], k, value, sizeof value);
			if (v < 0 || memchr(value, 0, (size_t)v))
				continue;
			char *grown = realloc(store, used + (size_t)v + 1);
			if (!grown)
				break;
			store = grown;
			memcpy(store + used, value, (size_t)v);
			store[used + (size_t)v] = 0;
			keys[count] = k + sizeof META_PREFIX - 1;
			offs[count] = used;
			lens[count++] = (size_t)v;
			used += (size_t)v + 1;
		}
		if (count > 0) {
			printf("%s%c%d%c", argv[i], 0, count, 0);
			for (int j = 0; j < count; j++) {
				fputs(keys[j], stdout);
				putchar(0);
				fwrite(store + offs[j], 1, lens[j], stdout);
				putchar(0);
			}
		}
		free(store);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

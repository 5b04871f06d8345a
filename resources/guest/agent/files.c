/* Files: streamed upload (temp file + rename, or in place) and streamed download
 * under host credit; stat, list and mkdir -p are in fsinfo.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "agent.h"

#define PROC_MAGIC 0x9fa0
#define SYSFS_MAGIC 0x62656572

struct fs {
	struct fs *next;
	uint32_t id;
	int writing; /* 1 upload, 0 download */
	int fd;
	char *path, *tmp;
	int64_t size;
	uint32_t credit, unacked;
	int durable; /* upload: fsync the file and its directory before answering */
	int xattrs; /* upload: xattr(61)s asked for (-1: none), else how many the file system kept */
};
static struct fs *fs_list;

static struct fs *find(uint32_t id)
{
	for (struct fs *s = fs_list; s; s = s->next)
		if (s->id == id)
			return s;
	return NULL;
}

int files_owns(uint32_t stream) { return find(stream) != NULL; }

static void fs_free(struct fs *s)
{
	for (struct fs **pp = &fs_list; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	if (s->fd >= 0)
		close(s->fd);
	if (s->tmp)
		unlink(s->tmp); /* an unfinished upload leaves the old file in place */
	free(s->tmp);
	free(s->path);
	free(s);
}

void files_reset_all(void)
{
	while (fs_list)
		fs_free(fs_list);
}

static struct fs *fs_new(uint32_t id, int writing, int fd, char *path)
{
	struct fs *s = calloc(1, sizeof *s);
	s->id = id;
	s->writing = writing;
	s->fd = fd;
	s->path = path;
	s->next = fs_list;
	fs_list = s;
	return s;
}

/* in_place: open the file itself with O_TRUNC instead of a temp file renamed over it:
 * no new inode, no rename, no old inode to free (far less kernel work, which a VM restored
 * under TCG has not translated yet), but a reader may see the file empty or partly written
 * meanwhile and a failed upload leaves it so. For small files only the host reads back
 * (a box's identity). */
/* Sets the xattr(61)s of the request (each `name=value`) on the new file: a file system
 * without user xattrs (procfs, sysfs, tmpfs before Linux 6.6) keeps the file without them, as
 * envd does. Returns how many were set, or -errno. */
static int set_xattrs(int fd, const struct frame *f)
{
	int set = 0;
	for (int i = 0, n = tlv_count(f, T_XATTR); i < n; i++) {
		char *kv = tlv_str(f, T_XATTR, i), *eq = kv ? strchr(kv, '=') : NULL;
		int r = eq && eq != kv ? (*eq = 0, fsetxattr(fd, kv, eq + 1, strlen(eq + 1), 0)) : (errno = EINVAL, -1);
		int e = errno;
		free(kv);
		if (r < 0 && e != ENOTSUP && e != EOPNOTSUPP)
			return -e;
		set += r == 0;
	}
	return set;
}

/* owner: the request's user when the write is made as root and its result given to them
 * (owner(60), envd's upload: parent directories it creates and the file are theirs, whatever
 * the permissions of the directories); NULL: as the caller's fs uid. */
/* keep_mode(62): a regular file already at `path` keeps its permission bits (envd's upload opens
 * it with O_TRUNC, so an overwrite never changes its mode); `mode` is for a new file only. */
static int start_write(uint32_t id, char *path, mode_t mode, int parents, int durable, int in_place,
		       int keep_mode, const struct user_info *owner, const struct frame *f)
{
	struct stat st;
	int found = stat(path, &st) == 0;
	if (found && S_ISDIR(st.st_mode))
		return send_errno(id, EISDIR, path), 0;
	if (keep_mode && found && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;
	char *dcopy = strdup(path), *dir = dirname(dcopy);
	int r = parents ? mkdir_p_owned(dir, 0755, owner ? owner->uid : (uid_t)-1, owner ? owner->gid : (gid_t)-1) : 0;
	if (r < 0) {
		send_errno(id, -r, dir);
		return free(dcopy), 0;
	}
	char *tmp = NULL;
	int fd;
	if (in_place) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, mode);
	} else {
		size_t tl = strlen(dir) + 32;
		tmp = malloc(tl);
		snprintf(tmp, tl, "%s/.box-upload-XXXXXX", strcmp(dir, "/") ? dir : "");
		fd = mkostemp(tmp, O_CLOEXEC);
	}
	int e = errno;
	free(dcopy);
	if (fd < 0) {
		send_errno(id, e, path);
		return free(tmp), 0;
	}
	fchmod(fd, mode);
	int r2 = owner && fchown(fd, owner->uid, owner->gid) < 0 ? -errno : set_xattrs(fd, f);
	if (r2 < 0) {
		close(fd);
		if (tmp)
			unlink(tmp);
		send_errno(id, -r2, path);
		return free(tmp), 0;
	}
	struct fs *s = fs_new(id, 1, fd, path);
	s->xattrs = tlv_count(f, T_XATTR) > 0 ? r2 : -1;
	s->durable = durable;
	s->tmp = tmp;
	fb_begin(M_OK, 0, id);
	fb_int(T_WINDOW, FWRITE_WINDOW);
	fb_end();
	return 1;
}

static int start_read(uint32_t id, char *path, int64_t window)
{
	struct stat st;
	struct statfs sf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return send_errno(id, errno, path), 0;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return send_errno(id, e, path), 0;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		if (S_ISDIR(st.st_mode))
			return send_errno(id, EISDIR, path), 0;
		return send_error(id, "invalid", 0, "%s: not a regular file", path), 0;
	}
	int virt = fstatfs(fd, &sf) == 0 && (sf.f_type == PROC_MAGIC || sf.f_type == SYSFS_MAGIC);
	struct fs *s = fs_new(id, 0, fd, path);
	s->credit = (uint32_t)(window > 0 && window < (64 << 20) ? window : 256 * 1024);
	fb_begin(M_FILE_INFO, 0, id);
	fb_int(T_MODE, st.st_mode & 07777);
	if (!virt) /* procfs/sysfs report 0: size unknown, read to EOF */
		fb_int(T_SIZE, st.st_size);
	fb_end();
	return 1;
}

/* user(13) on a file request: the request acts as that user (filesystem uid and gid, so
 * its permissions apply and what it creates is theirs), as E2B's envd does; the final
 * rename of an upload's temp file stays the agent's. Agents before it ignore the tag. */
static int as_user(const struct frame *f, struct user_info *u, int owner)
{
	char *name = tlv_str(f, T_USER, 0);
	int r = name && *name ? lookup_user(name, u) : 1;
	if (r < 0)
		send_error(f->stream, "invalid", 0, "unknown user: %.60s", name);
	free(name);
	if (r == 0 && !owner) {
		setfsgid(u->gid);
		setfsuid(u->uid);
	}
	return r;
}

void files_request(const struct frame *f)
{
	char *path = tlv_str(f, T_PATH, 0);
	int kept = 0;
	struct user_info u;
	int user = 1;
	/* owner(60) on an upload: made as root, given to the user (see start_write) */
	int owner = f->type == M_FILE_WRITE && tlv_int(f, T_OWNER, 0) != 0;
	if (!path || path[0] != '/' || strlen(path) >= 4096) {
		send_error(f->stream, "invalid", 0, "path must be absolute");
	} else if ((user = as_user(f, &u, owner)) < 0) {
		/* answered */
	} else if (f->type == M_STAT) {
		do_stat(f->stream, path, tlv_int(f, T_FOLLOW, 1) != 0);
	} else if (f->type == M_LIST) {
		do_list(f->stream, path);
	} else if (f->type == M_MKDIR) {
		int r = mkdir_p(path, (mode_t)tlv_int(f, T_MODE, 0755) & 07777);
		if (r < 0)
			send_errno(f->stream, -r, path);
		else
			send_simple(M_OK, 0, f->stream);
	} else if (f->type == M_FILE_WRITE) {
		kept = start_write(f->stream, path, (mode_t)tlv_int(f, T_MODE, 0644) & 07777,
				   tlv_int(f, T_PARENTS, 1) != 0, tlv_int(f, T_DURABLE, 1) != 0,
				   tlv_int(f, T_IN_PLACE, 0) != 0, tlv_int(f, T_KEEP_MODE, 0) != 0,
				   owner && user == 0 ? &u : NULL, f);
	} else {
		kept = start_read(f->stream, path, tlv_int(f, T_WINDOW, 0));
	}
	if (user == 0 && !owner) {
		setfsuid(0);
		setfsgid(0);
	}
	if (!kept)
		free(path);
}

static void upload_data(struct fs *s, const struct frame *f)
{
	size_t off = 0;
	while (off < f->len) {
		ssize_t w = write(s->fd, f->p + off, f->len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			send_errno(s->id, errno, s->path);
			return fs_free(s);
		}
		off += (size_t)w;
	}
	s->size += f->len;
	s->unacked += f->len;
	if (s->unacked >= FWRITE_WINDOW / 4) {
		send_window(s->id, CH_IN, s->unacked);
		s->unacked = 0;
	}
}

/* Makes a rename durable: syncs the directory holding `path`. */
static int sync_parent(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	if (n == 0 || n >= sizeof(dir))
		n = (slash == path) ? 1 : 0;
	if (n == 0)
		memcpy(dir, ".", 2);
	else {
		memcpy(dir, path, n);
		dir[n] = 0;
	}
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = fsync(fd);
	close(fd);
	return r;
}

/* The upload is answered only once it is on disk: a VM killed right after the
 * answer keeps the file (temp file synced, renamed, directory synced). A non-durable
 * upload (durable(56) = 0: files the host writes again on every start) skips both
 * syncs; the rename still makes it all-or-nothing. */
static void upload_done(struct fs *s)
{
	if (s->durable && fsync(s->fd) < 0) {
		send_errno(s->id, errno, s->path);
		return fs_free(s);
	}
	if (close(s->fd) < 0) {
		s->fd = -1;
		send_errno(s->id, errno, s->path);
		return fs_free(s);
	}
	s->fd = -1;
	if (s->tmp && rename(s->tmp, s->path) < 0) {
		send_errno(s->id, errno, s->path);
		return fs_free(s);
	}
	free(s->tmp);
	s->tmp = NULL;
	if (s->durable && sync_parent(s->path) < 0) {
		send_errno(s->id, errno, s->path);
		return fs_free(s);
	}
	fb_begin(M_WRITE_DONE, 0, s->id);
	fb_int(T_SIZE, s->size);
	if (s->xattrs >= 0)
		fb_int(T_APPLIED, s->xattrs);
	fb_end();
	fs_free(s);
}

int files_frame(const struct frame *f)
{
	struct fs *s = find(f->stream);
	if (!s)
		return 0;
	if (f->type == M_RESET)
		fs_free(s);
	else if (s->writing && f->type == M_DATA)
		upload_data(s, f);
	else if (s->writing && f->type == M_EOF)
		upload_done(s);
	else if (!s->writing && f->type == M_WINDOW) {
		uint64_t c = (uint64_t)s->credit + (uint64_t)tlv_int(f, T_WINDOW, 0);
		s->credit = c > (64u << 20) ? (64u << 20) : (uint32_t)c;
	}
	return 1;
}

int files_pending(void)
{
	for (struct fs *s = fs_list; s; s = s->next)
		if (!s->writing && s->credit > 0)
			return 1;
	return 0;
}

void files_pump(void)
{
	struct fs *s = fs_list, *next;
	for (; s; s = next) {
		next = s->next;
		size_t budget = 256 * 1024;
		while (!s->writing && s->credit > 0 && budget > 0 && out_len < OUT_HIGH) {
			size_t max = s->credit < MAX_PAYLOAD ? s->credit : MAX_PAYLOAD;
			ssize_t r = read(s->fd, data_begin(max), max);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				send_errno(s->id, errno, s->path);
				fs_free(s);
				break;
			}
			if (r == 0) {
				send_simple(M_EOF, CH_IN, s->id);
				fs_free(s);
				break;
			}
			data_end(M_DATA, CH_IN, s->id, (size_t)r);
			s->credit -= (uint32_t)r;
			budget -= (size_t)r < budget ? (size_t)r : budget;
		}
	}
}

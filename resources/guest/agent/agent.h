/* box-agent: guest agent for Box Desktop. Wire format: ../PROTOCOL.md */
#ifndef BOX_AGENT_H
#define BOX_AGENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef AGENT_VERSION
#define AGENT_VERSION "0.1.0-dev"
#endif
#define PROTO_VERSION 1

#define MAGIC0 0xB0
#define MAGIC1 0xC5
#define HDR_LEN 12
#define MAX_PAYLOAD 65536
#define OUT_HIGH (1024 * 1024)      /* stop producing data frames above this */
#define STDIN_WINDOW (256 * 1024)   /* agent-side stdin buffer per exec */
#define FWRITE_WINDOW (1024 * 1024) /* credit for an upload */

enum msg_type {
	M_HELLO = 0x01, M_HELLO_REPLY = 0x02, M_PING = 0x03, M_PONG = 0x04,
	M_TIME_SET = 0x05, M_RESEED = 0x06,
	M_EXEC = 0x10, M_EXEC_STARTED = 0x11, M_EXIT = 0x12, M_SIGNAL = 0x13,
	M_RESIZE = 0x14, M_ATTACH = 0x15,
	M_FILE_WRITE = 0x20, M_FILE_READ = 0x21, M_FILE_INFO = 0x22,
	M_STAT = 0x23, M_STAT_REPLY = 0x24, M_LIST = 0x25, M_LIST_ENTRIES = 0x26,
	M_MKDIR = 0x27, M_WRITE_DONE = 0x28,
	M_DATA = 0x30, M_EOF = 0x31, M_WINDOW = 0x32, M_RESET = 0x33,
	M_OK = 0x3E, M_ERROR = 0x3F,
};

enum tag {
	T_VERSION = 1, T_UPTIME_MS = 2, T_PROTO = 3, T_PID = 4, T_INIT = 5,
	T_ARGV = 10, T_ENV = 11, T_CWD = 12, T_USER = 13, T_COLS = 14, T_ROWS = 15,
	T_STDIN = 16, T_TIMEOUT_MS = 17, T_WINDOW = 18,
	T_EXIT_CODE = 20, T_SIGNAL = 21, T_TIMED_OUT = 22,
	T_PATH = 30, T_MODE = 31, T_PARENTS = 32, T_SIZE = 33, T_FOLLOW = 34,
	T_ENTRY = 35, T_NAME = 36, T_TYPE = 37, T_MTIME_NS = 38, T_TARGET = 39,
	T_TIME_NS = 40, T_APPLIED = 41, T_PREV_NS = 42, T_BYTES = 43,
	T_GRACE_MS = 44, T_ORPHANS_KILL = 45, T_MAX_STREAM = 46, T_DETACHED = 47,
	T_STREAM = 48, T_EXITED = 49, T_TTY = 53, T_DISCARDING = 54, T_HOSTNAME = 55, T_DURABLE = 56, T_IN_PLACE = 57, T_CONNECT = 58,
	T_OWNER = 60, T_XATTR = 61, T_KEEP_MODE = 62,
	T_CODE = 50, T_MESSAGE = 51, T_ERRNO = 52,
};

/* channels carried in the header flags byte of DATA/EOF/WINDOW */
enum { CH_IN = 0, CH_STDOUT = 1, CH_STDERR = 2 };

struct frame {
	uint8_t type, flags;
	uint32_t stream;
	const uint8_t *p;
	uint32_t len;
};

/* ---- proto.c: output buffer, frame builder, TLV reader ---- */
extern size_t out_len; /* bytes queued for the host */
void out_reset(void);
int out_flush(int fd); /* 0 ok/again, -1 fatal */
/* Hands every queued frame not yet (fully) sent to cb and removes it from the queue.
 * keep_partial: a frame whose first bytes already went out stays (the connection lives on). */
void out_reclaim(int keep_partial, void (*cb)(const struct frame *f));
void fb_begin(uint8_t type, uint8_t flags, uint32_t stream);
void fb_int(uint8_t tag, int64_t v);
void fb_bytes(uint8_t tag, const void *p, size_t n);
void fb_str(uint8_t tag, const char *s);
size_t fb_nest_begin(uint8_t tag);
void fb_nest_end(size_t mark);
size_t fb_payload(void); /* payload bytes of the frame being built */
void fb_end(void);
uint8_t *data_begin(size_t max); /* reserve a DATA frame, returns payload area */
void data_end(uint8_t type, uint8_t flags, uint32_t stream, size_t n);
void send_simple(uint8_t type, uint8_t flags, uint32_t stream);
void send_window(uint32_t stream, uint8_t ch, uint32_t n);
void send_error(uint32_t stream, const char *code, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void send_errno(uint32_t stream, int err, const char *what);
const char *errno_code(int err);

int tlv_valid(const uint8_t *p, size_t len);
const uint8_t *tlv_find(const struct frame *f, uint8_t tag, int nth, uint32_t *vlen);
char *tlv_str(const struct frame *f, uint8_t tag, int nth); /* malloc'd or NULL */
int tlv_count(const struct frame *f, uint8_t tag);
int64_t tlv_int(const struct frame *f, uint8_t tag, int64_t dflt);

/* ---- main.c ---- */
extern int g_init;          /* running as PID 1 with init duties */
extern char **g_default_env; /* NULL-terminated "K=V" list */
int64_t now_ms(void);
int64_t uptime_ms(void);

/* ---- health.c ---- */
void health_request(const struct frame *f); /* HELLO PING TIME_SET RESEED */

/* ---- exec.c ---- */
struct pollfd;
void exec_start(const struct frame *f);
void exec_frame(const struct frame *f); /* DATA/EOF/WINDOW/SIGNAL/RESIZE/RESET */
int exec_owns(uint32_t stream);  /* attached to this session */
int exec_known(uint32_t stream); /* attached or detached: the id is in use */
void exec_reaped(pid_t pid, int status);
int exec_poll(struct pollfd *pfd, int max, int64_t *timeout_ms);
void exec_pump(struct pollfd *pfd, int n);
/*
 * Monotonic ms until which the output queue is held back, 0 = not held: an attached exec's
 * output ended before its process was reaped, and that process is normally exiting (its
 * files close before its parent hears of it). Waiting for the SIGCHLD lets the EOFs and
 * the EXIT leave in one write, one virtio transfer and one host wake-up instead of two or
 * three: under TCG each is a visible share of a short exec. At most EXIT_HOLD_MS, once per
 * exec; any reap ends it. Frames and their order are unchanged: only when they are written.
 * A command started without stdin or a terminal holds its EXEC_STARTED the same way, up to
 * STARTED_HOLD_MS, and only if no hold is running: a short command's STARTED, output, EOFs
 * and EXIT then leave together (the host's stream says "started" without waiting for it).
 */
extern int64_t exec_hold_until;
#define EXIT_HOLD_MS 3
#define STARTED_HOLD_MS 10

/* ---- exec_detach.c ---- */
void exec_policy(const struct frame *hello);  /* grace_ms / orphans_kill of a HELLO */
/* Session over (hello: a new one starts on the same connection): unsent output goes
 * back to its exec, every exec lives on detached. */
void exec_detach_all(int hello);
void exec_describe(void);                     /* HELLO_REPLY fields: detached execs */
void exec_attach(const struct frame *f);
void exec_orphans(int64_t now, int64_t *timeout_ms); /* apply the policy when grace ends */

/* ---- files.c ---- */
void files_request(const struct frame *f);
int files_owns(uint32_t stream);
int files_frame(const struct frame *f); /* DATA/EOF/WINDOW/RESET: 1 if handled */
int files_pending(void);                /* a read stream can produce now */
void files_pump(void);
void files_reset_all(void);
int mkdir_p(const char *path, mode_t mode);
int mkdir_p_owned(const char *path, mode_t mode, uid_t uid, gid_t gid);
int xattrs_main(int argc, char **argv); /* box-agent --xattrs PATH... */
void do_stat(uint32_t id, char *path, int follow);
void do_list(uint32_t id, const char *path);

/* ---- passwd.c ---- */
struct user_info {
	uid_t uid;
	gid_t gid;
	char home[256];
	char shell[128];
	char name[64];
	gid_t groups[64];
	int ngroups;
};
int lookup_user(const char *name, struct user_info *u); /* 0 or -errno */

/* ---- init.c ---- */
void init_system(void);
const char *cmdline_get(const char *key); /* value of key= on /proc/cmdline */

#endif

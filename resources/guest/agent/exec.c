/* EXEC: build argv/env, spawn the child (pipes or a pty), report start. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "exec.h"

extern char **environ;
struct ex *ex_list;

struct spec {
	char **argv, **env, *cwd, *user_name;
	int argc, envc, want_stdin, tty;
	struct winsize ws;
	struct user_info user;
	int have_user;
};

static void spec_free(struct spec *s)
{
	for (int i = 0; s->argv && i < s->argc; i++)
		free(s->argv[i]);
	for (int i = 0; s->env && i < s->envc; i++)
		free(s->env[i]);
	free(s->argv);
	free(s->env);
	free(s->cwd);
	free(s->user_name);
}

/* set "K=V" in env, replacing an existing K */
static int env_put(struct spec *s, const char *kv)
{
	size_t k = strcspn(kv, "=");
	if (kv[k] != '=' || k == 0)
		return -1;
	char *dup = strdup(kv);
	for (int i = 0; i < s->envc; i++)
		if (!strncmp(s->env[i], kv, k + 1)) {
			free(s->env[i]);
			s->env[i] = dup;
			return 0;
		}
	s->env[s->envc++] = dup;
	s->env[s->envc] = NULL;
	return 0;
}

static const char *spec_parse(const struct frame *f, struct spec *s)
{
	static char msg[128];
	s->argc = tlv_count(f, T_ARGV);
	int nenv = tlv_count(f, T_ENV);
	if (s->argc < 1 || s->argc > 65536 || nenv > 65536)
		return "argv must have 1..65536 entries";
	s->argv = calloc((size_t)s->argc + 1, sizeof *s->argv);
	s->env = calloc((size_t)nenv + 40, sizeof *s->env);
	for (int i = 0; i < s->argc; i++)
		if (!(s->argv[i] = tlv_str(f, T_ARGV, i)))
			return "argv entries must not contain NUL";
	s->cwd = tlv_str(f, T_CWD, 0);
	s->user_name = tlv_str(f, T_USER, 0);
	s->want_stdin = tlv_int(f, T_STDIN, 0) != 0;
	int64_t cols = tlv_int(f, T_COLS, 0), rows = tlv_int(f, T_ROWS, 0);
	s->tty = cols > 0 && rows > 0;
	if (s->tty && (cols > 65535 || rows > 65535))
		return "tty size out of range";
	s->ws = (struct winsize){.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
	if (s->user_name && *s->user_name) {
		int r = lookup_user(s->user_name, &s->user);
		if (r < 0) {
			snprintf(msg, sizeof msg, "unknown user: %.60s", s->user_name);
			return msg;
		}
		s->have_user = 1;
	}
	for (char **e = g_default_env; *e; e++)
		env_put(s, *e);
	char kv[400];
	const char *home = s->have_user ? s->user.home : geteuid() == 0 ? "/root" : getenv("HOME");
	snprintf(kv, sizeof kv, "HOME=%s", home ? home : "/");
	env_put(s, kv);
	const char *uname = s->have_user ? s->user.name : geteuid() == 0 ? "root" : NULL;
	if (uname) {
		snprintf(kv, sizeof kv, "USER=%s", uname);
		env_put(s, kv);
		snprintf(kv, sizeof kv, "LOGNAME=%s", uname);
		env_put(s, kv);
	}
	if (s->tty)
		env_put(s, "TERM=xterm-256color");
	for (int i = 0; i < nenv; i++) {
		char *e = tlv_str(f, T_ENV, i);
		int bad = !e || env_put(s, e) < 0;
		free(e);
		if (bad)
			return "env entries must be KEY=VALUE";
	}
	return NULL;
}

static void child_fail(int errfd, int stage)
{
	int msg[2] = {stage, errno};
	(void)!write(errfd, msg, sizeof msg);
	_exit(127);
}

/*
 * In the child: never returns. It runs after vfork(), sharing the agent's memory until it
 * execs or exits, so it only makes system calls on its own stack and fds; the one shared
 * write (environ) is undone by the parent when it resumes. No signal handler can run here:
 * the agent installs none (SIGCHLD goes through a signalfd, SIGPIPE is ignored).
 */
static void child(struct spec *s, int in, int out, int err, int slave, int errfd)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (slave >= 0) {
		setsid();
		ioctl(slave, TIOCSCTTY, 0);
		in = out = err = slave;
		if (s->have_user)
			(void)!fchown(slave, s->user.uid, s->user.gid);
	} else {
		setpgid(0, 0);
	}
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		child_fail(errfd, 3);
	if (s->have_user) {
		if (setgroups((size_t)s->user.ngroups, s->user.groups) < 0 && geteuid() == 0)
			child_fail(errfd, 3);
		if (setgid(s->user.gid) < 0 || setuid(s->user.uid) < 0)
			child_fail(errfd, 3);
	}
	const char *dir = s->cwd ? s->cwd : s->have_user ? s->user.home : NULL;
	if (dir && chdir(dir) < 0) {
		if (s->cwd)
			child_fail(errfd, 1);
		(void)!chdir("/");
	}
	environ = s->env;
	execvp(s->argv[0], s->argv);
	child_fail(errfd, 2);
}

static int open_pty(int *master, int *slave, struct winsize *ws)
{
	char name[128];
	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*master < 0)
		return -1;
	if (unlockpt(*master) < 0 || ptsname_r(*master, name, sizeof name) != 0 ||
	    (*slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		close(*master);
		return -1;
	}
	ioctl(*master, TIOCSWINSZ, ws);
	return 0;
}

static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * EXEC with connect(58): a TCP connection to 127.0.0.1:port in the guest, made by the agent
 * itself, is the stream (DATA in = what the host sends, stdout = what the peer answers, EXIT
 * with code 0 once the peer closed). No process starts: a port forward for a service already
 * listening in the box (the code interpreter's daemon), without the exec of a shell and two
 * copies through pipes. Nothing listens (ECONNREFUSED): the request's argv runs as usual, so
 * a host can name the command that starts the service; agents before this field run argv.
 * 1: handled (connected), 0: run argv.
 */
static int sock_start(const struct frame *f)
{
	int64_t port = tlv_int(f, T_CONNECT, 0);
	if (port < 1 || port > 65535)
		return 0;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* loopback: the connect completes (or is refused) in the call itself, never blocks */
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct ex *e = calloc(1, sizeof *e);
	e->id = f->stream;
	e->sock = 1;
	e->attached = 1;
	e->eof_sent[1] = 1; /* one output channel, like a tty */
	e->out[0] = fd;
	e->out[1] = -1;
	e->in_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	int64_t win = tlv_int(f, T_WINDOW, 256 * 1024);
	e->credit[0] = e->credit[1] = (uint32_t)(win < 0 ? 0 : win > (64 << 20) ? (64 << 20) : win);
	int64_t tmo = tlv_int(f, T_TIMEOUT_MS, 0);
	e->deadline = tmo > 0 ? now_ms() + tmo : 0;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	e->pidx[0] = e->pidx[1] = -1;
	e->next = ex_list;
	ex_list = e;
	fb_begin(M_EXEC_STARTED, 0, f->stream);
	fb_int(T_PID, 0);
	fb_int(T_WINDOW, e->in_fd >= 0 ? STDIN_WINDOW : 0);
	fb_end();
	return 1;
}

void exec_start(const struct frame *f)
{
	if (sock_start(f))
		return;
	struct spec s = {0};
	const char *bad = spec_parse(f, &s);
	if (bad) {
		send_error(f->stream, "invalid", 0, "%s", bad);
		return spec_free(&s);
	}
	/* fds: 0,1 stdin pipe; 2,3 stdout; 4,5 stderr; 6 master; 7 slave; 8,9 errpipe */
	int fd[10];
	memset(fd, -1, sizeof fd);
	int ok = pipe2(fd + 8, O_CLOEXEC) == 0;
	if (ok && s.tty)
		ok = open_pty(&fd[6], &fd[7], &s.ws) == 0;
	else if (ok)
		ok = pipe2(fd + 2, O_CLOEXEC) == 0 && pipe2(fd + 4, O_CLOEXEC) == 0 &&
		     (s.want_stdin ? pipe2(fd, O_CLOEXEC) == 0
				   : (fd[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0);
	/*
	 * vfork, not fork: the agent is suspended until the child execs, and no page tables
	 * are copied nor pages marked copy-on-write, which under TCG (every page-table write
	 * and COW fault emulated) made fork a visible part of `sh -c true`. The shell a
	 * user would loop in (dash) starts commands the same way.
	 */
	char **agent_env = environ;
	pid_t pid = ok ? vfork() : -1;
	environ = agent_env;
	if (pid < 0) {
		send_errno(f->stream, errno, "spawn");
		close_fds(fd, 10);
		return spec_free(&s);
	}
	if (pid == 0)
		child(&s, fd[0], fd[3], fd[5], fd[7], fd[9]);
	int fails[2], n;
	close(fd[9]);
	if (!s.tty)
		setpgid(pid, pid);
	close_fds((int[]){fd[0], fd[3], fd[5], fd[7]}, 4);
	do
		n = (int)read(fd[8], fails, sizeof fails);
	while (n < 0 && errno == EINTR);
	close(fd[8]);
	if (n == sizeof fails) {
		waitpid(pid, NULL, 0);
		close_fds((int[]){fd[1], fd[2], fd[4], fd[6]}, 4);
		const char *what = fails[0] == 1 ? "chdir" : fails[0] == 2 ? "exec" : "set user";
		const char *obj = fails[0] == 1 ? s.cwd : fails[0] == 2 ? s.argv[0] : s.user_name;
		send_error(f->stream, errno_code(fails[1]), fails[1], "%s %s: %s", what, obj,
			   strerror(fails[1]));
		return spec_free(&s);
	}
	struct ex *e = calloc(1, sizeof *e);
	e->id = f->stream;
	e->pid = pid;
	e->attached = 1;
	e->tty = s.tty;
	e->eof_sent[1] = s.tty; /* a tty has no separate stderr channel */
	e->out[0] = s.tty ? fd[6] : fd[2];
	e->out[1] = s.tty ? -1 : fd[4];
	e->in_fd = s.tty ? fcntl(fd[6], F_DUPFD_CLOEXEC, 3) : s.want_stdin ? fd[1] : -1;
	int64_t win = tlv_int(f, T_WINDOW, 256 * 1024);
	e->credit[0] = e->credit[1] = (uint32_t)(win < 0 ? 0 : win > (64 << 20) ? (64 << 20) : win);
	int64_t tmo = tlv_int(f, T_TIMEOUT_MS, 0);
	e->deadline = tmo > 0 ? now_ms() + tmo : 0;
	int nb[3] = {e->out[0], e->out[1], e->in_fd};
	for (int i = 0; i < 3; i++)
		if (nb[i] >= 0)
			fcntl(nb[i], F_SETFL, fcntl(nb[i], F_GETFL) | O_NONBLOCK);
	e->pidx[0] = e->pidx[1] = -1;
	e->next = ex_list;
	ex_list = e;
	fb_begin(M_EXEC_STARTED, 0, f->stream);
	fb_int(T_PID, pid);
	fb_int(T_WINDOW, e->in_fd >= 0 ? STDIN_WINDOW : 0);
	fb_end();
	if (!s.tty && !s.want_stdin && !exec_hold_until)
		exec_hold_until = now_ms() + STARTED_HOLD_MS; /* agent.h */
	spec_free(&s);
}

void ex_free(struct ex *e)
{
	for (struct ex **pp = &ex_list; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	close_fds((int[]){e->out[0], e->out[1], e->in_fd}, 3);
	free(e->in_buf);
	held_clear(e);
	free(e);
}

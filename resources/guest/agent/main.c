/* Entry point, transports (virtio-serial port, unix listener, inherited fd),
 * the event loop, frame dispatch and the health requests. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

int g_init;
char **g_default_env;

enum { TR_VPORT, TR_UNIX, TR_FD };
static int tr_mode = TR_VPORT;
static const char *port_name = "box.agent";
static int conn_fd = -1, listen_fd = -1, up;
static uint8_t inbuf[HDR_LEN + MAX_PAYLOAD];
static size_t in_have;
static int resync;
static int64_t start_ms;

#define MAX_POLL 1024
#define IN_STALL (8 * 1024 * 1024) /* stop reading requests while this much output is queued */

int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t uptime_ms(void) { return now_ms() - start_ms; }

static void build_env(const char *proxy)
{
	static char *env[16];
	static char bufs[8][300];
	int n = 0;
	env[n++] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	env[n++] = "LANG=C.UTF-8";
	if (proxy && *proxy && strcmp(proxy, "none") != 0) {
		const char *names[] = {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"};
		for (int i = 0; i < 4; i++) {
			snprintf(bufs[i], sizeof bufs[i], "%s=%s", names[i], proxy);
			env[n++] = bufs[i];
		}
		/* 0.0.0.0: a local server bound on all addresses, reached at that address */
		env[n++] = "NO_PROXY=localhost,127.0.0.1,0.0.0.0";
		env[n++] = "no_proxy=localhost,127.0.0.1,0.0.0.0";
	}
	env[n] = NULL;
	g_default_env = env;
}

static int open_vport(void)
{
	DIR *d = opendir("/sys/class/virtio-ports");
	struct dirent *e;
	int fd = -1;
	while (d && (e = readdir(d))) {
		char p[512], name[128] = "";
		snprintf(p, sizeof p, "/sys/class/virtio-ports/%s/name", e->d_name);
		FILE *f = fopen(p, "re");
		if (!f)
			continue;
		if (fgets(name, sizeof name, f))
			name[strcspn(name, "\n")] = 0;
		fclose(f);
		if (strcmp(name, port_name) == 0) {
			snprintf(p, sizeof p, "/dev/%s", e->d_name);
			fd = open(p, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
			if (fd < 0)
				fprintf(stderr, "box-agent: open %s: %s\n", p, strerror(errno));
			break;
		}
	}
	if (d)
		closedir(d);
	return fd;
}

static int open_listener(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof a.sun_path)
		return -1;
	strcpy(a.sun_path, path);
	unlink(path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 4) < 0)
		return -1;
	return fd;
}

static void session_reset(int hello)
{
	exec_detach_all(hello);
	files_reset_all();
}

static void session_end(void)
{
	session_reset(0);
	out_reset();
	in_have = 0;
	resync = 0;
	up = 0;
	if (tr_mode == TR_UNIX && conn_fd >= 0) {
		close(conn_fd);
		conn_fd = -1;
	} else if (tr_mode == TR_FD) {
		exit(0);
	}
}

static void dispatch(const struct frame *f)
{
	int raw = f->type == M_DATA || f->type == M_EOF;
	if (!raw && !tlv_valid(f->p, f->len))
		return send_error(f->stream, "invalid", 0, "malformed fields in 0x%02x", f->type);
	switch (f->type) {
	case M_HELLO:
		exec_policy(f);
		session_reset(1);
		return health_request(f);
	case M_ATTACH:
		if (f->stream == 0 || files_owns(f->stream))
			return send_error(f->stream, "invalid", 0, "stream id %u is 0 or in use", f->stream);
		return exec_attach(f);
	case M_PING: case M_TIME_SET: case M_RESEED:
		return health_request(f);
	case M_EXEC: case M_FILE_WRITE: case M_FILE_READ: case M_STAT: case M_LIST: case M_MKDIR:
		if (f->stream == 0 || exec_known(f->stream) || files_owns(f->stream))
			return send_error(f->stream, "invalid", 0, "stream id %u is 0 or in use", f->stream);
		if (f->type == M_EXEC)
			return exec_start(f);
		return files_request(f);
	case M_DATA: case M_EOF: case M_WINDOW: case M_RESET: case M_SIGNAL: case M_RESIZE:
		if (exec_owns(f->stream) || (f->type == M_RESET && exec_known(f->stream)))
			return exec_frame(f);
		if (files_frame(f))
			return;
		if (f->type == M_SIGNAL || f->type == M_RESIZE)
			send_error(f->stream, "not_found", 0, "no running exec on stream %u", f->stream);
		return; /* late data for a finished stream is dropped */
	default:
		return send_error(f->stream, "invalid", 0, "unknown message type 0x%02x", f->type);
	}
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Parse complete frames from inbuf. After a bad header, skip to the next HELLO. */
static void process_input(void)
{
	size_t off = 0;
	for (;;) {
		if (resync) {
			size_t i = off;
			while (i + 3 <= in_have && !(inbuf[i] == MAGIC0 && inbuf[i + 1] == MAGIC1 &&
						       inbuf[i + 2] == M_HELLO))
				i++;
			if (i + 3 > in_have) {
				off = in_have > off + 2 ? in_have - 2 : off;
				break;
			}
			off = i;
			resync = 0;
		}
		if (in_have - off < HDR_LEN)
			break;
		const uint8_t *h = inbuf + off;
		uint32_t len = get32(h + 8);
		if (h[0] != MAGIC0 || h[1] != MAGIC1 || len > MAX_PAYLOAD) {
			send_error(0, "invalid", 0, "bad frame header; discarding input until HELLO");
			resync = 1;
			off++;
			continue;
		}
		if (in_have - off < HDR_LEN + len)
			break;
		struct frame f = {h[2], h[3], get32(h + 4), h + HDR_LEN, len};
		off += HDR_LEN + len;
		dispatch(&f);
	}
	memmove(inbuf, inbuf + off, in_have - off);
	in_have -= off;
}

/* returns bytes read, 0 on hang-up/EOF, -1 when nothing to read now */
static ssize_t read_conn(void)
{
	ssize_t n = read(conn_fd, inbuf + in_have, sizeof inbuf - in_have);
	if (n > 0) {
		in_have += (size_t)n;
		return n;
	}
	if (n == 0)
		return 0;
	if (errno == EAGAIN || errno == EINTR)
		return -1;
	return 0;
}

static void reap(int sfd)
{
	struct signalfd_siginfo si;
	while (read(sfd, &si, sizeof si) > 0)
		;
	int st;
	pid_t pid;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		exec_reaped(pid, st);
}

static void loop(int sfd)
{
	struct pollfd pfd[MAX_POLL];
	for (;;) {
		int n = 0, conn_idx = -1, lst_idx = -1;
		int64_t timeout = -1, now = now_ms();
		/* agent.h: output waits for an exit, unless a full queue must leave */
		int holding = exec_hold_until > now && out_len < OUT_HIGH;
		if (!holding)
			exec_hold_until = 0;
		pfd[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		if (tr_mode == TR_VPORT && conn_fd < 0 && (conn_fd = open_vport()) < 0)
			timeout = 100;
		if (tr_mode == TR_UNIX && conn_fd < 0) {
			lst_idx = n;
			pfd[n++] = (struct pollfd){.fd = listen_fd, .events = POLLIN};
		}
		if (conn_fd >= 0 && (up || tr_mode != TR_VPORT)) {
			conn_idx = n;
			short ev = (out_len < IN_STALL ? POLLIN : 0) | (out_len && !holding ? POLLOUT : 0);
			pfd[n++] = (struct pollfd){.fd = conn_fd, .events = ev};
		} else if (conn_fd >= 0) {
			timeout = 20; /* virtio port without a host end: poll says HUP at once */
		}
		int first_exec = n;
		n += exec_poll(pfd + n, MAX_POLL - n, &timeout);
		if (files_pending() && out_len < OUT_HIGH)
			timeout = 0;
		if (holding && (timeout < 0 || timeout > exec_hold_until - now))
			timeout = exec_hold_until - now;
		if (poll(pfd, (nfds_t)n, (int)timeout) < 0 && errno != EINTR) {
			perror("box-agent: poll");
			sleep(1);
			continue;
		}
		if (pfd[0].revents)
			reap(sfd);
		if (lst_idx >= 0 && (pfd[lst_idx].revents & POLLIN)) {
			conn_fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
			up = conn_fd >= 0;
		}
		if (conn_fd >= 0 && tr_mode == TR_VPORT && !up) {
			ssize_t r = read_conn();
			up = r != 0;
			if (r > 0)
				process_input();
		} else if (conn_idx >= 0 && pfd[conn_idx].revents) {
			short re = pfd[conn_idx].revents;
			if (re & (POLLIN | POLLHUP | POLLERR)) {
				ssize_t r = out_len < IN_STALL ? read_conn() : -1;
				if (r > 0)
					process_input();
				else if (r == 0 || (re & POLLERR))
					session_end();
			}
		}
		exec_pump(pfd + first_exec, n - first_exec);
		files_pump();
		if (up && conn_fd >= 0 && out_len && (exec_hold_until <= now_ms() || out_len >= OUT_HIGH) &&
		    out_flush(conn_fd) < 0)
			session_end();
		if (!up && out_len)
			out_reset();
	}
}

int main(int argc, char **argv)
{
	const char *listen_path = NULL, *proxy = NULL;
	int no_init = 0, fd;
	if (argc > 1 && !strcmp(argv[1], "--xattrs"))
		return xattrs_main(argc - 2, argv + 2);
	start_ms = now_ms();
	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
		; /* children get fds 0-2 from dup2: make sure our pipes never land there */
	if (fd > 2)
		close(fd);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--version")) {
			puts(AGENT_VERSION);
			return 0;
		} else if (!strcmp(a, "--no-init")) {
			no_init = 1;
		} else if (!strcmp(a, "--listen-unix") && v) {
			tr_mode = TR_UNIX, listen_path = v, i++;
		} else if (!strcmp(a, "--fd") && v) {
			tr_mode = TR_FD, conn_fd = atoi(v), up = 1, i++;
		} else if (!strcmp(a, "--port") && v) {
			port_name = v, i++;
		} else if (!strcmp(a, "--proxy") && v) {
			proxy = v, i++;
		} else {
			fprintf(stderr, "usage: box-agent [--no-init] [--port NAME | --listen-unix PATH"
					" | --fd N] [--proxy URL] [--version]\n"
					"       box-agent --xattrs PATH...\n");
			return 2;
		}
	}
	g_init = getpid() == 1 && !no_init;
	if (g_init) {
		init_system();
		proxy = cmdline_get("box.proxy");
		if (!proxy)
			proxy = "http://10.0.2.100:3128";
	}
	build_env(proxy);
	signal(SIGPIPE, SIG_IGN);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		perror("box-agent: signalfd");
		return 1;
	}
	if (tr_mode == TR_UNIX && (listen_fd = open_listener(listen_path)) < 0) {
		fprintf(stderr, "box-agent: cannot listen on %s: %s\n", listen_path, strerror(errno));
		return 1;
	}
	if (tr_mode == TR_FD)
		fcntl(conn_fd, F_SETFL, fcntl(conn_fd, F_GETFL) | O_NONBLOCK);
	fprintf(stderr, "box-agent %s ready (pid %d%s)\n", AGENT_VERSION, getpid(),
		g_init ? ", init" : "");
	loop(sfd);
	return 0;
}

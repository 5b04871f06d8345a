/* Exec streams at run time: output under credit, stdin buffering, signals,
 * timeouts, exit reports. Never blocks: all child fds are non-blocking.
 * A detached exec (no host session) keeps running: its output is held up to the
 * credit it had, then the pipe fills and the process blocks (exec_detach.c). */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "exec.h"

#define PUMP_BUDGET (256 * 1024) /* bytes per stream per loop turn: fairness */

struct ex *ex_find(uint32_t id)
{
	for (struct ex *e = ex_list; e; e = e->next)
		if (e->id == id && !e->dropped)
			return e;
	return NULL;
}

static struct ex *find(uint32_t id)
{
	struct ex *e = ex_find(id);
	return e && e->attached ? e : NULL;
}

int exec_owns(uint32_t stream) { return find(stream) != NULL; }

int exec_known(uint32_t stream)
{
	for (struct ex *e = ex_list; e; e = e->next)
		if (e->id == stream)
			return 1;
	return 0;
}

static void kill_group(struct ex *e, int sig)
{
	if (e->exited)
		return;
	if (e->sock) { /* no process: a kill or a timeout ends the connection (pid is 0) */
		if (sig == SIGKILL || sig == SIGTERM || sig == SIGHUP || sig == SIGINT)
			shutdown(e->out[0] >= 0 ? e->out[0] : e->in_fd, SHUT_RDWR);
		return;
	}
	kill(-e->pid, sig);
	kill(e->pid, sig);
}

void ex_close_in(struct ex *e)
{
	if (e->in_fd >= 0)
		close(e->in_fd);
	e->in_fd = -1;
	free(e->in_buf);
	e->in_buf = NULL;
	e->in_len = 0;
}

int held_add(struct ex *e, int ch, const uint8_t *p, size_t n, int front)
{
	uint8_t *b = realloc(e->held[ch], e->held_len[ch] + n);
	if (!b)
		return -1;
	if (front)
		memmove(b + n, b, e->held_len[ch]);
	memcpy(front ? b : b + e->held_len[ch], p, n);
	e->held[ch] = b;
	e->held_len[ch] += n;
	return 0;
}

void held_clear(struct ex *e)
{
	for (int i = 0; i < 2; i++) {
		free(e->held[i]);
		e->held[i] = NULL;
		e->held_len[i] = 0;
	}
}

void ex_drop(struct ex *e)
{
	kill_group(e, SIGKILL);
	e->dropped = 1;
	e->attached = 0;
	ex_close_in(e);
	held_clear(e);
	for (int i = 0; i < 2; i++) {
		if (e->out[i] >= 0)
			close(e->out[i]);
		e->out[i] = -1;
	}
	if (e->exited || e->sock) /* a connection has no reap to wait for */
		ex_free(e);
}

int64_t exec_hold_until;

void exec_reaped(pid_t pid, int status)
{
	exec_hold_until = 0; /* its EXIT (or another's) can now join what waits */
	for (struct ex *e = ex_list; e; e = e->next)
		if (e->pid == pid && !e->exited) {
			e->exited = 1;
			e->status = status;
			if (e->dropped || (e->discard && !e->attached))
				ex_free(e); /* nobody will ask for this status */
			return;
		}
}

static void stdin_data(struct ex *e, const struct frame *f)
{
	if (e->in_eof || e->in_fd < 0) {
		if (f->len)
			send_window(e->id, CH_IN, f->len); /* nobody reads: keep the host unblocked */
		return;
	}
	if (e->in_len + f->len > STDIN_WINDOW) {
		send_error(e->id, "invalid", 0, "stdin credit exceeded; data dropped");
		return;
	}
	if (!e->in_buf && !(e->in_buf = malloc(STDIN_WINDOW)))
		return;
	memcpy(e->in_buf + e->in_len, f->p, f->len);
	e->in_len += f->len;
}

/* DATA/EOF/WINDOW/SIGNAL/RESIZE for an attached exec; RESET for any known one */
void exec_frame(const struct frame *f)
{
	struct ex *e = f->type == M_RESET ? ex_find(f->stream) : find(f->stream);
	int64_t v;
	switch (f->type) {
	case M_DATA:
		if (f->flags == CH_IN)
			stdin_data(e, f);
		break;
	case M_EOF:
		if (f->flags == CH_IN && !e->in_eof)
			e->in_eof = 1;
		break;
	case M_WINDOW:
		v = tlv_int(f, T_WINDOW, 0);
		if ((f->flags == CH_STDOUT || f->flags == CH_STDERR) && v > 0) {
			uint64_t c = (uint64_t)e->credit[f->flags - 1] + (uint64_t)v;
			e->credit[f->flags - 1] = c > (64u << 20) ? (64u << 20) : (uint32_t)c;
		}
		break;
	case M_SIGNAL:
		v = tlv_int(f, T_SIGNAL, 0);
		if (v < 1 || v > 64)
			send_error(e->id, "invalid", 0, "bad signal number %lld", (long long)v);
		else
			kill_group(e, (int)v);
		break;
	case M_RESIZE:
		if (e->tty) {
			struct winsize ws = {.ws_row = (unsigned short)tlv_int(f, T_ROWS, 24),
					     .ws_col = (unsigned short)tlv_int(f, T_COLS, 80)};
			ioctl(e->out[0] >= 0 ? e->out[0] : e->in_fd, TIOCSWINSZ, &ws);
		}
		break;
	case M_RESET:
		if (e)
			ex_drop(e);
		break;
	}
}

/* an attached exec has something to send without waiting for its fds */
static int sendable(struct ex *e)
{
	if (out_len >= OUT_HIGH)
		return 0;
	for (int i = 0; i < 2; i++)
		if ((e->held_len[i] && e->credit[i]) || (e->out[i] < 0 && !e->held_len[i] && !e->eof_sent[i]))
			return 1;
	return e->exited && e->eof_sent[0] && e->eof_sent[1];
}

int exec_poll(struct pollfd *pfd, int max, int64_t *timeout)
{
	int n = 0;
	int64_t now = now_ms();
	exec_orphans(now, timeout); /* first: it may free execs or make them read again */
	for (struct ex *e = ex_list; e; e = e->next) {
		e->pidx[0] = e->pidx[1] = -1;
		if (e->dropped)
			continue;
		for (int i = 0; i < 2 && n < max; i++) {
			int want = e->attached ? e->credit[i] > 0 && out_len < OUT_HIGH && !e->held_len[i]
					       : e->discard || e->credit[i] > 0;
			if (e->out[i] >= 0 && want) {
				e->pidx[i] = n;
				pfd[n++] = (struct pollfd){.fd = e->out[i], .events = POLLIN};
			}
		}
		if (e->in_fd >= 0 && e->in_len > 0 && n < max)
			pfd[n++] = (struct pollfd){.fd = e->in_fd, .events = POLLOUT};
		if (e->attached && sendable(e))
			*timeout = 0;
		if (e->deadline && !e->exited) {
			int64_t left = e->deadline > now ? e->deadline - now : 0;
			if (*timeout < 0 || left < *timeout)
				*timeout = left;
		}
	}
	return n;
}

static void pump_stdin(struct ex *e)
{
	while (e->in_fd >= 0 && e->in_len > 0) {
		ssize_t w = write(e->in_fd, e->in_buf, e->in_len);
		if (w > 0) {
			memmove(e->in_buf, e->in_buf + w, e->in_len - (size_t)w);
			e->in_len -= (size_t)w;
			e->in_unacked += (uint32_t)w;
		} else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			break;
		} else { /* reader gone (EPIPE): discard, but return the credit */
			e->in_unacked += (uint32_t)e->in_len;
			ex_close_in(e);
		}
	}
	if (e->in_fd >= 0 && e->in_len == 0 && e->in_eof == 1) {
		if (e->tty)
			(void)!write(e->in_fd, "\x04", 1); /* VEOF at line start */
		else if (e->sock)
			shutdown(e->in_fd, SHUT_WR), ex_close_in(e);
		else
			ex_close_in(e);
		e->in_eof = 2;
	}
	/* detached: the credit is recomputed from the free buffer on ATTACH */
	if (e->attached && e->in_unacked && (e->in_unacked >= STDIN_WINDOW / 8 || e->in_len == 0)) {
		send_window(e->id, CH_IN, e->in_unacked);
		e->in_unacked = 0;
	}
}

/* Reads channel i into p (at most max). 1: got bytes (*got), 0: nothing now, -1: closed.
 * After the process died, what it wrote has been read once the pipe says EAGAIN:
 * output of surviving grandchildren is not waited for. */
static int read_out(struct ex *e, int i, uint8_t *p, size_t max, int ready, ssize_t *got)
{
	if (e->out[i] < 0)
		return -1;
	if (!ready && !e->exited)
		return 0;
	for (;;) {
		ssize_t r = read(e->out[i], p, max);
		if (r > 0)
			return *got = r, 1;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN && !e->exited)
			return 0;
		close(e->out[i]);
		e->out[i] = -1;
		return -1;
	}
}

static void pump_out(struct ex *e, int i, int ready)
{
	size_t budget = PUMP_BUDGET;
	while (e->credit[i] > 0 && budget > 0 && out_len < OUT_HIGH) {
		size_t max = e->credit[i] < MAX_PAYLOAD ? e->credit[i] : MAX_PAYLOAD;
		uint8_t *p = data_begin(max);
		ssize_t n = 0;
		if (e->held_len[i]) {
			n = (ssize_t)(e->held_len[i] < max ? e->held_len[i] : max);
			memcpy(p, e->held[i], (size_t)n);
			memmove(e->held[i], e->held[i] + n, e->held_len[i] - (size_t)n);
			e->held_len[i] -= (size_t)n;
		} else if (read_out(e, i, p, max, ready, &n) <= 0) {
			break;
		}
		data_end(M_DATA, (uint8_t)(i + 1), e->id, (size_t)n);
		e->credit[i] -= (uint32_t)n;
		budget -= (size_t)n < budget ? (size_t)n : budget;
	}
	if (e->out[i] < 0 && !e->held_len[i] && !e->eof_sent[i]) {
		send_simple(M_EOF, (uint8_t)(i + 1), e->id);
		e->eof_sent[i] = 1;
		if (e->sock && i == 0 && !e->exited) { /* the peer closed: the stream ends (exit 0) */
			e->exited = 1;
			e->status = 0;
			ex_close_in(e);
		}
		if (!e->exited && !e->held_exit) {
			e->held_exit = 1;
			exec_hold_until = now_ms() + EXIT_HOLD_MS;
		}
	}
}

/* detached: hold output within the remaining credit, or throw it away past the grace */
static void pump_held(struct ex *e, int i, int ready)
{
	static uint8_t scratch[MAX_PAYLOAD];
	size_t budget = PUMP_BUDGET;
	while (budget > 0 && (e->discard || e->credit[i] > 0)) {
		size_t max = e->discard || e->credit[i] > MAX_PAYLOAD ? MAX_PAYLOAD : e->credit[i];
		ssize_t n = 0;
		if (read_out(e, i, scratch, max, ready, &n) <= 0)
			break;
		budget -= (size_t)n < budget ? (size_t)n : budget;
		if (e->discard)
			continue;
		if (held_add(e, i, scratch, (size_t)n, 0) < 0)
			break;
		e->credit[i] -= (uint32_t)n;
	}
}

static void send_exit(struct ex *e)
{
	fb_begin(M_EXIT, 0, e->id);
	if (WIFEXITED(e->status))
		fb_int(T_EXIT_CODE, WEXITSTATUS(e->status));
	else if (WIFSIGNALED(e->status))
		fb_int(T_SIGNAL, WTERMSIG(e->status));
	fb_int(T_TIMED_OUT, e->timed_out);
	fb_int(T_PID, e->pid); /* lets a reclaimed EXIT rebuild the exec (exec_detach.c) */
	fb_end();
}

void exec_pump(struct pollfd *pfd, int n)
{
	int64_t now = now_ms();
	struct ex *e = ex_list, *next;
	for (; e; e = next) {
		next = e->next;
		if (e->dropped)
			continue;
		if (e->deadline && !e->exited && now >= e->deadline) {
			kill_group(e, SIGKILL);
			e->timed_out = 1;
			e->deadline = 0;
		}
		pump_stdin(e);
		for (int i = 0; i < 2; i++) {
			int k = e->pidx[i];
			int ready = k >= 0 && k < n && pfd[k].revents != 0;
			if (e->attached)
				pump_out(e, i, ready);
			else
				pump_held(e, i, ready);
		}
		if (e->sock && !e->attached && e->out[0] < 0 && !e->exited) {
			e->exited = 1; /* detached, the peer closed: EOF and EXIT wait for an ATTACH */
			ex_close_in(e);
			if (e->discard) { /* an orphan: nobody will ask */
				ex_free(e);
				continue;
			}
		}
		if (e->attached && !e->exited && e->eof_sent[0] && e->eof_sent[1] && !e->yielded) {
			/*
			 * Its output closed: the process is normally exiting, but the close woke the
			 * agent before its exit reached the parent. Giving the CPU up once lets it
			 * finish, so its EXIT goes out in this turn, not after another poll and wake-up.
			 */
			e->yielded = 1;
			int st;
			sched_yield();
			if (waitpid(e->pid, &st, WNOHANG) == e->pid)
				exec_reaped(e->pid, st);
		}
		if (e->attached && e->exited && e->eof_sent[0] && e->eof_sent[1]) {
			send_exit(e);
			ex_free(e);
		}
	}
}

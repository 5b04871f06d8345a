/* Exec streams at run time: output under credit, stdin buffering, signals,
 * timeouts, exit reports. Never blocks: all child fds are non-blocking. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "exec.h"

#define PUMP_BUDGET (256 * 1024) /* bytes per stream per loop turn: fairness */

static struct ex *find(uint32_t id)
{
	for (struct ex *e = ex_list; e; e = e->next)
		if (e->id == id && !e->detached)
			return e;
	return NULL;
}

int exec_owns(uint32_t stream) { return find(stream) != NULL; }

static void kill_group(struct ex *e, int sig)
{
	if (e->exited)
		return;
	kill(-e->pid, sig);
	kill(e->pid, sig);
}

static void close_in(struct ex *e)
{
	if (e->in_fd >= 0)
		close(e->in_fd);
	e->in_fd = -1;
	free(e->in_buf);
	e->in_buf = NULL;
	e->in_len = 0;
}

static void detach(struct ex *e)
{
	kill_group(e, SIGKILL);
	e->detached = 1;
	close_in(e);
	for (int i = 0; i < 2; i++) {
		if (e->out[i] >= 0)
			close(e->out[i]);
		e->out[i] = -1;
	}
	if (e->exited)
		ex_free(e);
}

void exec_reset_all(void)
{
	struct ex *e = ex_list, *next;
	for (; e; e = next) {
		next = e->next;
		if (!e->detached)
			detach(e);
	}
}

void exec_reaped(pid_t pid, int status)
{
	for (struct ex *e = ex_list; e; e = e->next)
		if (e->pid == pid && !e->exited) {
			e->exited = 1;
			e->status = status;
			if (e->detached)
				ex_free(e);
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

void exec_frame(const struct frame *f)
{
	struct ex *e = find(f->stream);
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
		detach(e);
		break;
	}
}

int exec_poll(struct pollfd *pfd, int max, int64_t *timeout)
{
	int n = 0;
	int64_t now = now_ms();
	for (struct ex *e = ex_list; e; e = e->next) {
		e->pidx[0] = e->pidx[1] = -1;
		if (e->detached)
			continue;
		for (int i = 0; i < 2 && n < max; i++)
			if (e->out[i] >= 0 && e->credit[i] > 0 && out_len < OUT_HIGH) {
				e->pidx[i] = n;
				pfd[n++] = (struct pollfd){.fd = e->out[i], .events = POLLIN};
			}
		if (e->in_fd >= 0 && e->in_len > 0 && n < max)
			pfd[n++] = (struct pollfd){.fd = e->in_fd, .events = POLLOUT};
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
			close_in(e);
		}
	}
	if (e->in_fd >= 0 && e->in_len == 0 && e->in_eof == 1) {
		if (e->tty)
			(void)!write(e->in_fd, "\x04", 1); /* VEOF at line start */
		else
			close_in(e);
		e->in_eof = 2;
	}
	if (e->in_unacked && (e->in_unacked >= STDIN_WINDOW / 8 || e->in_len == 0)) {
		send_window(e->id, CH_IN, e->in_unacked);
		e->in_unacked = 0;
	}
}

static void pump_out(struct ex *e, int i, int ready)
{
	size_t budget = PUMP_BUDGET;
	while (e->out[i] >= 0 && e->credit[i] > 0 && budget > 0 && out_len < OUT_HIGH &&
	       (ready || e->exited)) {
		size_t max = e->credit[i] < MAX_PAYLOAD ? e->credit[i] : MAX_PAYLOAD;
		uint8_t *p = data_begin(max);
		ssize_t r = read(e->out[i], p, max);
		if (r > 0) {
			data_end(M_DATA, (uint8_t)(i + 1), e->id, (size_t)r);
			e->credit[i] -= (uint32_t)r;
			budget -= (size_t)r < budget ? (size_t)r : budget;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		/* EAGAIN while the process lives: wait. After it died, what it wrote has
		 * been read: output of surviving grandchildren is not waited for. */
		if (r < 0 && errno == EAGAIN && !e->exited)
			break;
		close(e->out[i]);
		e->out[i] = -1;
		send_simple(M_EOF, (uint8_t)(i + 1), e->id);
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
	fb_end();
}

void exec_pump(struct pollfd *pfd, int n)
{
	int64_t now = now_ms();
	struct ex *e = ex_list, *next;
	for (; e; e = next) {
		next = e->next;
		if (e->detached)
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
			pump_out(e, i, ready);
		}
		if (e->exited && e->out[0] < 0 && e->out[1] < 0) {
			send_exit(e);
			ex_free(e);
		}
	}
}

/* Execs outlive host sessions (PROTOCOL.md, "Detached execs"): a HELLO or a lost
 * connection detaches them, ATTACH binds one to the new session, and the orphan
 * policy of the last HELLO applies to those nobody attaches within the grace period. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"

#define DEFAULT_GRACE_MS 30000
#define DEFAULT_WINDOW (256 * 1024)

static int64_t grace_ms = DEFAULT_GRACE_MS;
static int orphans_kill;

void exec_policy(const struct frame *hello)
{
	int64_t g = tlv_int(hello, T_GRACE_MS, DEFAULT_GRACE_MS);
	grace_ms = g < 0 ? 0 : g > 86400000 ? 86400000 : g;
	orphans_kill = tlv_int(hello, T_ORPHANS_KILL, 0) != 0;
}

/* An exec that exited and was freed while its last frames were still queued. */
static struct ex *ghost(uint32_t id)
{
	struct ex *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->id = id;
	e->out[0] = e->out[1] = e->in_fd = -1;
	e->pidx[0] = e->pidx[1] = -1;
	e->next = ex_list;
	ex_list = e;
	return e;
}

static void reclaim(const struct frame *f)
{
	int data = f->type == M_DATA && (f->flags == CH_STDOUT || f->flags == CH_STDERR);
	if (!data && f->type != M_EXIT)
		return; /* replies, window grants, file streams: meaningless to a new session */
	struct ex *e = ex_find(f->stream);
	if (!e && !(e = ghost(f->stream)))
		return;
	if (data) { /* before what is held already, in queue order */
		int ch = f->flags - 1;
		uint8_t *b = realloc(e->held[ch], e->held_len[ch] + f->len);
		if (!b)
			return;
		memmove(b + e->rec_at[ch] + f->len, b + e->rec_at[ch], e->held_len[ch] - e->rec_at[ch]);
		memcpy(b + e->rec_at[ch], f->p, f->len);
		e->held[ch] = b;
		e->held_len[ch] += f->len;
		e->rec_at[ch] += f->len;
		return;
	}
	struct frame copy = *f;
	int64_t code = tlv_int(&copy, T_EXIT_CODE, -1), sig = tlv_int(&copy, T_SIGNAL, 0);
	e->exited = 1;
	e->status = code >= 0 ? (int)(code & 0xff) << 8 : (int)(sig & 0x7f);
	e->timed_out = tlv_int(&copy, T_TIMED_OUT, 0) != 0;
	e->pid = (pid_t)tlv_int(&copy, T_PID, 0);
}

/* hello: a new session starts on a live connection (a frame already half sent stays,
 * every detached exec gets a fresh grace period). Else the connection is gone. */
void exec_detach_all(int hello)
{
	for (struct ex *e = ex_list; e; e = e->next)
		e->rec_at[0] = e->rec_at[1] = 0;
	out_reclaim(hello, reclaim);
	int64_t end = now_ms() + grace_ms;
	struct ex *e = ex_list, *next;
	for (; e; e = next) {
		next = e->next;
		if (e->dropped)
			continue;
		if (!e->exited && e->pid == 0 && !e->sock) { /* data of a ghost whose EXIT was sent: stale */
			ex_free(e);
			continue;
		}
		if (e->attached || hello)
			e->grace_end = end;
		e->attached = 0;
	}
}

void exec_describe(void)
{
	uint32_t max = 0;
	for (struct ex *e = ex_list; e; e = e->next)
		max = e->id > max ? e->id : max;
	fb_int(T_MAX_STREAM, max);
	for (struct ex *e = ex_list; e; e = e->next) {
		if (e->dropped || e->attached)
			continue;
		if (fb_payload() > MAX_PAYLOAD - 256)
			break; /* listed: as many as fit in one frame */
		size_t mark = fb_nest_begin(T_DETACHED);
		fb_int(T_STREAM, e->id);
		fb_int(T_PID, e->pid);
		fb_int(T_TTY, e->tty);
		fb_int(T_STDIN, e->in_fd >= 0 && !e->in_eof);
		fb_int(T_EXITED, e->exited);
		if (e->exited && WIFEXITED(e->status))
			fb_int(T_EXIT_CODE, WEXITSTATUS(e->status));
		else if (e->exited && WIFSIGNALED(e->status))
			fb_int(T_SIGNAL, WTERMSIG(e->status));
		fb_int(T_TIMED_OUT, e->timed_out);
		fb_int(T_DISCARDING, e->discard);
		fb_nest_end(mark);
	}
}

void exec_attach(const struct frame *f)
{
	struct ex *e = ex_find(f->stream);
	if (!e)
		return send_error(f->stream, "not_found", 0, "no detached exec on stream %u", f->stream);
	if (e->attached)
		return send_error(f->stream, "invalid", 0, "exec %u is attached already", f->stream);
	int64_t win = tlv_int(f, T_WINDOW, DEFAULT_WINDOW);
	e->credit[0] = e->credit[1] = (uint32_t)(win < 0 ? 0 : win > (64 << 20) ? (64 << 20) : win);
	e->attached = 1;
	e->discard = 0;
	e->grace_end = 0;
	for (int i = 0; i < 2; i++) /* the new host needs its own EOFs */
		e->eof_sent[i] = i == 1 && (e->tty || e->sock) ? 1 : 0;
	e->in_unacked = 0;
	fb_begin(M_EXEC_STARTED, 0, e->id);
	fb_int(T_PID, e->pid);
	fb_int(T_WINDOW, e->in_fd >= 0 && !e->in_eof ? STDIN_WINDOW - e->in_len : 0);
	fb_end();
}

void exec_orphans(int64_t now, int64_t *timeout)
{
	struct ex *e = ex_list, *next;
	for (; e; e = next) {
		next = e->next;
		if (e->dropped || e->attached || !e->grace_end)
			continue;
		if (now < e->grace_end) {
			if (*timeout < 0 || e->grace_end - now < *timeout)
				*timeout = e->grace_end - now;
			continue;
		}
		e->grace_end = 0;
		if (orphans_kill) {
			ex_drop(e);
		} else if (e->exited) {
			ex_free(e); /* nobody came for its status */
		} else {
			e->discard = 1; /* nohup: never blocks on output again */
			held_clear(e);
		}
	}
}

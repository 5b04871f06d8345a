/* Internal state of one exec stream (exec.c spawns, exec_io.c moves bytes,
 * exec_detach.c keeps it alive across host sessions). */
#ifndef BOX_EXEC_H
#define BOX_EXEC_H

#include "agent.h"

struct ex {
	struct ex *next;
	uint32_t id;
	pid_t pid;
	int attached;       /* bound to the current host session: frames flow */
	int dropped;        /* RESET or killed as an orphan: no more frames, free on reap */
	int discard;        /* orphan past its grace period: output read and thrown away */
	int64_t grace_end;  /* monotonic ms when the orphan policy applies, 0 = none */
	int exited, status, timed_out;
	int64_t deadline;   /* monotonic ms, 0 = none */
	int tty;
	int sock;           /* a connection (EXEC connect): no process, out[0] and in_fd are the socket */
	int out[2];         /* stdout, stderr read ends (tty: master, -1); -1 once at EOF */
	uint32_t credit[2]; /* bytes the host allows per output channel */
	uint8_t *held[2];   /* output read but not yet sent (detached, or reclaimed) */
	size_t held_len[2];
	size_t rec_at[2];   /* bytes put back from the output queue in this reclaim pass */
	int eof_sent[2];
	int held_exit;      /* output ended before the reap: the queue waited for it once */
	int yielded;        /* output ended before the reap: the agent gave the CPU up once */
	int pidx[2];        /* poll slot of out[i] this iteration, -1 if none */
	int in_fd;          /* stdin pipe write end (tty: dup of master), -1 if none */
	int in_eof;         /* 1: host sent EOF, 2: EOF delivered */
	uint8_t *in_buf;
	size_t in_len;
	uint32_t in_unacked;
};

extern struct ex *ex_list;
void ex_free(struct ex *e);
struct ex *ex_find(uint32_t id); /* any exec still known, attached or not */
void ex_drop(struct ex *e);      /* kill the group, forget the stream (free on reap) */
void ex_close_in(struct ex *e);
int held_add(struct ex *e, int ch, const uint8_t *p, size_t n, int front);
void held_clear(struct ex *e);

#endif

/* Internal state of one exec stream (exec.c spawns, exec_io.c moves bytes). */
#ifndef BOX_EXEC_H
#define BOX_EXEC_H

#include "agent.h"

struct ex {
	struct ex *next;
	uint32_t id;
	pid_t pid;
	int detached;       /* host session gone or RESET: no more frames, free on reap */
	int exited, status, timed_out;
	int64_t deadline;   /* monotonic ms, 0 = none */
	int tty;
	int out[2];         /* stdout, stderr read ends (tty: master, -1); -1 once at EOF */
	uint32_t credit[2]; /* bytes the host allows per output channel */
	int pidx[2];        /* poll slot of out[i] this iteration, -1 if none */
	int in_fd;          /* stdin pipe write end (tty: dup of master), -1 if none */
	int in_eof;         /* 1: host sent EOF, 2: EOF delivered */
	uint8_t *in_buf;
	size_t in_len;
	uint32_t in_unacked;
};

extern struct ex *ex_list;
void ex_free(struct ex *e);

#endif

/* Framing: output queue, frame builder, TLV reader. See ../PROTOCOL.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"

/* ob[ob_frame..ob_end) is queued; ob_frame is the start of the first frame not fully
 * sent, ob_head (>= ob_frame) the next byte to send. */
static uint8_t *ob;
static size_t ob_frame, ob_head, ob_end, ob_cap;
size_t out_len;
static size_t fb_start;

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* compaction moves bytes: only allowed between frames (offsets kept mid-frame) */
static void ob_reserve(size_t n, int compact)
{
	if (compact && ob_frame > 0 && (ob_frame == ob_end || ob_frame > ob_cap / 2)) {
		memmove(ob, ob + ob_frame, ob_end - ob_frame);
		ob_end -= ob_frame;
		ob_head -= ob_frame;
		ob_frame = 0;
	}
	if (ob_end + n <= ob_cap)
		return;
	size_t cap = ob_cap ? ob_cap : 256 * 1024;
	while (cap < ob_end + n)
		cap *= 2;
	uint8_t *nb = realloc(ob, cap);
	if (!nb) {
		fprintf(stderr, "box-agent: out of memory\n");
		abort();
	}
	ob = nb;
	ob_cap = cap;
}

void out_reset(void)
{
	ob_frame = ob_head = ob_end = out_len = 0;
	if (ob_cap > 4 * 1024 * 1024) {
		free(ob);
		ob = NULL;
		ob_cap = 0;
	}
}

int out_flush(int fd)
{
	static int plain_fd = -1; /* the virtio port is no socket: write(), without a failed send() first */
	while (ob_head < ob_end) {
		ssize_t n = fd == plain_fd ? -1 : send(fd, ob + ob_head, ob_end - ob_head, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (fd == plain_fd || (n < 0 && errno == ENOTSOCK)) {
			plain_fd = fd;
			n = write(fd, ob + ob_head, ob_end - ob_head);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -1;
		}
		ob_head += (size_t)n;
		while (ob_end - ob_frame >= HDR_LEN && ob_frame + HDR_LEN + get32(ob + ob_frame + 8) <= ob_head)
			ob_frame += HDR_LEN + get32(ob + ob_frame + 8);
	}
	out_len = ob_end - ob_head;
	return 0;
}

void out_reclaim(int keep_partial, void (*cb)(const struct frame *f))
{
	size_t at = ob_frame;
	if (keep_partial && ob_head > ob_frame && ob_end - at >= HDR_LEN)
		at += HDR_LEN + get32(ob + at + 8); /* the host is reading this one: finish it */
	size_t cut = at;
	while (ob_end - at >= HDR_LEN) {
		uint8_t *h = ob + at;
		struct frame f = {h[2], h[3], get32(h + 4), h + HDR_LEN, get32(h + 8)};
		cb(&f);
		at += HDR_LEN + f.len;
	}
	ob_end = cut;
	if (ob_head > ob_end)
		ob_head = ob_end;
	out_len = ob_end - ob_head;
}

void fb_begin(uint8_t type, uint8_t flags, uint32_t stream)
{
	ob_reserve(HDR_LEN + 1024, 1);
	fb_start = ob_end;
	uint8_t *h = ob + ob_end;
	h[0] = MAGIC0; h[1] = MAGIC1; h[2] = type; h[3] = flags;
	put32(h + 4, stream);
	ob_end += HDR_LEN;
}

void fb_bytes(uint8_t tag, const void *p, size_t n)
{
	ob_reserve(5 + n, 0);
	ob[ob_end] = tag;
	put32(ob + ob_end + 1, (uint32_t)n);
	if (n)
		memcpy(ob + ob_end + 5, p, n);
	ob_end += 5 + n;
}

void fb_int(uint8_t tag, int64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
	fb_bytes(tag, b, 8);
}

void fb_str(uint8_t tag, const char *s)
{
	fb_bytes(tag, s, strlen(s));
}

size_t fb_nest_begin(uint8_t tag)
{
	fb_bytes(tag, NULL, 0);
	return ob_end;
}

void fb_nest_end(size_t mark)
{
	put32(ob + mark - 4, (uint32_t)(ob_end - mark));
}

size_t fb_payload(void) { return ob_end - fb_start - HDR_LEN; }

void fb_end(void)
{
	put32(ob + fb_start + 8, (uint32_t)(ob_end - fb_start - HDR_LEN));
	out_len = ob_end - ob_head;
}

uint8_t *data_begin(size_t max)
{
	ob_reserve(HDR_LEN + max, 1);
	return ob + ob_end + HDR_LEN;
}

void data_end(uint8_t type, uint8_t flags, uint32_t stream, size_t n)
{
	uint8_t *h = ob + ob_end;
	h[0] = MAGIC0; h[1] = MAGIC1; h[2] = type; h[3] = flags;
	put32(h + 4, stream);
	put32(h + 8, (uint32_t)n);
	ob_end += HDR_LEN + n;
	out_len = ob_end - ob_head;
}

void send_simple(uint8_t type, uint8_t flags, uint32_t stream)
{
	fb_begin(type, flags, stream);
	fb_end();
}

void send_window(uint32_t stream, uint8_t ch, uint32_t n)
{
	fb_begin(M_WINDOW, ch, stream);
	fb_int(T_WINDOW, n);
	fb_end();
}

const char *errno_code(int err)
{
	switch (err) {
	case ENOENT: return "not_found";
	case EISDIR: return "is_directory";
	case ENOTDIR: return "not_directory";
	case EACCES: case EPERM: case EROFS: return "permission_denied";
	case EEXIST: case ENOTEMPTY: return "exists";
	case EINVAL: case ENAMETOOLONG: case ELOOP: case E2BIG: return "invalid";
	default: return "io";
	}
}

void send_error(uint32_t stream, const char *code, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fb_begin(M_ERROR, 0, stream);
	fb_str(T_CODE, code);
	fb_str(T_MESSAGE, msg);
	if (err)
		fb_int(T_ERRNO, err);
	fb_end();
}

void send_errno(uint32_t stream, int err, const char *what)
{
	send_error(stream, errno_code(err), err, "%s: %s", what, strerror(err));
}

/* TLV: u8 tag, u32 length (BE), value. Integers are 8-byte BE two's complement. */
int tlv_valid(const uint8_t *p, size_t len)
{
	size_t i = 0;
	while (i < len) {
		if (len - i < 5)
			return 0;
		uint32_t n = get32(p + i + 1);
		if (n > len - i - 5)
			return 0;
		i += 5 + n;
	}
	return 1;
}

const uint8_t *tlv_find(const struct frame *f, uint8_t tag, int nth, uint32_t *vlen)
{
	size_t i = 0;
	while (i + 5 <= f->len) {
		uint32_t n = get32(f->p + i + 1);
		if (f->p[i] == tag && nth-- == 0) {
			*vlen = n;
			return f->p + i + 5;
		}
		i += 5 + n;
	}
	return NULL;
}

int tlv_count(const struct frame *f, uint8_t tag)
{
	uint32_t n;
	int c = 0;
	while (tlv_find(f, tag, c, &n))
		c++;
	return c;
}

char *tlv_str(const struct frame *f, uint8_t tag, int nth)
{
	uint32_t n;
	const uint8_t *v = tlv_find(f, tag, nth, &n);
	if (!v || memchr(v, 0, n))
		return NULL;
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, v, n);
	s[n] = 0;
	return s;
}

int64_t tlv_int(const struct frame *f, uint8_t tag, int64_t dflt)
{
	uint32_t n;
	const uint8_t *v = tlv_find(f, tag, 0, &n);
	if (!v || n != 8)
		return dflt;
	uint64_t x = 0;
	for (int i = 0; i < 8; i++)
		x = x << 8 | v[i];
	return (int64_t)x;
}

/* HELLO/PING replies, time sync and RNG reseed (after snapshot restores). */
#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

static void reply_hello(uint8_t type, uint32_t stream)
{
	fb_begin(type, 0, stream);
	fb_str(T_VERSION, AGENT_VERSION);
	fb_int(T_PROTO, PROTO_VERSION);
	fb_int(T_UPTIME_MS, uptime_ms());
	fb_int(T_PID, getpid());
	fb_int(T_INIT, g_init);
	if (type == M_HELLO_REPLY)
		exec_describe();
	fb_end();
}

static void time_set(const struct frame *f)
{
	int64_t ns = tlv_int(f, T_TIME_NS, -1);
	struct timespec prev, ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
	if (ns <= 0)
		return send_error(f->stream, "invalid", 0, "time_ns missing");
	clock_gettime(CLOCK_REALTIME, &prev);
	if (g_init && clock_settime(CLOCK_REALTIME, &ts) < 0)
		return send_errno(f->stream, errno, "clock_settime");
	fb_begin(M_OK, 0, f->stream);
	fb_int(T_APPLIED, g_init);
	fb_int(T_PREV_NS, (int64_t)prev.tv_sec * 1000000000 + prev.tv_nsec);
	fb_end();
}

static void reseed(const struct frame *f)
{
	uint32_t n;
	const uint8_t *v = tlv_find(f, T_BYTES, 0, &n);
	if (!v || n < 32 || n > 4096)
		return send_error(f->stream, "invalid", 0, "bytes: 32..4096 random bytes required");
	int fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC), credited = 0;
	if (fd < 0)
		return send_errno(f->stream, errno, "/dev/urandom");
	if (write(fd, v, n) != (ssize_t)n) {
		int e = errno;
		close(fd);
		return send_errno(f->stream, e, "write /dev/urandom");
	}
	if (g_init) {
		struct { int count, size; uint8_t buf[4096]; } ent = {(int)n * 8, (int)n, {0}};
		memcpy(ent.buf, v, n);
		credited = ioctl(fd, RNDADDENTROPY, &ent) == 0;
		/* Mixing into the input pool does not re-key the CRNG: it reseeds on a timer,
		 * and clones restored from one snapshot share its clock, so they would go on
		 * producing the same bytes. Force the reseed (root, CRNG ready). */
		if (credited && ioctl(fd, RNDRESEEDCRNG) < 0)
			credited = 0;
	}
	close(fd);
	/* A clone's identity travels with the reseed (one round trip, no process): its hostname. */
	uint32_t hn;
	const uint8_t *h = tlv_find(f, T_HOSTNAME, 0, &hn);
	if (h && (hn == 0 || hn > 64 || sethostname((const char *)h, hn) < 0))
		return send_error(f->stream, "invalid", 0, "hostname: 1..64 bytes, settable by the agent");
	fb_begin(M_OK, 0, f->stream);
	fb_int(T_APPLIED, credited);
	fb_end();
}

void health_request(const struct frame *f)
{
	if (f->type == M_HELLO || f->type == M_PING)
		reply_hello(f->type == M_HELLO ? M_HELLO_REPLY : M_PONG, f->stream);
	else if (f->type == M_TIME_SET)
		time_set(f);
	else
		reseed(f);
}

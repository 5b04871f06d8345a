/* PID 1 duties, run once before serving (skipped unless PID 1, or with
 * --no-init): mounts, hostname, network (ioctls; box.net=0 skips), resolv.conf,
 * 9p shares. Steps already done by the initramfs are detected and skipped.
 * Every step logs and continues on failure: PID 1 must not exit. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"

static char cmdline[8192];
static int cmdline_loaded;

static void warn(const char *what, const char *obj)
{
	fprintf(stderr, "box-agent init: %s %s: %s\n", what, obj, strerror(errno));
}

/* value of the last "key=value" word on the kernel command line, or NULL */
const char *cmdline_get(const char *key)
{
	static char val[8][1024];
	static int slot;
	if (!cmdline_loaded) {
		int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, cmdline, sizeof cmdline - 1) : 0;
		cmdline[n > 0 ? n : 0] = 0;
		if (fd >= 0)
			close(fd);
		cmdline_loaded = 1;
	}
	size_t kl = strlen(key);
	const char *found = NULL, *p = cmdline;
	while (*p) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (!strncmp(p, key, kl) && p[kl] == '=')
			found = p + kl + 1;
		p += strcspn(p, " \n");
	}
	if (!found)
		return NULL;
	char *v = val[slot++ % 8];
	snprintf(v, sizeof val[0], "%.*s", (int)strcspn(found, " \n"), found);
	return v;
}

static int is_mountpoint(const char *path)
{
	struct stat a, b;
	char parent[256];
	snprintf(parent, sizeof parent, "%s/..", path);
	if (stat(path, &a) < 0 || stat(parent, &b) < 0)
		return 0;
	return a.st_dev != b.st_dev;
}

static void mount_fs(const char *type, const char *dir, unsigned long flags, const char *data)
{
	mkdir(dir, 0755);
	if (is_mountpoint(dir))
		return;
	if (mount(type, dir, type, flags, data) < 0)
		warn("mount", dir);
}

static void mounts(void)
{
	mount_fs("proc", "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount_fs("sysfs", "/sys", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount_fs("devtmpfs", "/dev", MS_NOSUID, "mode=0755");
	mount_fs("devpts", "/dev/pts", MS_NOSUID | MS_NOEXEC, "gid=5,mode=620,ptmxmode=666");
	mount_fs("tmpfs", "/dev/shm", MS_NOSUID | MS_NODEV, "mode=1777");
	mount_fs("tmpfs", "/run", MS_NOSUID | MS_NODEV, "mode=0755");
	mount_fs("tmpfs", "/tmp", MS_NOSUID | MS_NODEV, "mode=1777");
	const char *links[][2] = {{"/proc/self/fd", "/dev/fd"}, {"/proc/self/fd/0", "/dev/stdin"},
				  {"/proc/self/fd/1", "/dev/stdout"}, {"/proc/self/fd/2", "/dev/stderr"}};
	for (int i = 0; i < 4; i++)
		(void)!symlink(links[i][0], links[i][1]);
	if (access("/dev/ptmx", F_OK) < 0)
		(void)!symlink("pts/ptmx", "/dev/ptmx");
}

static void set_addr(int s, unsigned long req, const char *ifname, const char *ip)
{
	struct ifreq r;
	memset(&r, 0, sizeof r);
	snprintf(r.ifr_name, IFNAMSIZ, "%s", ifname);
	struct sockaddr_in *sa = (struct sockaddr_in *)&r.ifr_addr;
	sa->sin_family = AF_INET;
	inet_pton(AF_INET, ip, &sa->sin_addr);
	if (ioctl(s, req, &r) < 0)
		warn(req == SIOCSIFADDR ? "set address" : "set netmask", ifname);
}

static int if_up(int s, const char *ifname)
{
	struct ifreq r;
	memset(&r, 0, sizeof r);
	snprintf(r.ifr_name, IFNAMSIZ, "%s", ifname);
	if (ioctl(s, SIOCGIFFLAGS, &r) < 0)
		return warn("get flags", ifname), -1;
	r.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &r) < 0)
		return warn("bring up", ifname), -1;
	return 0;
}

static void network(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return warn("socket", "AF_INET");
	set_addr(s, SIOCSIFADDR, "lo", "127.0.0.1");
	set_addr(s, SIOCSIFNETMASK, "lo", "255.0.0.0");
	if_up(s, "lo");
	set_addr(s, SIOCSIFADDR, "eth0", "10.0.2.15");
	set_addr(s, SIOCSIFNETMASK, "eth0", "255.255.255.0");
	if (if_up(s, "eth0") == 0) {
		struct rtentry rt;
		memset(&rt, 0, sizeof rt);
		struct sockaddr_in *gw = (struct sockaddr_in *)&rt.rt_gateway;
		struct sockaddr_in *dst = (struct sockaddr_in *)&rt.rt_dst;
		struct sockaddr_in *mask = (struct sockaddr_in *)&rt.rt_genmask;
		gw->sin_family = dst->sin_family = mask->sin_family = AF_INET;
		inet_pton(AF_INET, "10.0.2.2", &gw->sin_addr);
		rt.rt_flags = RTF_UP | RTF_GATEWAY;
		rt.rt_dev = "eth0";
		if (ioctl(s, SIOCADDRT, &rt) < 0 && errno != EEXIST)
			warn("add default route via", "10.0.2.2");
	}
	close(s);
}

static void write_if_absent(const char *path, const char *text)
{
	struct stat st;
	if (lstat(path, &st) == 0)
		return;
	FILE *f = fopen(path, "we");
	if (!f)
		return warn("create", path);
	fputs(text, f);
	fclose(f);
}

static void identity(void)
{
	const char *host = cmdline_get("box.hostname");
	char hosts[512];
	if (host && sethostname(host, strlen(host)) < 0)
		warn("sethostname", host);
	mkdir("/etc", 0755);
	/* no DNS in a box (its network reaches only the egress proxy): refused at once, not a 10 s wait */
	write_if_absent("/etc/resolv.conf", "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n");
	snprintf(hosts, sizeof hosts, "127.0.0.1\tlocalhost\n::1\tlocalhost\n%s%s%s",
		 host ? "127.0.1.1\t" : "", host ? host : "", host ? "\n" : "");
	write_if_absent("/etc/hosts", hosts);
}

/* box.mounts=tag1:/mnt/a,tag2:/b -> 9p over virtio */
static void shares(void)
{
	const char *spec = cmdline_get("box.mounts");
	char buf[1024];
	if (!spec)
		return;
	snprintf(buf, sizeof buf, "%s", spec);
	for (char *save, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *dir = strchr(item, ':');
		if (!dir || dir[1] != '/') {
			fprintf(stderr, "box-agent init: bad box.mounts item '%s'\n", item);
			continue;
		}
		*dir++ = 0;
		if (mkdir_p(dir, 0755) < 0)
			warn("mkdir", dir);
		if (is_mountpoint(dir))
			continue; /* the initramfs mounted it already */
		if (mount(item, dir, "9p", 0, "trans=virtio,version=9p2000.L,msize=512000") < 0)
			warn("mount 9p", dir);
	}
}

void init_system(void)
{
	umask(022);
	mounts();
	identity();
	const char *net = cmdline_get("box.net");
	if (!net || strcmp(net, "0") != 0)
		network();
	shares();
	if (chdir("/") < 0)
		warn("chdir", "/");
}

/*
 * box-qemu-launch: runs QEMU (or any command) with transparent huge pages off for it.
 *
 *   box-qemu-launch PROGRAM [ARGS...]
 *
 * QEMU asks for huge pages on its TCG translation buffer (madvise MADV_HUGEPAGE), so each
 * 2 MiB piece it has written to is resident whole, and some of its other anonymous memory
 * follows. A box that has translated ~12 MiB of code then holds 14 MiB, and other QEMU
 * allocations add ~2 MiB more: about 4 MiB of every idle box's private memory, with no
 * measured speed gain under TCG (bench:runtime, BENCHMARKS.md). PR_SET_THP_DISABLE is
 * kept across execve and fork (QEMU's -daemonize), so this sets it and becomes PROGRAM.
 * Where the kernel refuses it, PROGRAM runs anyway, as it would without this helper.
 *
 * With BOX_PDEATHSIG_PARENT=<pid> in the environment, PROGRAM also gets SIGKILL when that
 * parent dies, kill -9 included (PR_SET_PDEATHSIG, kept across execve): the accelerator
 * probe's QEMU, which is not daemonized, must not outlive the service that started it. If
 * the parent is already gone, PROGRAM is not run at all.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: box-qemu-launch PROGRAM [ARGS...]\n");
		return 2;
	}
	(void)prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	const char *parent = getenv("BOX_PDEATHSIG_PARENT");
	if (parent) {
		pid_t want = (pid_t)atol(parent);
		unsetenv("BOX_PDEATHSIG_PARENT");
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
			perror("box-qemu-launch: PR_SET_PDEATHSIG");
			return 126;
		}
		if (getppid() != want)
			return 125; /* the parent died before the signal was armed */
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}

/* box-ramdelta compose mode: the pages a stopped clone wrote, read from its QEMU (ramdelta.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ramdelta.h"

/* compose: one record of the target block; the block id goes out unless it is the last one's. */
static void put_record(uint64_t off, uint32_t flags, const uint8_t *page) {
  if (!strcmp(target, last_out)) {
    put64(off | flags | F_CONTINUE);
  } else {
    put64(off | flags);
    put8((uint8_t)strlen(target));
    put(target, strlen(target));
    strcpy(last_out, target);
  }
  if (flags & F_ZERO) put8(0);
  else put(page, PAGE);
}

/*
 * compose: a RAM section with the pages of the target block the VM wrote, read from its
 * QEMU's mapping of the template file (every mapping of that file in /proc/PID/maps, at
 * its file offset, which is the offset in the block). A page is the VM's own when
 * pagemap says it is present and not a file page (a private copy) or swapped out.
 */
void dirty_section(uint32_t ram_id, int with_footer) {
  char path[64], line[4096];
  struct stat st;
  if (stat(tpl_path, &st) < 0) die("cannot stat the template RAM file");
  snprintf(path, sizeof path, "/proc/%d/mem", compose_pid);
  int mem = open(path, O_RDONLY | O_CLOEXEC);
  if (mem < 0) {
    fprintf(stderr, "box-ramdelta: cannot read the memory of process %d: %s\n", compose_pid, strerror(errno));
    if (part_path) unlink(part_path);
    exit(3);
  }
  snprintf(path, sizeof path, "/proc/%d/pagemap", compose_pid);
  int pagemap = open(path, O_RDONLY | O_CLOEXEC);
  snprintf(path, sizeof path, "/proc/%d/maps", compose_pid);
  FILE *maps = fopen(path, "r");
  if (pagemap < 0 || !maps) die("cannot read the VM's page map");
  put8(S_PART);
  put32(ram_id);
  static uint64_t entries[512];
  static uint8_t buf[512 * PAGE];
  int mapped = 0;
  while (fgets(line, sizeof line, maps)) {
    unsigned long long start, end, offset, inode;
    unsigned maj, min;
    char perms[8];
    int n = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &offset, &maj, &min, &inode, &n) < 7) continue;
    char *name = line + n;
    name[strcspn(name, "\n")] = 0;
    /* the same file: its inode, and its name or device (a path through a symlink differs) */
    if (inode != st.st_ino || (strcmp(name, tpl_path) && makedev(maj, min) != st.st_dev)) continue;
    mapped = 1;
    for (uint64_t va = start; va < end;) {
      uint64_t count = (end - va) / PAGE < 512 ? (end - va) / PAGE : 512;
      if (pread(pagemap, entries, count * 8, (off_t)(va / PAGE * 8)) != (ssize_t)(count * 8)) die("cannot read the page map");
      for (uint64_t i = 0; i < count;) {
        uint64_t e = entries[i];
        int own = ((e >> 63) & 1 && !((e >> 61) & 1)) || ((e >> 62) & 1);
        if (!own) { i++; continue; }
        uint64_t j = i;
        while (j < count && ((((entries[j] >> 63) & 1) && !((entries[j] >> 61) & 1)) || ((entries[j] >> 62) & 1))) j++;
        ssize_t want = (ssize_t)((j - i) * PAGE);
        if (pread(mem, buf, (size_t)want, (off_t)(va + i * PAGE)) != want) die("cannot read the VM's memory");
        for (uint64_t k = i; k < j; k++) {
          const uint8_t *page = buf + (k - i) * PAGE;
          uint64_t off = offset + (va - start) + k * PAGE;
          static const uint8_t zero[PAGE];
          if (off + PAGE <= tpl_size && !memcmp(page, tpl + off, PAGE)) { dropped++; continue; }
          kept++;
          put_record(off, memcmp(page, zero, PAGE) ? F_PAGE : F_ZERO, page);
        }
        i = j;
      }
      va += count * PAGE;
    }
  }
  fclose(maps);
  close(pagemap);
  close(mem);
  if (!mapped) die("the process does not map the template RAM file");
  put64(F_EOS);
  if (with_footer) { put8(S_FOOTER); put32(ram_id); }
}

/* compose: the VM's device sections (DEVICES without its header) end the stream. */
void device_state(void) {
  FILE *dev = fopen(compose_devices, "rb");
  if (!dev) die("cannot open the device state");
  in = dev;
  if (get32() != 0x5145564d || get32() != 3) die("the device state is not a QEMU stream");
  pass_rest();
}


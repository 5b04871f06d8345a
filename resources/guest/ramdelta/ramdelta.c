/*
 * box-ramdelta: keeps a template clone's saved state down to the pages the box changed.
 *
 * A box cloned from a warm template maps the template's RAM file copy-on-write
 * (memory-backend-file share=off). QEMU 7.2 cannot skip such private RAM when it saves
 * (x-ignore-shared only skips share=on blocks), so its migration stream carries every
 * non-zero page. This filter sits on that stream (`migrate exec:box-ramdelta filter ...`)
 * and drops each page of the template-backed block that is byte-identical to the
 * template's page at the same offset. Restoring the filtered stream over the same
 * template mapping gives the same guest memory: a page that is not sent keeps what the
 * mapping holds, which is the template page, still shared with every other clone.
 *
 *   box-ramdelta filter TEMPLATE_RAM BLOCK_ID OUT < stream
 *       (writes OUT.part and renames it to OUT once the whole stream is written: the
 *       caller, which cannot see this process's exit status through QEMU, waits for OUT)
 *   box-ramdelta compose TEMPLATE_RAM BLOCK_ID TEMPLATE_STREAM DEVICES PID OUT
 *       (the same result without QEMU sending its RAM, for a VM that is stopped: the
 *       pages come from the running QEMU's own mapping, and only the ones the box wrote
 *       are read. /proc/PID/pagemap tells them apart: a page the guest wrote is a private
 *       anonymous copy, every other page of the mapping is still the template file's.
 *       The stream is the template's saved one (its configuration and the RAM set-up) with
 *       a RAM section of those pages, and the VM's device state (DEVICES, written by QMP
 *       xen-save-devices-state) instead of the template's. Exit status 3: PID's memory
 *       cannot be read here (ptrace rules), the caller saves with a migration instead.)
 *   box-ramdelta apply  TEMPLATE_RAM BLOCK_ID STREAM IMAGE   (tests: the block's memory
 *       as a restore would build it: TEMPLATE_RAM's content plus the stream's pages;
 *       prints the device-state tail's offset and length)
 *
 * Format (QEMU 7.2 migration/savevm.c and ram.c): magic, version, a configuration
 * section, then sections; RAM records are be64 offset|flags, then the block id unless
 * CONTINUE, then a zero byte (ZERO) or a page (PAGE). Anything this tool does not know
 * is copied through unchanged from that point on, so the output is always a stream QEMU
 * can load; only recognised, identical template pages are ever dropped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ramdelta.h"

FILE *in, *out;
static int apply_fd = -1;          /* apply mode: the image being written */
const uint8_t *tpl;                /* template RAM, mapped read-only */
uint64_t tpl_size;
const char *target;                /* RAM block backed by the template ("mem") */
static uint8_t *emitted;           /* pages of the target block already sent once */
static uint64_t emitted_pages;
static int ignore_shared;
static uint64_t pos;               /* bytes read so far (apply mode reports the tail) */
uint64_t kept, dropped;
char last_out[256];

const char *compose_devices;       /* compose mode: the VM's device state file */
int compose_pid;
const char *tpl_path;

char *part_path;                   /* filter and compose: the output until it is complete */
static const char *out_path;

void die(const char *what) {
  if (part_path) unlink(part_path);
  fprintf(stderr, "box-ramdelta: %s%s%s\n", what, errno ? ": " : "", errno ? strerror(errno) : "");
  exit(1);
}

void get(void *buf, size_t n) {
  if (n && fread(buf, 1, n, in) != n) die("truncated stream");
  pos += n;
}
void put(const void *buf, size_t n) {
  if (out && n && fwrite(buf, 1, n, out) != n) die("write failed");
}
static int peek(void) {
  int c = getc(in);
  if (c != EOF) ungetc(c, in);
  return c;
}
uint8_t get8(void) { uint8_t b; get(&b, 1); return b; }
uint32_t get32(void) { uint8_t b[4]; get(b, 4); return (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]; }
uint64_t get64(void) { return (uint64_t)get32() << 32 | get32(); }
void put8(uint8_t v) { put(&v, 1); }
void put32(uint32_t v) { uint8_t b[4] = { v >> 24, v >> 16, v >> 8, v }; put(b, 4); }
void put64(uint64_t v) { put32(v >> 32); put32((uint32_t)v); }
/* A length-prefixed id (one byte of length): read, copied out, NUL-terminated in buf. */
static void copy_id(char buf[256]) {
  uint8_t n = get8();
  get(buf, n);
  buf[n] = 0;
  put8(n);
  put(buf, n);
}

/* Copies the rest of the input unchanged: the output stays a loadable stream. */
void pass_rest(void) {
  static uint8_t buf[1 << 16];
  size_t n;
  if (apply_fd >= 0) {
    uint64_t start = pos;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) pos += n;
    printf("{\"tail_offset\":%llu,\"tail_bytes\":%llu}\n", (unsigned long long)start, (unsigned long long)(pos - start));
    return;
  }
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) put(buf, n);
}

/* Completes the output (filter mode: OUT appears only now) and ends the process. */
static void finish(void) {
  if (out) {
    if (fflush(out) || fclose(out)) die("write failed");
    if (rename(part_path, out_path)) die("cannot rename the output");
    fprintf(stderr, "box-ramdelta: kept %llu pages, dropped %llu\n", (unsigned long long)kept, (unsigned long long)dropped);
  }
  exit(0);
}

static void configuration(void) {
  char name[256];
  uint32_t len = get32();
  put32(len);
  while (len--) put8(get8());
  while (peek() == S_SUBSECTION) {
    put8(get8());
    copy_id(name);
    put32(get32()); /* version */
    if (!strcmp(name, "configuration/capabilities")) {
      uint32_t n = get32();
      put32(n);
      while (n--) {
        char cap[256];
        copy_id(cap);
        if (!strcmp(cap, "x-ignore-shared")) ignore_shared = 1;
      }
    } else if (!strcmp(name, "configuration/target-page-bits")) {
      uint32_t bits = get32();
      put32(bits);
      if (bits != 12) { pass_rest(); finish(); }
    } else {
      pass_rest(); /* unknown subsection: its length is not known here */
      finish();
    }
  }
}

static void ram_setup(void) {
  uint64_t v = get64();
  put64(v);
  if (!(v & F_MEM_SIZE)) { pass_rest(); finish(); }
  uint64_t total = v & ~(uint64_t)(PAGE - 1);
  while (total) {
    char id[256];
    copy_id(id);
    uint64_t length = get64();
    put64(length);
    if (ignore_shared) put64(get64()); /* the block's guest address */
    if (!strcmp(id, target)) {
      emitted_pages = length / PAGE;
      emitted = calloc(emitted_pages / 8 + 1, 1);
      if (!emitted) die("out of memory");
    }
    if (length > total) { pass_rest(); finish(); }
    total -= length;
  }
}

static int template_page_is_zero(uint64_t off) {
  static const uint8_t zero[PAGE];
  return memcmp(tpl + off, zero, PAGE) == 0;
}

/* One section part of RAM records, up to and including its EOS. */
static void ram_records(void) {
  static char block[256];
  static uint8_t page[PAGE];
  for (;;) {
    uint64_t v = get64();
    uint32_t flags = v & (PAGE - 1);
    uint64_t off = v & ~(uint64_t)(PAGE - 1);
    if (flags & F_EOS) { put64(v); return; }
    if (flags & ~(F_ZERO | F_PAGE | F_CONTINUE) || !(flags & (F_ZERO | F_PAGE))) {
      put64(v); /* a record kind this tool does not parse (xbzrle, compression, rdma) */
      pass_rest();
      finish();
    }
    if (!(flags & F_CONTINUE)) {
      uint8_t n = get8();
      get(block, n);
      block[n] = 0;
    }
    uint8_t fill = 0;
    if (flags & F_ZERO) fill = get8();
    else get(page, PAGE);

    int ours = emitted && !strcmp(block, target) && off / PAGE < emitted_pages && off + PAGE <= tpl_size;
    if (apply_fd >= 0) {
      if (emitted && !strcmp(block, target) && off + PAGE <= tpl_size) {
        if (flags & F_ZERO) memset(page, fill, PAGE);
        if (pwrite(apply_fd, page, PAGE, (off_t)off) != PAGE) die("image write failed");
      }
      continue;
    }
    int keep = 1;
    if (ours && !(emitted[off / PAGE / 8] & (1 << (off / PAGE % 8)))) {
      keep = (flags & F_ZERO) ? (fill != 0 || !template_page_is_zero(off)) : memcmp(page, tpl + off, PAGE) != 0;
    }
    if (!keep) { dropped++; continue; }
    kept++;
    if (ours) emitted[off / PAGE / 8] |= 1 << (off / PAGE % 8);
    if (!strcmp(block, last_out)) {
      put64(off | flags | F_CONTINUE);
    } else {
      put64(off | (flags & ~F_CONTINUE));
      put8((uint8_t)strlen(block));
      put(block, strlen(block));
      strcpy(last_out, block);
    }
    if (flags & F_ZERO) put8(fill);
    else put(page, PAGE);
  }
}

static void footer(void) {
  if (peek() == S_FOOTER) { put8(get8()); put32(get32()); }
}

static void run(void) {
  uint32_t magic = get32(), version = get32();
  put32(magic);
  put32(version);
  if (magic != 0x5145564d || version != 3) { pass_rest(); return; }
  uint32_t ram_id = UINT32_MAX;
  for (;;) {
    int type = peek();
    if (type == EOF) return;
    if (type == S_CONFIGURATION) { put8(get8()); configuration(); continue; }
    if (type == S_START) {
      put8(get8());
      uint32_t id = get32();
      put32(id);
      char name[256];
      copy_id(name);
      put32(get32()); /* instance */
      put32(get32()); /* version */
      if (strcmp(name, "ram")) { pass_rest(); return; }
      ram_id = id;
      ram_setup();
      uint64_t eos = get64();
      put64(eos);
      if (!(eos & F_EOS)) { pass_rest(); return; }
      int had_footer = peek() == S_FOOTER;
      footer();
      if (compose_devices) dirty_section(ram_id, had_footer);
      continue;
    }
    if (type == S_PART || type == S_END) {
      put8(get8());
      uint32_t id = get32();
      put32(id);
      if (id != ram_id) { pass_rest(); return; }
      ram_records();
      footer();
      continue;
    }
    if (compose_devices) { device_state(); return; }
    pass_rest(); /* device state (SECTION_FULL ...) and the end: unchanged */
    return;
  }
}

static void map_template(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0) die("cannot open the template RAM file");
  tpl_size = (uint64_t)st.st_size;
  tpl = tpl_size ? mmap(NULL, tpl_size, PROT_READ, MAP_SHARED, fd, 0) : NULL;
  if (tpl == MAP_FAILED) die("cannot map the template RAM file");
  close(fd);
}

int main(int argc, char **argv) {
  static char ibuf[1 << 20], obuf[1 << 20];
  if (argc == 5 && !strcmp(argv[1], "filter")) {
    map_template(argv[2]);
    target = argv[3];
    in = stdin;
    out_path = argv[4];
    if (asprintf(&part_path, "%s.part", out_path) < 0) die("out of memory");
    if (!(out = fopen(part_path, "wb"))) die("cannot create the output");
  } else if (argc == 8 && !strcmp(argv[1], "compose")) {
    map_template(argv[2]);
    tpl_path = argv[2];
    target = argv[3];
    if (!(in = fopen(argv[4], "rb"))) die("cannot open the template's stream");
    compose_devices = argv[5];
    compose_pid = atoi(argv[6]);
    out_path = argv[7];
    if (asprintf(&part_path, "%s.part", out_path) < 0) die("out of memory");
    if (!(out = fopen(part_path, "wb"))) die("cannot create the output");
  } else if (argc == 6 && !strcmp(argv[1], "apply")) {
    map_template(argv[2]);
    target = argv[3];
    if (!(in = fopen(argv[4], "rb"))) die("cannot open the stream");
    apply_fd = open(argv[5], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (apply_fd < 0) die("cannot create the image");
    for (uint64_t o = 0; o < tpl_size; o += PAGE) {
      uint32_t n = tpl_size - o < PAGE ? (uint32_t)(tpl_size - o) : PAGE;
      if (pwrite(apply_fd, tpl + o, n, (off_t)o) != (ssize_t)n) die("image write failed");
    }
  } else {
    fprintf(stderr, "usage: box-ramdelta filter TEMPLATE_RAM BLOCK_ID OUT < stream\n"
                    "       box-ramdelta compose TEMPLATE_RAM BLOCK_ID TEMPLATE_STREAM DEVICES PID OUT\n"
                    "       box-ramdelta apply TEMPLATE_RAM BLOCK_ID STREAM IMAGE\n");
    return 2;
  }
  setvbuf(in, ibuf, _IOFBF, sizeof ibuf);
  if (out) setvbuf(out, obuf, _IOFBF, sizeof obuf);
  errno = 0;
  run();
  finish();
}

/* Shared by ramdelta.c (the stream walk, filter and apply) and compose.c (compose mode). */
#ifndef BOX_RAMDELTA_H
#define BOX_RAMDELTA_H
#include <stdint.h>
#include <stdio.h>

#define PAGE 4096u
#define F_ZERO 0x02u
#define F_MEM_SIZE 0x04u
#define F_PAGE 0x08u
#define F_EOS 0x10u
#define F_CONTINUE 0x20u
#define S_START 0x01
#define S_PART 0x02
#define S_END 0x03
#define S_FULL 0x04
#define S_SUBSECTION 0x05
#define S_CONFIGURATION 0x07
#define S_FOOTER 0x7e

extern FILE *in, *out;
extern const uint8_t *tpl; /* template RAM, mapped read-only */
extern uint64_t tpl_size;
extern const char *target; /* RAM block backed by the template ("mem") */
extern uint64_t kept, dropped;
extern const char *compose_devices, *tpl_path;
extern int compose_pid;
extern char *part_path;
extern char last_out[256]; /* the block of the last record written (both modes continue it) */

void die(const char *what);
void get(void *buf, size_t n);
void put(const void *buf, size_t n);
uint8_t get8(void);
uint32_t get32(void);
uint64_t get64(void);
void put8(uint8_t v);
void put32(uint32_t v);
void put64(uint64_t v);
void pass_rest(void); /* copies the rest of the input unchanged */

/* compose.c */
void dirty_section(uint32_t ram_id, int with_footer);
void device_state(void);
#endif

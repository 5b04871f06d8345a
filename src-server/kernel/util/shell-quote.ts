/** Quotes one word for a POSIX shell: the only shell quoter of the service (guest scripts, QEMU exec: URIs). */
export const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

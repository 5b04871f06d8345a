import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { BoxRuntime } from '../boxes/ports.js';
import { CONSOLE_MAX_BYTES, type ConsoleTail } from '@box/contract/service-admin';
import { NotImplemented } from '../../kernel/domain-errors.js';

/** How often a follower looks for new console output, and the most it sends per look. */
const FOLLOW_POLL_MS = 400;
const FOLLOW_CHUNK_BYTES = 256 * 1024;

/**
 * A box's serial console, read from the file its VM appends to. The file is named by the
 * runtime (`BoxRuntime.consoleLog`), never by the client; reads are capped at 1 MiB. A box
 * whose VM never started (or whose folder is gone after terminate) has an empty console.
 */
export class ConsoleService {
  constructor(private runtime: Pick<BoxRuntime, 'consoleLog'>) {}

  private file(boxId: string): string {
    const f = this.runtime.consoleLog?.(boxId);
    if (!f) throw new NotImplemented('This box runtime keeps no console log.');
    return f;
  }

  /** The last `bytes` of the console, then only its last `lines` lines. */
  tail(boxId: string, o: { bytes: number; lines: number }): ConsoleTail {
    const file = this.file(boxId);
    const size = sizeOf(file);
    const want = Math.min(o.bytes, CONSOLE_MAX_BYTES, size);
    let offset = size - want;
    let buf = readRange(file, offset, want);
    // Start on a character boundary: skip UTF-8 continuation bytes cut by the window.
    let skip = 0;
    while (offset > 0 && skip < buf.length && skip < 3 && (buf[skip]! & 0xc0) === 0x80) skip++;
    buf = buf.subarray(skip);
    offset += skip;
    let data = buf.toString('utf8');
    let truncated = offset > 0;
    const parts = data.split('\n');
    const complete = data.endsWith('\n') ? parts.length - 1 : parts.length;
    if (complete > o.lines) {
      const cut = parts.slice(0, complete - o.lines).join('\n').length + 1;
      offset += Buffer.byteLength(data.slice(0, cut));
      data = data.slice(cut);
      truncated = true;
    }
    return { box_id: boxId, data, offset, size_bytes: size, truncated };
  }

  /**
   * Calls `onChunk` with each piece appended after byte `from`; `onReset` when the file
   * shrank (a new disk and console). Answers the function that stops following.
   */
  follow(boxId: string, from: number, onChunk: (c: { offset: number; data: string }) => void, onReset: () => void): () => void {
    const file = this.file(boxId);
    let pos = from;
    let decoder = new StringDecoder('utf8');
    let busy = false;
    const look = () => {
      if (busy) return;
      busy = true;
      try {
        const size = sizeOf(file);
        if (size < pos) {
          pos = 0;
          decoder = new StringDecoder('utf8');
          onReset();
        }
        if (size > pos) {
          const buf = readRange(file, pos, Math.min(size - pos, FOLLOW_CHUNK_BYTES));
          const offset = pos;
          pos += buf.length;
          const data = decoder.write(buf);
          if (data) onChunk({ offset, data });
        }
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(look, FOLLOW_POLL_MS);
    return () => clearInterval(timer);
  }
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0; // no VM started yet, or the folder is gone: an empty console
  }
}

function readRange(file: string, offset: number, length: number): Buffer {
  if (length <= 0) return Buffer.alloc(0);
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(length);
    const n = fs.readSync(fd, buf, 0, length, offset);
    return buf.subarray(0, n);
  } catch {
    return Buffer.alloc(0);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

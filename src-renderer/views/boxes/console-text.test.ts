import { expect, it } from 'vitest';
import { appendKept, plainConsole } from './console-text.js';

it('strips colour, cursor and title escapes and carriage returns from console output', () => {
  expect(plainConsole('\x1b[0;32m  OK  \x1b[0m] Started \x1b]0;title\x07getty.\r\n')).toBe('  OK  ] Started getty.\n');
  expect(plainConsole('\x1b[?25l\x1b[2Jlogin: \x1b(B')).toBe('login: ');
});

it('keeps only the newest characters', () => {
  expect(appendKept('abc', 'def', 4)).toBe('cdef');
  expect(appendKept('', '\x1b[1mhi\x1b[0m', 10)).toBe('hi');
});

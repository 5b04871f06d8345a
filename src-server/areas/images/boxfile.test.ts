import { describe, expect, it } from 'vitest';
import { BoxfileError, parseBoxfile } from './boxfile.js';

describe('Boxfile parser', () => {
  it('reads every supported instruction, continuations and both command forms', () => {
    const steps = parseBoxfile(`# comment
FROM debian
RUN apt-get update && \\
    apt-get install -y tree
COPY --chmod=755 site "a b.txt" /srv/
ENV A=1 B="two words"
env C 3
WORKDIR /srv
USER app
CMD ["/bin/server", "--port", "80"]
`);
    expect(steps.map((s) => s.op)).toEqual(['FROM', 'RUN', 'COPY', 'ENV', 'ENV', 'WORKDIR', 'USER', 'CMD']);
    expect(steps[1]).toMatchObject({ line: 3, argv: ['/bin/sh', '-c', 'apt-get update && apt-get install -y tree'] });
    expect(steps[2]).toMatchObject({ sources: ['site', 'a b.txt'], dest: '/srv/', chmod: 0o755 });
    expect(steps[3]).toMatchObject({ vars: { A: '1', B: 'two words' } });
    expect(steps[4]).toMatchObject({ vars: { C: '3' } });
    expect(steps[7]).toMatchObject({ argv: ['/bin/server', '--port', '80'] });
  });

  it('reads PACKAGES right after FROM: Debian names, sorted, once each, over continuations', () => {
    const steps = parseBoxfile('FROM debian\nPACKAGES xvfb chromium \\\n  libgtk-3-bin xvfb g++ libc6:amd64\nRUN true');
    expect(steps.map((s) => s.op)).toEqual(['FROM', 'PACKAGES', 'RUN']);
    expect(steps[1]).toMatchObject({ line: 2, packages: ['chromium', 'g++', 'libc6:amd64', 'libgtk-3-bin', 'xvfb'] });
  });

  it.each([
    ['RUN echo hi', 1, /first instruction must be FROM/],
    ['FROM debian\nFROM debian', 2, /only once/],
    ['FROM Not/An:Image', 1, /Box image/],
    ['FROM debian\nADD x /y', 2, /unsupported instruction ADD/],
    ['FROM debian\nCOPY --chown=1 a /b', 2, /only --chmod/],
    ['FROM debian\nCOPY a', 2, /source and a destination/],
    ['FROM debian\nWORKDIR rel', 2, /absolute/],
    ['FROM debian\nCMD ["a", 1]', 2, /array of strings/],
    ['', 1, /empty Boxfile/],
    ['FROM debian\nRUN true\nPACKAGES xvfb', 3, /right after FROM/],
    ['FROM debian\nPACKAGES xvfb; rm -rf /', 2, /Debian package names, got "xvfb;"/],
    ['FROM debian\nPACKAGES Xvfb', 2, /got "Xvfb"/],
  ])('rejects %j at line %i', (src, line, msg) => {
    const err = (() => {
      try {
        parseBoxfile(src);
      } catch (e) {
        return e as BoxfileError;
      }
    })();
    expect(err).toBeInstanceOf(BoxfileError);
    expect(err!.line).toBe(line);
    expect(err!.message).toMatch(msg);
  });
});

/**
 * The local terminal during `box exec --tty`: raw mode while the command runs (so keys,
 * Ctrl-C included, go to the box), restored on every way out; resizes reported on SIGWINCH.
 */
export class Terminal {
  private raw = false;
  private onWinch: (() => void) | undefined;
  private restore = () => this.stop();

  size(): { cols: number; rows: number } {
    const out = process.stdout;
    return { cols: out.isTTY && out.columns ? out.columns : 80, rows: out.isTTY && out.rows ? out.rows : 24 };
  }

  start(onResize: (cols: number, rows: number) => void) {
    if (process.stdin.isTTY) {
      process.stdin.setRawMode(true);
      this.raw = true;
    }
    this.onWinch = () => {
      const { cols, rows } = this.size();
      onResize(cols, rows);
    };
    process.on('SIGWINCH', this.onWinch);
    process.once('exit', this.restore);
  }

  stop() {
    if (this.onWinch) process.off('SIGWINCH', this.onWinch);
    this.onWinch = undefined;
    process.off('exit', this.restore);
    if (this.raw && process.stdin.isTTY) process.stdin.setRawMode(false);
    this.raw = false;
  }
}

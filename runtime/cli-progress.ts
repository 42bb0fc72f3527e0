/**
 * A progress bar with the rate, redrawn in place on a terminal; elsewhere (a log, CI) silent, since
 * the summary line says what was done.
 */
export function progressBar(out: NodeJS.WriteStream): { update(done: number, total: number): void; print(line: string): void; done(): void } {
  const started = performance.now();
  let drawn = false;
  return {
    update(done, total) {
      if (!out.isTTY) return;
      const width = 30;
      const filled = Math.round((done / total) * width);
      const rate = done / Math.max(0.001, (performance.now() - started) / 1000);
      out.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} records, ${Math.round(rate).toLocaleString('en-US')} records/s `);
      drawn = true;
    },
    print(line) {
      if (drawn) out.write('\n');
      drawn = false;
      console.log(line);
    },
    done() {
      if (drawn) out.write('\n');
      drawn = false;
    },
  };
}

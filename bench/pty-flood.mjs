#!/usr/bin/env node
// Output for the Terminal lane's throughput (bench/terminal.ts): once a key comes, BENCH_FLOOD_BYTES of
// numbered lines (default 10 MB), then the marker, then it waits for the PTY to close. Its arguments are ignored.
const total = Number(process.env.BENCH_FLOOD_BYTES) || 10_000_000;
process.stdin.setRawMode?.(true);
process.stdin.once('data', () => {
  const line = (n) =>
    `${String(n).padStart(8, '0')} ${'the quick brown fox jumps over the lazy dog '.repeat(2)}\r\n`;
  const chunks = [];
  let size = 0;
  for (let n = 0; size < total; n++) {
    const text = line(n);
    chunks.push(text);
    size += text.length;
  }
  const body = chunks.join('') + 'flood-done-marker\r\n';
  process.stdout.write(body);
});
process.stdin.resume();

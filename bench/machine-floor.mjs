// The machine floor of `npm run bench -- compare` (bench/compare.ts): a fixed piece of single-threaded work
// of the kind the app does (JSON, strings, sorting), timed `argv[2]` times after three warm-ups; prints the
// times in ms as a JSON array.
import { performance } from 'node:perf_hooks';

const runs = Number(process.argv[2] ?? 9);

function once() {
  const started = performance.now();
  const rows = Array.from({ length: 20_000 }, (_, i) => ({
    id: `session-${(i * 7919) % 20_000}`,
    title: `A conversation about ${i % 97} things and ${i % 13} more`,
    at: 1_700_000_000_000 + ((i * 104_729) % 1_000_000),
    tags: [i % 3, i % 5, i % 7],
  }));
  const parsed = JSON.parse(JSON.stringify(rows));
  parsed.sort((a, b) => b.at - a.at || a.id.localeCompare(b.id));
  let words = 0;
  for (const row of parsed) words += row.title.toLowerCase().split(' ').length;
  if (words === 0) throw new Error('the machine floor did nothing');
  return performance.now() - started;
}

for (let i = 0; i < 3; i++) once();
const times = [];
for (let i = 0; i < runs; i++) times.push(Number(once().toFixed(3)));
process.stdout.write(JSON.stringify(times));

#!/usr/bin/env node
// A stand-in for the claude CLI that replays a recorded stdout stream as fast as the pipe takes it.
//
// It ignores its arguments. It answers every control_request on stdin with success (initialize gets the
// recorded initialize answer, under the request_id the client sent). On the first user line, or on stdin
// EOF, it writes the stream's body (everything after its head of control lines) to stdout. When the body
// is written and stdin has ended, it exits 0.
//
// Environment: BENCH_STREAM = the stream file (default: data/stream.jsonl beside this script); its meta
// sidecar (<stream>.meta.json, written by record.ts) gives the body offset and the initialize answer.

import { createReadStream, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const streamPath = process.env.BENCH_STREAM || join(here, 'data', 'stream.jsonl');
const meta = JSON.parse(readFileSync(streamPath.replace(/\.jsonl$/, '') + '.meta.json', 'utf8'));

let streaming = false;
let bodyDone = false;
let inputEnded = false;

function send(line) {
  process.stdout.write(JSON.stringify(line) + '\n');
}

function maybeExit() {
  if (bodyDone && inputEnded) process.exit(0);
}

function streamBody() {
  if (streaming) return;
  streaming = true;
  const body = createReadStream(streamPath, { start: meta.bodyOffset, highWaterMark: 64 * 1024 });
  body.on('data', (chunk) => {
    if (!process.stdout.write(chunk)) {
      body.pause();
      process.stdout.once('drain', () => body.resume());
    }
  });
  body.on('end', () => {
    bodyDone = true;
    // A client that never closes stdin must not hang the benchmark.
    setTimeout(() => {
      process.stderr.write('fake-cli: stdin still open 10 s after the stream ended; exiting\n');
      process.exit(0);
    }, 10_000).unref();
    maybeExit();
  });
}

const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on('line', (text) => {
  if (text.trim() === '') return;
  let line;
  try {
    line = JSON.parse(text);
  } catch {
    process.stderr.write(`fake-cli: stdin line is not JSON: ${text.slice(0, 200)}\n`);
    process.exit(1);
  }
  if (line.type === 'control_request') {
    const subtype = line.request && line.request.subtype;
    const response = subtype === 'initialize' ? { ...meta.initializeResponse, pid: process.pid } : {};
    send({
      type: 'control_response',
      response: { subtype: 'success', request_id: line.request_id, response },
    });
  } else if (line.type === 'user') {
    streamBody();
  }
});
input.on('close', () => {
  inputEnded = true;
  streamBody();
  maybeExit();
});
process.stdout.on('error', () => process.exit(0));

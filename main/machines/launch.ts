import { Worker } from 'node:worker_threads';

/**
 * Starting a program from Node holds the calling thread while the process is copied: some 10 to 60 ms for a
 * main of a few hundred MB on a busy two-core machine. Ten conversations starting their turns at once take
 * six snapshots' gits each, and main's event loop (a frame's events, a key, the CLI's lines) stood still
 * for most of a second. Byre's own programs (git) are therefore started by a launcher thread: main only
 * posts what to run and gets the output back.
 *
 * The launcher is a worker thread of a few lines of plain JavaScript (evaluated, so that the built app, the
 * browser host and the tests start it alike, with no file of its own to find). It runs each program with
 * execFile, lowers it to LAUNCHED_NICE, gives it `input` on stdin or closes stdin, and posts back its output, as text or as bytes (handed over, not copied).
 */

export interface LaunchOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** What the program reads on stdin; stdin is closed at once otherwise. */
  input?: string;
  /** Output as bytes rather than UTF-8 text. */
  bytes?: boolean;
  /** The most output taken, in bytes; past it the program is stopped and the run fails. */
  maxBuffer: number;
}

/**
 * What the launcher starts is bookkeeping (a turn's snapshot, a status, a diff): on a busy machine the
 * window, main's event loop and the CLI come first. Each program is lowered to this value just after it
 * starts (never raised). The launcher's thread itself is not: it reads the programs' output and hands it to
 * main, and lowered it would add its own wait to every run on a busy machine.
 */
export const LAUNCHED_NICE = 10;

export interface Launched<T> {
  stdout: T;
  stderr: string;
  /** The exit code, or the start's error code (ENOENT: no such program); null if a signal ended it. */
  code: number | string | null;
}

/** The code of a run the launcher could not finish (it stopped, or could not start). */
export const LAUNCHER_FAILED = 'ELAUNCHER';

const LAUNCHER = `
const { parentPort, workerData } = require('node:worker_threads');
const { execFile } = require('node:child_process');
const { getPriority, setPriority } = require('node:os');
const nice = workerData.nice;
parentPort.on('message', (run) => {
  const done = (stdout, stderr, code) => {
    let transfer = [];
    if (typeof stdout !== 'string') {
      // A view of its own whole buffer is handed over; a slice of a shared one is copied.
      const whole = stdout.byteOffset === 0 && stdout.byteLength === stdout.buffer.byteLength;
      stdout = whole ? stdout : Uint8Array.prototype.slice.call(stdout);
      transfer = [stdout.buffer];
    }
    parentPort.postMessage({ id: run.id, stdout, stderr: String(stderr), code }, transfer);
  };
  let child;
  try {
    child = execFile(
      run.program,
      run.args,
      { cwd: run.cwd, env: run.env, encoding: run.bytes ? 'buffer' : 'utf8', maxBuffer: run.maxBuffer, windowsHide: true },
      (error, stdout, stderr) => {
        const code = error ? (error.code ?? null) : 0;
        done(stdout, stderr, typeof code === 'number' || typeof code === 'string' ? code : null);
      },
    );
  } catch (error) {
    // Not started at all (an argument Node refuses): main rejects the run, as execFile's throw would.
    parentPort.postMessage({ id: run.id, thrown: String((error && error.message) || error) });
    return;
  }
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, Math.max(getPriority(child.pid), nice));
    } catch {
      // Gone already, or not allowed here: it runs at Byre's priority.
    }
  }
  if (child.stdin) {
    child.stdin.on('error', () => undefined);
    child.stdin.end(run.input ?? '');
  }
});
`;

type Reply =
  | { id: number; stdout: string | Uint8Array; stderr: string; code: number | string | null }
  | { id: number; thrown: string };

let launcher: Worker | null = null;
let nextId = 0;
interface Waiting {
  bytes: boolean;
  resolve: (ran: Launched<string | Buffer>) => void;
  reject: (error: Error) => void;
}
const waiting = new Map<number, Waiting>();

function failAll(message: string): void {
  const runs = [...waiting.values()];
  waiting.clear();
  for (const run of runs) {
    run.resolve({ stdout: run.bytes ? Buffer.alloc(0) : '', stderr: message, code: LAUNCHER_FAILED });
  }
}

function started(): Worker {
  if (launcher) return launcher;
  const worker = new Worker(LAUNCHER, { eval: true, workerData: { nice: LAUNCHED_NICE } });
  worker.on('message', (reply: Reply) => {
    const run = waiting.get(reply.id);
    if (!run) return;
    waiting.delete(reply.id);
    // Idle, the launcher does not keep the process alive; while it runs something, it does.
    if (waiting.size === 0) worker.unref();
    if ('thrown' in reply) {
      run.reject(new Error(reply.thrown));
      return;
    }
    const stdout =
      typeof reply.stdout === 'string'
        ? reply.stdout
        : Buffer.from(reply.stdout.buffer, reply.stdout.byteOffset, reply.stdout.byteLength);
    run.resolve({ stdout: run.bytes ? stdout : stdout.toString(), stderr: reply.stderr, code: reply.code });
  });
  const gone = (why: string) => {
    if (launcher !== worker) return;
    launcher = null;
    failAll(`Byre's launcher of programs stopped (${why}); the run did not finish. Try again.`);
  };
  worker.on('error', (error) => gone(error.message));
  // A reply that cannot be read leaves its run unanswered: the launcher is let go, and what waited fails.
  worker.on('messageerror', () => {
    gone('a reply could not be read');
    void worker.terminate();
  });
  worker.on('exit', (code) => gone(`exit code ${code}`));
  worker.unref();
  launcher = worker;
  return worker;
}

/** Runs a program off main's thread and takes all its output, as text or (`bytes`) as bytes. */
export function launch(
  program: string,
  args: readonly string[],
  options: LaunchOptions & { bytes: true },
): Promise<Launched<Buffer>>;
export function launch(
  program: string,
  args: readonly string[],
  options: LaunchOptions & { bytes?: false },
): Promise<Launched<string>>;
export function launch(
  program: string,
  args: readonly string[],
  options: LaunchOptions,
): Promise<Launched<string | Buffer>>;
export function launch(
  program: string,
  args: readonly string[],
  options: LaunchOptions,
): Promise<Launched<string | Buffer>> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = started();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      resolve({
        stdout: options.bytes ? Buffer.alloc(0) : '',
        stderr: `Byre could not start its launcher of programs: ${message}`,
        code: LAUNCHER_FAILED,
      });
      return;
    }
    const id = nextId++;
    const bytes = options.bytes === true;
    waiting.set(id, { bytes, resolve, reject });
    worker.ref();
    // Only what can be cloned: the environment's values as strings.
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;
    const run = {
      id,
      program,
      args: [...args],
      cwd: options.cwd,
      env,
      input: options.input,
      bytes,
      maxBuffer: options.maxBuffer,
    };
    try {
      worker.postMessage(run);
    } catch (error) {
      waiting.delete(id);
      if (waiting.size === 0) worker.unref();
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/** Stops the launcher (Byre quitting, or a test): runs not finished end as failed; the next run starts it again. */
export async function stopLauncher(): Promise<void> {
  const worker = launcher;
  if (!worker) return;
  launcher = null;
  failAll("Byre's launcher of programs was stopped; the run did not finish.");
  await worker.terminate();
}

import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Starts a worker thread on a script. The built app runs bundled JavaScript. Under vitest the script is
 * TypeScript source: Node 20 does not apply `--import tsx` to a worker's entry file, so a one-line bootstrap
 * registers tsx and then imports it.
 */
export function startWorker(
  script: string | URL,
  workerData: unknown,
  resourceLimits?: ResourceLimits,
): Worker {
  const path = typeof script === 'string' ? script : fileURLToPath(script);
  if (!path.endsWith('.ts'))
    return new Worker(path, { workerData, ...(resourceLimits ? { resourceLimits } : {}) });
  const entry = JSON.stringify(pathToFileURL(path).href);
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${entry}); });`;
  return new Worker(bootstrap, { eval: true, workerData, ...(resourceLimits ? { resourceLimits } : {}) });
}

/** Every live CLI child, so the app can end them all when it quits. */

interface Killable {
  kill(): void;
}

export const liveProcesses = new Set<Killable>();

/** Kills every CLI child still running; for app quit, where waiting is not an option. */
export function killAllCliProcesses(): number {
  const count = liveProcesses.size;
  for (const child of [...liveProcesses]) child.kill();
  return count;
}

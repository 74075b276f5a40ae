import { reportEventLoopDelay } from '../main/hosts/event-loop-report';

/**
 * A Node process that does nothing but measure its own event-loop delay, as the host does (SIGUSR2 reports
 * it): run beside the host, it is the machine's floor for the host's figure. Whatever delay it sees came
 * from waiting for a CPU, since it has no work of its own. It ends when its stdin closes, so it never
 * outlives the benchmark.
 */
reportEventLoopDelay();
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));

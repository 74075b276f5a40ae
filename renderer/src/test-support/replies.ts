/**
 * For tests of what the renderer does while main answers: replies held until the test lets them land, in
 * the order it picks, so a race is played out the same way every time rather than left to the clock.
 */

/** Main's replies, each held until the test lets it land, in whatever order the test picks. */
export function heldReplies<A>() {
  const held = new Map<string, { resolve(value: A): void; reject(error: Error): void }>();
  return {
    answer: (question: string) =>
      new Promise<A>((resolve, reject) => held.set(question, { resolve, reject })),
    reply(question: string, value: A) {
      held.get(question)?.resolve(value);
    },
    fail(question: string, error: Error) {
      held.get(question)?.reject(error);
    },
  };
}

/** Lets every reply that has landed reach its handler (promise callbacks run before the next macrotask). */
export const landed = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * One git job at a time per work tree, across conversations: two conversations in the same repository (two
 * tabs, or subfolders of one) share its private index, and two `git add`s on one index would collide on its
 * lock file and lose a snapshot. Each conversation's own queue keeps its steps in order; this keeps the
 * conversations of one work tree from overlapping.
 */
const chains = new Map<string, Promise<unknown>>();

export function inWorkTree<T>(workTree: string, work: () => Promise<T>): Promise<T> {
  const done = (chains.get(workTree) ?? Promise.resolve()).then(work);
  const chain = done.catch(() => undefined);
  chains.set(workTree, chain);
  // The last job done, the entry goes: a process that opens many folders keeps none of them.
  void chain.then(() => {
    if (chains.get(workTree) === chain) chains.delete(workTree);
  });
  return done;
}

import { useEffect, useRef, useState } from 'react';

/**
 * A question put to main again at each key (the composer's `@` files, the protocol inspector's search): only
 * the answer to the latest one is kept. An answer to a question asked since is dropped when it lands, so an
 * older answer never replaces a newer one, whatever order main's replies come in. Each answer carries its
 * question, so what is shown can say which question it answers.
 */

export type Answer<Q, A> = { question: Q; value: A } | { question: Q; error: string };

export class LatestAnswer<Q, A> {
  private asked = 0;

  constructor(private readonly onAnswer: (answer: Answer<Q, A>) => void) {}

  ask(question: Q, answer: (question: Q) => Promise<A>): void {
    const number = ++this.asked;
    answer(question).then(
      (value) => number === this.asked && this.onAnswer({ question, value }),
      (error: unknown) =>
        number === this.asked &&
        this.onAnswer({ question, error: error instanceof Error ? error.message : String(error) }),
    );
  }

  /** Whatever is on its way will be dropped (the question went away). */
  drop(): void {
    this.asked++;
  }
}

/**
 * The latest answer to `question` (asked again when its `key` changes; null asks nothing). Until the answer
 * to a new question comes, the last answer stays, so a list does not flicker at each key; its `question`
 * tells the two apart.
 */
export function useLatestAnswer<Q, A>(
  question: Q | null,
  key: string,
  answer: (question: Q) => Promise<A>,
): Answer<Q, A> | null {
  const [latest, setLatest] = useState<Answer<Q, A> | null>(null);
  const asker = useRef<LatestAnswer<Q, A> | null>(null);
  useEffect(() => {
    if (question === null) return;
    asker.current ??= new LatestAnswer(setLatest);
    const current = asker.current;
    current.ask(question, answer);
    return () => current.drop();
    // The key stands for the question: a new object with the same key is the same question.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return latest;
}

import { describe, expect, it } from 'vitest';
import { LatestAnswer, type Answer } from './latest';
import { heldReplies, landed } from '../test-support/replies';

/** Only the latest question's answer is kept, whatever order main's replies land in. */

describe('LatestAnswer', () => {
  it('keeps the answer to the latest question, whatever order the replies land in', async () => {
    const main = heldReplies<number>();
    const answers: Answer<string, number>[] = [];
    const latest = new LatestAnswer<string, number>((answer) => answers.push(answer));
    latest.ask('a', main.answer);
    latest.ask('ab', main.answer);
    main.reply('ab', 2);
    await landed();
    // The reply to the older search lands after the newer one's: it is dropped.
    main.reply('a', 1);
    await landed();
    expect(answers).toEqual([{ question: 'ab', value: 2 }]);
  });

  it('says what failed, and drops what was on its way once the question went away', async () => {
    const main = heldReplies<number>();
    const answers: Answer<string, number>[] = [];
    const latest = new LatestAnswer<string, number>((answer) => answers.push(answer));
    latest.ask('x', main.answer);
    main.fail('x', new Error('the folder is gone'));
    await landed();
    latest.ask('y', main.answer);
    latest.drop();
    main.reply('y', 1);
    await landed();
    expect(answers).toEqual([{ question: 'x', error: 'the folder is gone' }]);
  });
});

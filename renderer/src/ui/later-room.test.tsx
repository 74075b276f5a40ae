import { Suspense } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { laterRoom } from './later-room';

/** A room loaded after the first screen: the fallback until its code has come, then the room at once. */

function Greeting({ name }: { name: string }) {
  return <p>Hello, {name}</p>;
}

const page = (Room: (props: { name: string }) => React.ReactNode) =>
  renderToStaticMarkup(
    <Suspense fallback={<p>Loading…</p>}>
      <Room name="Ada" />
    </Suspense>,
  );

describe('a room loaded later', () => {
  it('shows the fallback before its code has come, and the room itself (not a suspended one) after', async () => {
    let loads = 0;
    const room = laterRoom(async () => {
      loads += 1;
      return Greeting;
    });
    expect(page(room.Room)).toBe('<p>Loading…</p>');
    await room.preload();
    await room.preload();
    expect(page(room.Room)).toBe('<p>Hello, Ada</p>');
    expect(loads).toBe(1);
  });

  it('asks again after a load that failed', async () => {
    let tries = 0;
    const room = laterRoom(async () => {
      tries += 1;
      if (tries === 1) throw new Error('offline');
      return Greeting;
    });
    await expect(room.preload()).rejects.toThrow('offline');
    await room.preload();
    expect(page(room.Room)).toBe('<p>Hello, Ada</p>');
  });
});

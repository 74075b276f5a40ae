import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { laterRoom } from './later-room';

/** A room loaded after the first screen: what it shows while its code comes, then the room at once. */

function Greeting({ name }: { name: string }) {
  return <p>Hello, {name}</p>;
}

describe('a room loaded later', () => {
  it('shows its waiting text before its code has come, and the room itself after, loading it once', async () => {
    let loads = 0;
    const room = laterRoom(
      async () => {
        loads += 1;
        return Greeting;
      },
      <p>Loading…</p>,
    );
    expect(renderToStaticMarkup(<room.Room name="Ada" />)).toBe('<p>Loading…</p>');
    await room.preload();
    await room.preload();
    expect(renderToStaticMarkup(<room.Room name="Ada" />)).toBe('<p>Hello, Ada</p>');
    expect(loads).toBe(1);
  });

  it('asks again after a load that failed', async () => {
    let tries = 0;
    const room = laterRoom(
      async () => {
        tries += 1;
        if (tries === 1) throw new Error('offline');
        return Greeting;
      },
      <p>Loading…</p>,
    );
    await expect(room.preload()).rejects.toThrow('offline');
    await room.preload();
    expect(renderToStaticMarkup(<room.Room name="Ada" />)).toBe('<p>Hello, Ada</p>');
  });
});

import { createElement, lazy, type ComponentType } from 'react';

/**
 * A room whose code loads after the first screen: `preload` fetches it (the window does while idle), and
 * once it has come the room renders at once. React.lazy alone would suspend on its first render even then,
 * and React holds a shown fallback for some 300 ms before it reveals what came: opening a conversation
 * would wait that long every first time.
 */
export function laterRoom<P extends object>(load: () => Promise<ComponentType<P>>) {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  const preload = (): Promise<ComponentType<P>> =>
    (loading ??= load().then(
      (room) => (loaded = room),
      (error: unknown) => {
        // Asked again next time (a failed fetch is not kept).
        loading = null;
        throw error;
      },
    ));
  const Lazy = lazy(() => preload().then((room) => ({ default: room })));
  function Room(props: P) {
    return loaded ? createElement(loaded, props) : createElement(Lazy, props);
  }
  return { Room, preload };
}

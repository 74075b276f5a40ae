import { createElement, useEffect, useState, type ComponentType, type ReactNode } from 'react';

/**
 * A room whose code loads after the first screen: `preload` fetches it (the window does while idle), and
 * the room shows `waiting` until its code has come, then itself. Not React.lazy: that suspends, and React
 * holds a Suspense fallback it has shown for some 300 ms before it reveals what came, so opening a
 * conversation just after the window opened would wait that long for code that took 20 ms. A load that
 * fails is thrown to the nearest error boundary, and asked for again the next time the room is shown.
 */
export function laterRoom<P extends object>(load: () => Promise<ComponentType<P>>, waiting: ReactNode) {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  const preload = (): Promise<ComponentType<P>> =>
    (loading ??= load().then(
      (room) => (loaded = room),
      (error: unknown) => {
        loading = null;
        throw error;
      },
    ));
  function Room(props: P): ReactNode {
    const [, setCome] = useState(loaded !== null);
    const [failed, setFailed] = useState<unknown>(null);
    useEffect(() => {
      if (loaded) return;
      let shown = true;
      preload().then(
        () => shown && setCome(true),
        (error: unknown) => shown && setFailed(error instanceof Error ? error : new Error(String(error))),
      );
      return () => {
        shown = false;
      };
    }, []);
    if (failed) throw failed;
    return loaded ? createElement(loaded, props) : waiting;
  }
  return { Room, preload };
}

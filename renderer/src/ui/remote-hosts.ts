/**
 * The hosts of the one ssh config file, for a field that offers them (the new-conversation form's "Where",
 * Settings' setup commands): asked once when it is shown; none while asked, or when they cannot be listed
 * (a host can still be typed where the field allows it).
 */
import { useEffect, useState } from 'react';
import { useStore } from '../state/store';

export function useRemoteHosts(): string[] {
  const listRemoteHosts = useStore((state) => state.listRemoteHosts);
  const [hosts, setHosts] = useState<string[]>([]);
  useEffect(() => {
    let shown = true;
    listRemoteHosts().then(
      (list) => shown && setHosts(list.hosts),
      () => undefined,
    );
    return () => {
      shown = false;
    };
  }, [listRemoteHosts]);
  return hosts;
}

/**
 * The one resolver of which computer a folder is on, and of the key what Byre keeps by folder knows it by:
 * this computer, or a host by its name, with its git and files over ssh (host-machine.ts).
 */
import { hostFolderKey } from '../data/host-folders';
import { thisMachine, type Machine } from './machine';

/** Where a repository is: this computer, or a host (by its name) and its git and files over ssh. */
export interface On {
  host: string | null;
  machine: Machine;
}
export const HERE: On = { host: null, machine: thisMachine };

/** What knows the hosts' machines (remote/hosts.ts). */
export interface Hosts {
  machine(host: string): Machine;
}

/** A host's repository's place (its git and files over ssh), or this computer's for none. */
export function where(remote: Hosts, host: string | null | undefined): On {
  return host ? { host, machine: remote.machine(host) } : HERE;
}

/** What settings kept by folder (the setup command) know a repository's folder by: a host's is its own. */
export function settingsKey(on: On, folder: string): string {
  return on.host ? hostFolderKey(on.host, folder) : folder;
}

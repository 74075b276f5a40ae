import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf, hashedHostName } from './host-keys';

/** What Byre writes to known_hosts and shows of a key, checked against OpenSSH's own tools. */

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function newKey(): { folder: string; type: string; key: string } {
  const folder = mkdtempSync(join(tmpdir(), 'byre-keys-'));
  folders.push(folder);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(folder, 'key')]);
  const [type = '', key = ''] = readFileSync(join(folder, 'key.pub'), 'utf8').split(' ');
  return { folder, type, key };
}

describe('host keys', () => {
  it('have the fingerprint ssh-keygen -l prints', () => {
    const { folder, key } = newKey();
    const printed = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(folder, 'key.pub')], {
      encoding: 'utf8',
    }).split(' ')[1];
    expect(fingerprintOf(key)).toBe(printed);
  });

  it('are written under a hashed name that ssh finds, when HashKnownHosts is on', () => {
    const { folder, type, key } = newKey();
    const file = join(folder, 'known_hosts');
    writeFileSync(file, `${hashedHostName('[10.0.0.7]:2222')} ${type} ${key}\n`);
    expect(readFileSync(file, 'utf8')).not.toContain('10.0.0.7');
    const found = (name: string) => spawnSync('ssh-keygen', ['-F', name, '-f', file], { encoding: 'utf8' });
    expect(found('[10.0.0.7]:2222').status).toBe(0);
    expect(found('[10.0.0.8]:2222').stdout).toBe('');
  });
});

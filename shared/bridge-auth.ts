import { z } from 'zod';

/**
 * The browser host's handshake (main/hosts/web-bridge.ts, renderer/src/host/bridge-client.ts). The per-launch token
 * stays in the page's address fragment and never travels: the page proves it holds the token, and the
 * server proves it holds it too, each with an HMAC over a fresh nonce.
 *
 * 1. The page opens `/bridge?nonce=<nonce>&proof=<bridgeProof(token, 'client', nonce)>`.
 * 2. The server checks the proof and answers with a hello: `bridgeProof(token, 'server', nonce)`, and the
 *    key that image addresses carry (`bridgeProof(token, 'images')`, not the token). A wrong proof gets
 *    the socket closed with UNAUTHORIZED_CLOSE.
 * 3. The page sends nothing before a hello with the right proof. Anything else on the port (a process that
 *    took it after Byre exited, or a later Byre with another token) is not this launch: the page stops.
 *
 * 4. A file the host offers the page (an export) is fetched from `/downloads/<id>?proof=<bridgeProof(token,
 *    'download', id)>`, once: the id came over the proven socket, and the proof shows the page holds the token.
 *
 * A local web page cannot compute either proof, and a server that is not this launch learns nothing from
 * what a stale page sends it.
 */

/** Closes a socket whose proof was wrong: the address is from another launch. */
export const UNAUTHORIZED_CLOSE = 4401;

/** 32 random bytes, base64url: 43 characters. */
export const BridgeNonce = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export const HelloFrame = z.object({
  hello: z.object({ proof: z.string(), imagesKey: z.string() }),
});
export type HelloFrame = z.infer<typeof HelloFrame>;

export type ProofRole = 'client' | 'server' | 'images' | 'download';

/** HMAC-SHA256 of `byre-bridge <role> <nonce>` keyed by the token, base64url (WebCrypto: page and Node). */
export async function bridgeProof(token: string, role: ProofRole, nonce = ''): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(token),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`byre-bridge ${role} ${nonce}`));
  return base64url(new Uint8Array(mac));
}

export function newBridgeNonce(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

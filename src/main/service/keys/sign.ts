import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/*
 * The Cobo WaaS 2.0 request signature, the one implementation of it on each side: the CLI's
 * `call`, the tests and the benchmark sign with signRequest; the service checks with verifyRequest.
 */

// DER wrappers that turn a raw 32-byte Ed25519 seed / public key into PKCS#8 / SPKI (RFC 8410).
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const HEX64 = /^[0-9a-fA-F]{64}$/;
const HEX128 = /^[0-9a-fA-F]{128}$/;

export const HEADER_KEY = 'biz-api-key';
export const HEADER_NONCE = 'biz-api-nonce';
export const HEADER_SIGNATURE = 'biz-api-signature';

export interface SignedParts {
  method: string;
  /** URL path without the query, exactly as sent. */
  path: string;
  nonce: string;
  /** Raw query string without '?', exactly as sent; '' if none. */
  query: string;
  /** Raw body bytes (or their text) exactly as sent; '' if none. */
  body: Buffer | string;
}

export const isKeyHex = (s: string): boolean => HEX64.test(s);

export function privateKeyFromSeed(seedHex: string): KeyObject {
  if (!HEX64.test(seedHex)) throw new Error('API secret: must be a 32-byte Ed25519 seed as 64 hex digits');
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(seedHex, 'hex')]), format: 'der', type: 'pkcs8' });
}

export function publicKeyFromHex(keyHex: string): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(keyHex, 'hex')]), format: 'der', type: 'spki' });
}

/** Public keys already decoded, by hex: decoding one is a measurable part of a signed request's check. A key is public, so keeping it is harmless. */
const verifyingKeys = new Map<string, KeyObject>();
const VERIFYING_KEYS_KEPT = 256;

function verifyingKey(keyHex: string): KeyObject {
  let key = verifyingKeys.get(keyHex);
  if (key === undefined) {
    if (verifyingKeys.size >= VERIFYING_KEYS_KEPT) verifyingKeys.clear();
    verifyingKeys.set(keyHex, (key = publicKeyFromHex(keyHex)));
  }
  return key;
}

/** The raw 32-byte public key of a private key, as lower-case hex: the API key. */
function publicKeyHex(privateKey: KeyObject): string {
  const der = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return der.subarray(SPKI_ED25519_PREFIX.length).toString('hex');
}

export const apiKeyOfSecret = (seedHex: string): string => publicKeyHex(privateKeyFromSeed(seedHex));

/** A fresh key pair: the secret is the 32-byte seed, the key the 32-byte public key, both hex. */
export function generateApiKeyPair(): { api_key: string; api_secret: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_ED25519_PREFIX.length);
  return { api_key: publicKeyHex(privateKey), api_secret: seed.toString('hex') };
}

/** SHA-256(SHA-256("METHOD|PATH|NONCE|QUERY|BODY")), the body taken as the bytes on the wire. */
export function signingDigest(parts: SignedParts): Buffer {
  const head = Buffer.from(`${parts.method.toUpperCase()}|${parts.path}|${parts.nonce}|${parts.query}|`, 'utf8');
  const body = typeof parts.body === 'string' ? Buffer.from(parts.body, 'utf8') : parts.body;
  const once = createHash('sha256').update(head).update(body).digest();
  return createHash('sha256').update(once).digest();
}

/** Biz-Api-Signature for a request: hex of the Ed25519 signature over the digest. */
export function signRequest(secretHex: string, parts: SignedParts): string {
  return sign(null, signingDigest(parts), privateKeyFromSeed(secretHex)).toString('hex');
}

export function verifyRequest(keyHex: string, signatureHex: string, parts: SignedParts): boolean {
  if (!HEX64.test(keyHex) || !HEX128.test(signatureHex)) return false;
  try {
    return verify(null, signingDigest(parts), verifyingKey(keyHex), Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}

/** The three headers of a signed request, the nonce being the current time in Unix milliseconds. */
export function signedHeaders(secretHex: string, req: Omit<SignedParts, 'nonce'>, nowMs: number = Date.now()): Record<string, string> {
  const nonce = String(nowMs);
  return {
    'BIZ-API-KEY': apiKeyOfSecret(secretHex),
    'Biz-Api-Nonce': nonce,
    'Biz-Api-Signature': signRequest(secretHex, { ...req, nonce }),
  };
}

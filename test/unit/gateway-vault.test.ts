/**
 * The passphrase vault for remembered keys (src/gateway/core/vault.ts, issue 17): PBKDF2-SHA-256 with a random salt,
 * AES-GCM sealing with a random IV; a wrong passphrase, a changed check value or changed sealed bytes fail with a
 * VaultError; passphrases under 8 characters are refused. WebCrypto here is Node's, the browser's API.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createVault, deriveKey, seal, unlockVault, unseal, VAULT_ITERATIONS, VaultError } from '../../src/gateway/core/vault';

// the real count costs ~0.5 s per derivation here; the vault stores whatever count it was made with
const FAST = 1000;

describe('gateway vault', () => {
  it('the right passphrase opens what was sealed; a vault records its KDF, count and salt', async () => {
    const { meta, key } = await createVault('correct horse', FAST);
    assert.equal(meta.kdf, 'PBKDF2-SHA-256');
    assert.equal(meta.iterations, FAST);
    assert.equal(atob(meta.salt).length, 16);
    const sealed = await seal(key, 'sk-proj-remembered-key');
    assert.notEqual(sealed.ct, btoa('sk-proj-remembered-key'));
    assert.equal(atob(sealed.iv).length, 12);
    const again = await unlockVault(meta, 'correct horse');
    assert.equal(await unseal(again, sealed), 'sk-proj-remembered-key');
    // a new IV each time: the same text seals differently
    assert.notEqual((await seal(key, 'x')).iv, (await seal(key, 'x')).iv);
    assert.equal(VAULT_ITERATIONS, 600_000);
  });

  it('a wrong passphrase, a changed check or changed sealed bytes fail with a VaultError', async () => {
    const { meta, key } = await createVault('correct horse', FAST);
    await assert.rejects(unlockVault(meta, 'correct horsf'), (e: Error) => e instanceof VaultError && e.name === 'VaultError');
    const sealed = await seal(key, 'secret');
    const flipped = atob(sealed.ct);
    const bad = { ...sealed, ct: btoa(String.fromCharCode(flipped.charCodeAt(0) ^ 1) + flipped.slice(1)) };
    await assert.rejects(unseal(key, bad), /does not open the stored keys/);
    const other = await deriveKey('correct horse', new Uint8Array(16), FAST);
    await assert.rejects(unseal(other, sealed), VaultError);
    // a check value that opens but is not the known text
    await assert.rejects(unlockVault({ ...meta, check: await seal(key, 'something else') }, 'correct horse'), /does not open the stored keys/);
  });

  it('the derived key never leaves the page (not extractable); a vault an earlier build made still opens', async () => {
    const { meta, key } = await createVault('correct horse', FAST);
    await assert.rejects(crypto.subtle.exportKey('raw', key));
    await assert.rejects(crypto.subtle.exportKey('raw', await unlockVault(meta, 'correct horse')));
    // a stored vault: its check value is this text sealed with the key (changing the text would lock out every user)
    const salt = new Uint8Array(16).fill(7);
    const old = await deriveKey('correct horse', salt, FAST);
    const stored = { kdf: 'PBKDF2-SHA-256' as const, iterations: FAST, salt: btoa(String.fromCharCode(...salt)), check: await seal(old, 'agentworld-vault-check-v1') };
    assert.equal(await unseal(await unlockVault(stored, 'correct horse'), await seal(old, 'kept')), 'kept');
  });

  it('a passphrase under 8 characters is refused', async () => {
    await assert.rejects(createVault('1234567', FAST), /at least 8 characters/);
    await createVault('12345678', FAST);
  });
});

// Remembered keys encrypted with a passphrase: what IndexedDB holds, a wrong passphrase, unlock after a reload, the UI.
import { expect } from '@esm-bundle/chai';
import { openJournal } from '../../src/gateway/core/journal';
import { getSettings, keyProtection, protectKeys, reloadSettings, setSettings, unlockKeys, unprotectKeys } from '../../src/gateway/page/settings';
import { defaultSettings, type GatewaySettings } from '../../src/gateway/core/upstream';
import { deriveKey, VaultError } from '../../src/gateway/core/vault';
import '../../src/views/gateway/aw-gateway';

const KEY = 'vault-test-Key-0123456789-abcdef';
const PASS = 'correct horse battery staple';

/** Every value in the gateway's IndexedDB, as stored (decoded by IndexedDB, not by us). */
async function storedText(): Promise<string> {
  const db = await openJournal();
  const out: unknown[] = [];
  for (const store of ['journal', 'trajectories', 'links', 'settings'] as const) out.push(await db.getAll(store));
  return JSON.stringify(out);
}

function withRemembered(s: GatewaySettings, key: string | null): GatewaySettings {
  return { ...s, upstreams: [...s.upstreams.filter((u) => u.id !== 'vault-test'), { id: 'vault-test', name: 'vault test', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', key, remember: true, models: [] }] };
}

describe('remembered keys: passphrase encryption', () => {
  after(async () => {
    await unprotectKeys().catch(() => {});
    await setSettings(defaultSettings());
  });

  it('without a passphrase a remembered key is stored in clear (what the UI warns about)', async () => {
    await setSettings(withRemembered(await getSettings(), KEY));
    expect(keyProtection()).to.equal('clear');
    expect(await storedText()).to.include(KEY);
  });

  it('with a passphrase the stored settings hold no key; a wrong passphrase fails cleanly; the right one restores the key after a reload', async () => {
    await protectKeys(PASS);
    expect(keyProtection()).to.equal('unlocked');
    const stored = await storedText();
    expect(stored).not.to.include(KEY);
    expect(stored).to.include('sealedKey');
    expect((await getSettings()).upstreams.find((u) => u.id === 'vault-test')?.key).to.equal(KEY, 'still usable in this tab');

    // a reload: memory gone, keys locked
    const after = await reloadSettings();
    expect(keyProtection()).to.equal('locked');
    expect(after.upstreams.find((u) => u.id === 'vault-test')?.key).to.equal(null);

    let err: unknown = null;
    try {
      await unlockKeys('wrong passphrase!');
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(VaultError);
    expect(String(err)).to.match(/does not open the stored keys/);
    expect(keyProtection()).to.equal('locked');
    expect((await getSettings()).upstreams.find((u) => u.id === 'vault-test')?.key).to.equal(null);

    // a new remembered key cannot be saved while locked (it would have to be stored in clear)
    let saveErr: unknown = null;
    try {
      await setSettings(withRemembered(await getSettings(), 'another-key-123456789'));
    } catch (e) {
      saveErr = e;
    }
    expect(String(saveErr)).to.match(/Unlock the stored keys/);
    expect(await storedText()).not.to.include('another-key-123456789');

    await unlockKeys(PASS);
    expect(keyProtection()).to.equal('unlocked');
    expect((await getSettings()).upstreams.find((u) => u.id === 'vault-test')?.key).to.equal(KEY);
    expect(await storedText()).not.to.include(KEY);
  });

  it('the derived key cannot be exported', async () => {
    const key = await deriveKey(PASS, new Uint8Array(16), 1000);
    expect(key.extractable).to.equal(false);
    let threw = false;
    try {
      await crypto.subtle.exportKey('raw', key);
    } catch {
      threw = true;
    }
    expect(threw).to.equal(true);
  });

  it('the Gateway panel says keys are stored unencrypted, and unlocks them with the passphrase after a reload', async () => {
    await reloadSettings();
    expect(keyProtection()).to.equal('locked');
    const el = document.createElement('aw-gateway');
    document.body.append(el);
    try {
      const root = () => el.shadowRoot!;
      for (let i = 0; i < 100 && !root()?.querySelector('[aria-label="Passphrase to unlock remembered keys"]'); i++) await new Promise((r) => setTimeout(r, 30));
      expect(root().textContent).to.include('remembered (locked)');
      const input = root().querySelector<HTMLInputElement>('[aria-label="Passphrase to unlock remembered keys"]')!;
      const submit = async (value: string) => {
        input.value = value;
        input.form!.requestSubmit();
        for (let i = 0; i < 200; i++) {
          await new Promise((r) => setTimeout(r, 30));
          if (root().querySelector('[role=alert]') || keyProtection() === 'unlocked') break;
        }
      };
      await submit('not the passphrase');
      expect(root().querySelector('[role=alert]')?.textContent).to.match(/does not open the stored keys/);
      await submit(PASS);
      expect(keyProtection()).to.equal('unlocked');
      await el.updateComplete;
      expect(root().textContent).to.include('remembered (encrypted)');
      // store them unencrypted again: the panel then warns they are in clear
      root().querySelector<HTMLButtonElement>('[aria-label="Remembered keys"] button')!.click();
      // the panel re-reads the settings after the store has changed (keyProtection() is 'clear' before it renders so)
      const clear = /stored\s+unencrypted\s+in this browser's IndexedDB/;
      for (let i = 0; i < 200 && !clear.test(root().textContent ?? ''); i++) await new Promise((r) => setTimeout(r, 30));
      expect(keyProtection()).to.equal('clear');
      expect(root().textContent).to.match(clear);
      expect(await storedText()).to.include(KEY);
    } finally {
      el.remove();
    }
  });
});

import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { installAptPackages } from '../../harness/stack/apt';

/** Debian's Chromium (installed here on first use: no browser download from a test tool). */
const CHROMIUM = '/usr/bin/chromium';
/** Where browser tests leave screenshots and page text (git-ignored). */
export const ARTIFACTS = resolve(__dirname, '..', '..', 'artifacts');
/**
 * A quiet, self-contained headless run: no sandbox (tests run as root), and none of the
 * background connections a closed network would refuse.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Headless Chromium for a browser test, installed first when missing; ARTIFACTS exists. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    await installAptPackages(['chromium'], (m) => process.stdout.write(`      ${m}\n`));
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

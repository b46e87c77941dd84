// Browser tests in Debian's Chromium against the real built app on a random loopback port.
// The runner picks the port and data dir once; workers inherit them through the environment.

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from '@playwright/test'

process.env.E2E_PORT ??= String(20000 + Math.floor(Math.random() * 30000))
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'gateway-e2e-'))
process.env.E2E_JWT_SECRET ??= 'e2e-secret-0123456789-abcdefghijklmnopqrstuvwxyz'
const baseURL = `http://127.0.0.1:${process.env.E2E_PORT}`

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.e2e.ts',
  outputDir: 'test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: process.env.CI ? 'list' : [['list']],
  use: {
    baseURL,
    locale: 'ru-RU',
    timezoneId: 'Europe/Moscow',
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  webServer: {
    command: 'bun src/index.ts',
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 30_000,
    env: {
      HOST: '127.0.0.1',
      PORT: process.env.E2E_PORT,
      DATA_DIR: process.env.E2E_DATA_DIR,
      PUBLIC_URL: baseURL,
      JWT_SECRET: process.env.E2E_JWT_SECRET,
      ADMIN_EMAILS: 'admin@e2e.ru',
      // Every browser test registers from 127.0.0.1; the limits themselves are covered by the API tests.
      AUTH_RATE_LIMIT_SCALE: '20',
      // The journeys expect the welcome bonus at registration; the confirmation flow has its own server in email-verification.e2e.ts.
      REQUIRE_EMAIL_VERIFICATION: 'false',
      // Beside the demo router, one upstream in Russia with one model (sber/gigachat-2-max) for the
      // residency screens (issue 35); nothing listens at its address, the UI tests need only the catalogue.
      UPSTREAMS_FILE: fileURLToPath(new URL('./e2e/upstreams.json', import.meta.url)),
    },
  },
})

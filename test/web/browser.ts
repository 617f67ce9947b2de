import { afterEach } from "@effect/vitest"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { assertBuilt, repoRoot, startServer, stop } from "../support/cli.js"

/**
 * What the real-browser tests share: Debian's chromium driven by playwright-core (the CI
 * installs it with apt) against the real, built server, and cleanup that always runs.
 */
const chromiumPath = "/usr/bin/chromium"
export const artifacts = join(repoRoot, "test-artifacts")

/** The built server and the built page: their absence is a clear failure, not a blank page. */
export const assertWebBuilt = () => {
  assertBuilt()
  if (!existsSync(join(repoRoot, "dist", "web", "index.html"))) {
    throw new Error("dist/web is missing: run `npm run build` first (npm test does)")
  }
}

/** Registers the after-each cleanup of a test file; call it once, at the top level. */
export const browserTestKit = () => {
  const cleanups: Array<() => Promise<void> | void> = []
  afterEach(async () => {
    // Last acquired, first released; every step runs even if one fails.
    const errors: Array<unknown> = []
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup()
      } catch (error) {
        errors.push(error)
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, "cleanup failed")
  })

  const defer = (cleanup: () => Promise<void> | void) => {
    cleanups.push(cleanup)
  }

  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    defer(() => rmSync(dir, { recursive: true, force: true }))
    return dir
  }

  const launch = async (): Promise<Browser> => {
    if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: install Debian's chromium (apt-get install chromium)`)
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
    defer(() => browser.close())
    return browser
  }

  /** Data and config directories for a server; a restarted server is given its predecessor's. */
  const serverDirs = () => ({ data: tempDir("web-data-"), config: tempDir("web-config-") })

  /** The built server on the scripted model playing `script`, with data and config directories of its own unless given, on `port` if given, with `more` arguments. */
  const startScriptedServer = async (script: unknown, dirs = serverDirs(), port?: number, more: ReadonlyArray<string> = []) => {
    const scriptFile = join(tempDir("web-script-"), "script.json")
    writeFileSync(scriptFile, JSON.stringify(script))
    const server = await startServer(["--model", "scripted", "--script", scriptFile, "--data-dir", dirs.data, ...more], {
      env: { CUSTOM_AGENT_CONFIG_HOME: dirs.config },
      timeoutMs: 60_000,
      ...(port === undefined ? {} : { port })
    })
    defer(() => stop(server.child))
    return server
  }

  /** A page in a fresh browser, and how to open more; `pageErrors` collects their uncaught errors. */
  const openPage = async () => {
    const browser = await launch()
    const pageErrors: Array<string> = []
    const newPage = async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
      page.setDefaultTimeout(45_000)
      page.on("pageerror", (error) => pageErrors.push(error.message))
      return page
    }
    return { page: await newPage(), pageErrors, newPage }
  }

  return { defer, tempDir, launch, serverDirs, startScriptedServer, openPage }
}

/** Opens the page with the server's token and creates a session in `cwd` through the UI. */
export const openNewSession = async (page: Page, server: { readonly url: string; readonly token: string }, cwd: string) => {
  await page.goto(`${server.url}/#token=${server.token}`)
  // The token leaves the address bar as soon as the page has it.
  await page.waitForFunction(() => !location.hash.includes("token="))
  await page.getByRole("button", { name: "New session" }).click()
  await page.locator("input[name=cwd]").fill(cwd)
  await page.getByRole("button", { name: "Create session" }).click()
  await page.waitForURL(/\?session=/)
  await page.locator(".session-header", { hasText: cwd }).waitFor()
}

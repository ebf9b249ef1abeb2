// Lighthouse's SEO category for each URL given, in one Chromium and one Node process: prints
// {"url": {"score": 0-1, "failing": [{"id", "title", "details"}]}} as JSON. Run by
// tests/browser/test_lighthouse.py; CHROME_PATH names the browser (Debian's chromium).
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

// Only the SEO category, without the full-page screenshot (seconds a page, used by none of
// its audits). Lighthouse's other defaults stay: desktop emulation and skipping the waits
// for a quiet network made the navigation slower here, not faster.
const CONFIG = {
  extends: "lighthouse:default",
  settings: { onlyCategories: ["seo"], disableFullPageScreenshot: true },
};
const urls = process.argv.slice(2);
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH,
  chromeFlags: JSON.parse(process.env.CHROME_FLAGS || "[]"),
});
const results = {};
try {
  for (const url of urls) {
    const run = await lighthouse(url, { port: chrome.port, logLevel: "error" }, CONFIG);
    const { lhr } = run;
    if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.message}`);
    const failing = lhr.categories.seo.auditRefs
      .map((ref) => lhr.audits[ref.id])
      .filter((audit) => audit.score !== null && audit.score < 1)
      .map((audit) => ({ id: audit.id, title: audit.title, details: audit.details }));
    results[url] = { score: lhr.categories.seo.score, failing };
  }
} finally {
  await chrome.kill();
}
process.stdout.write(JSON.stringify(results));

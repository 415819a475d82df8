#!/usr/bin/env node
// The API report of every public entry point of both packages (api-reports/<entry>.api.md), made by
// API Extractor from the built declarations (`npm run build` first). `npm run api:report` rewrites
// the reports; `node scripts/apiReport.mjs --check` (test/package/apiReports.test.ts, so CI) fails
// when the public API differs from the committed reports, so every change to what users import
// shows in review as a change to a report.
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const reportFolder = `${root}api-reports`;
const check = process.argv.includes('--check');

/** Every entry with types, of both packages: [report name, declaration file]. */
function entries() {
  const list = [];
  for (const [dir, manifestPath] of [
    ['', 'package.json'],
    ['emulator/', 'emulator/package.json'],
  ]) {
    const manifest = JSON.parse(readFileSync(`${root}${manifestPath}`, 'utf8'));
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target !== 'object' || target.types === undefined) continue;
      const name = `${manifest.name}${subpath === '.' ? '' : subpath.slice(1)}`.replaceAll('/', '.');
      list.push([name, `${root}${dir}${target.types.replace(/^\.\//, '')}`]);
    }
  }
  return list;
}

const failures = [];
mkdirSync(reportFolder, { recursive: true });
for (const [name, declarations] of entries()) {
  if (!existsSync(declarations)) {
    failures.push(`${name}: ${declarations} is missing (run npm run build first)`);
    continue;
  }
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: declarations,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            lib: ['ES2023', 'DOM', 'DOM.Iterable', 'WebWorker'],
            types: ['node'],
            jsx: 'react-jsx',
            strict: true,
            skipLibCheck: true,
          },
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: `${name}.api.md`,
        reportFolder,
        reportTempFolder: `${root}.artifacts/api-reports`,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // Doc comments are TypeDoc's business (typedoc.config.mjs fails on an undocumented export).
        tsdocMessageReporting: { default: { logLevel: 'none' } },
        extractorMessageReporting: { default: { logLevel: 'none' } },
        compilerMessageReporting: { default: { logLevel: 'warning' } },
      },
    },
    configObjectFullPath: `${root}api-extractor.json`,
    packageJsonFullPath: `${root}package.json`,
  });
  let result;
  try {
    result = Extractor.invoke(config, { localBuild: !check, showVerboseMessages: false });
  } catch (error) {
    failures.push(
      `${name}: API Extractor could not analyse it: ${error instanceof Error ? error.message : String(error)}`,
    );
    continue;
  }
  if (check && result.apiReportChanged)
    failures.push(
      `${name}: the public API differs from api-reports/${name}.api.md (run npm run api:report and commit the report)`,
    );
  else if (!result.succeeded) failures.push(`${name}: API Extractor failed (${result.errorCount} errors)`);
  else console.log(`${name}: ${check ? 'matches its report' : `api-reports/${name}.api.md`}`);
}
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}

/**
 * Starting a JavaScript entry point that may be a TypeScript source. The build (dist/) runs the
 * compiled .js files directly. Tests run the sources through ts-jest, which a worker thread or a
 * child process does not inherit: for a `.ts` entry, the code below first teaches `require` to
 * transpile `.ts` files with the TypeScript compiler (a dev dependency; per-file transpilation,
 * which tsconfig's isolatedModules guarantees is enough; results cached in the temp dir), then
 * requires the entry.
 */
import * as os from 'node:os';
import * as path from 'node:path';

/** JavaScript source that requires `file`, transpiling TypeScript on the fly when it is a `.ts`. */
export function entryCode(file: string): string {
  if (!file.endsWith('.ts')) return `require(${JSON.stringify(file)});`;
  const typescript = require.resolve('typescript');
  const cacheDir = path.join(os.tmpdir(), 'tide-ts-entry-cache');
  // Transpiled files are cached by path, size and mtime: loading the compiler costs seconds.
  return `
    const fs = require('node:fs');
    const path = require('node:path');
    const crypto = require('node:crypto');
    const Module = require('node:module');
    let ts;
    if (!Module._extensions['.ts']) {
      Module._extensions['.ts'] = (module, filename) => {
        const source = fs.readFileSync(filename, 'utf8');
        const stat = fs.statSync(filename);
        const key = crypto.createHash('sha1').update(filename + ':' + stat.size + ':' + stat.mtimeMs + ':' + source).digest('hex');
        const cached = path.join(${JSON.stringify(cacheDir)}, key + '.js');
        let code;
        try {
          code = fs.readFileSync(cached, 'utf8');
        } catch {
          ts = ts || require(${JSON.stringify(typescript)});
          code = ts.transpileModule(source, {
            fileName: filename,
            compilerOptions: {
              module: ts.ModuleKind.CommonJS,
              target: ts.ScriptTarget.ES2022,
              esModuleInterop: true,
              sourceMap: false,
            },
          }).outputText;
          try {
            fs.mkdirSync(${JSON.stringify(cacheDir)}, { recursive: true });
            const tmp = cached + '.' + process.pid + '.tmp';
            fs.writeFileSync(tmp, code);
            fs.renameSync(tmp, cached);
          } catch {}
        }
        module._compile(code, filename);
      };
    }
    require(${JSON.stringify(file)});
  `;
}

/** The sibling module `name` of `dir` with the extension this code runs from (.ts or .js). */
export function siblingEntry(dir: string, name: string, self: string): string {
  return path.join(dir, name + path.extname(self));
}

/** Runs the built `tide` command as a separate process and collects its exit code and output. */
import { spawn } from 'child_process';
import { CLI, REPO_ROOT } from './processes';

export interface CliResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** stdout as UTF-8 text. */
  out: string;
}

/** `tide <args>` with `stdin` written to it (then closed); resolves when the process exits. */
export function runCli(
  args: string[],
  options: { stdin?: string | Buffer; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, TIDE_BOOTSTRAP: '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out);
      resolve({ code, stdout, stderr, out: stdout.toString('utf8') });
    });
    child.stdin.on('error', () => undefined); // the command may exit before reading it all
    child.stdin.end(options.stdin ?? '');
  });
}

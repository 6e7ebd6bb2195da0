/**
 * A deployed app run as its own process, from a folder of its own (a bundle, or the files
 * a tracer shipped): it prints one line of JSON once it listens (its port, and whatever
 * the test wants to see of it), and stops on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { withoutCoverage } from './without-coverage';

export interface DeployedApp<Printed> {
  /** The line of JSON the app printed once it listened. */
  printed: Printed;
  /** What it wrote to stderr so far. */
  stderr: () => string;
  stop: () => void;
}

/** Starts `node file` in `cwd`; resolves with what it printed, or rejects if it exits or says nothing in 10 s. */
export function startDeployed<Printed>(
  file: string,
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<DeployedApp<Printed>> {
  const child = spawn(process.execPath, [file], { cwd, env: { ...withoutCoverage(), ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nothing printed by ${file}: ${stderr}`)), 10_000);
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}: ${stderr}`)));
    child.stdout.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolve({
        printed: JSON.parse(chunk.toString()) as Printed,
        stderr: () => stderr,
        stop: () => child.kill('SIGTERM'),
      });
    });
  });
}

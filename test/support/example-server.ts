/** Starts an example app as a user would (`node examples/.../server.js`) on a free port. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { withoutCoverage } from './without-coverage';

const root = resolve(__dirname, '../..');

export interface RunningExample {
  base: string;
  stop(): void;
}

export async function startExample(relativePath: string, env: Record<string, string> = {}): Promise<RunningExample> {
  const child: ChildProcess = spawn(process.execPath, [resolve(root, relativePath)], {
    cwd: root,
    env: withoutCoverage({ ...process.env, PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8');
  // The examples print their URL once listening; the port is the OS's choice.
  while (!/localhost:(\d+)/.test(output)) {
    const [chunk] = (await once(child.stdout!, 'data')) as [string];
    output += chunk;
  }
  return { base: `http://127.0.0.1:${/localhost:(\d+)/.exec(output)![1]}`, stop: () => child.kill() };
}

// Starting and stopping one benchmark server: a child process, pinned to the
// server CPU with taskset, that prints "listening <port>" when ready or
// "unsupported <reason>" when the framework has no such feature.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serverFile } from './frameworks.mjs';

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

/** `taskset -c <cpu> <command...>`, or the bare command when pinning is off. */
export function pinned(cpu, command, args) {
  return cpu === null ? { command, args } : { command: 'taskset', args: ['-c', String(cpu), command, ...args] };
}

/**
 * The benchmark's own environment, less what makes every Node process slower to
 * start without concerning a server: NODE_EXTRA_CA_CERTS makes Node 20 parse the whole
 * certificate file as it starts (about 40 ms of its 70 to 80 ms cold start on this
 * machine, where it is set system-wide), for TLS connections no server here makes.
 */
function inheritedEnv() {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/**
 * Resolves to `{ port, pid, stop }`, or `{ unsupported: reason }`; rejects with the
 * server's stderr when it dies or stays silent.
 */
export function startServer(framework, kind, { cpu, env, node = process.execPath }) {
  const { command, args } = pinned(cpu, node, [fileURLToPath(serverFile(framework)), kind]);
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...inheritedEnv(), NODE_ENV: 'production', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });

  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`${framework.label} (${kind}) did not start within ${START_TIMEOUT_MS / 1000} s\n${stderr}`));
    }, START_TIMEOUT_MS);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const ready = /^listening (\d+)$/m.exec(stdout);
      const missing = /^unsupported (.*)$/m.exec(stdout);
      if (!ready && !missing) return;
      clearTimeout(timer);
      if (ready) resolve({ port: Number(ready[1]), pid: child.pid, stop });
      else resolve({ unsupported: missing[1] }); // the server exits by itself
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${framework.label} (${kind}) exited (${signal || code}) before listening\n${stderr.trim()}`));
    });
  });
}

/**
 * A real redis-server for the integration tests: started on a free 127.0.0.1
 * port with persistence off (no RDB, no AOF, nothing written to disk), stopped
 * afterwards, and restartable on the same port to test a Redis outage.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';

export interface RedisServer {
  port: number;
  url: string;
  /** Stops the server (SIGTERM, then waits for the exit). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing is answered, as from a hung Redis. */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
}

export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve(child);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code} before it was ready:\n${output}`)));
  });
}

/**
 * Runs `attempt` up to `times` times while it fails: the port freePort found is free
 * when it answers, and another process (an integration file running beside) can take
 * it before redis-server binds it.
 */
async function retried<T>(times: number, attempt: () => Promise<T>): Promise<T> {
  for (let tried = 1; ; tried++) {
    try {
      return await attempt();
    } catch (err) {
      if (tried >= times) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export async function startRedis(): Promise<RedisServer> {
  let port = 0;
  let child: ChildProcess | undefined = await retried(5, async () => launch((port = await freePort())));
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGCONT'); // a paused server handles SIGTERM only once it runs
      child.kill('SIGTERM');
      await exited;
      child = undefined;
    },
    async start() {
      // The same port (the app's client reconnects to it): taken meanwhile, it is tried again.
      child = await retried(20, () => launch(port));
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
  };
}

/** The showcase's CommonJS modules, loaded with the types the tests rely on. */
import type { Server } from 'node:http';

export interface Attachment {
  storedName: string;
  originalName: string;
  mimeType: string;
  size: number;
}

export interface User {
  id: number;
  username: string;
  passwordHash: string;
  /** The id of the sign-up form that made the account; null when none. */
  submission?: string | null;
  createdAt: string;
}

export interface Note {
  id: number;
  userId: number;
  title: string;
  body: string;
  attachment: Attachment | null;
  /** The id of the new-note form that made it; null for the API's notes. */
  submission?: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Store {
  kind: 'json' | 'sqlite';
  users: {
    create(user: { username: string; passwordHash: string; submission?: string | null }): Promise<User>;
    findById(id: number): Promise<User | undefined>;
    findByUsername(username: string): Promise<User | undefined>;
  };
  notes: {
    list(userId: number, window: { offset: number; limit: number }): Promise<{ items: Note[]; total: number }>;
    get(userId: number, id: number): Promise<Note | undefined>;
    create(
      userId: number,
      note: { title: string; body: string; attachment?: Attachment | null; submission?: string | null },
    ): Promise<Note>;
    findBySubmission(userId: number, submission: string): Promise<Note | undefined>;
    update(
      userId: number,
      id: number,
      changes: Partial<Pick<Note, 'title' | 'body' | 'attachment'>>,
    ): Promise<{ note: Note; replaced: Attachment | null } | undefined>;
    remove(userId: number, id: number): Promise<Note | undefined>;
  };
  close(): void;
}

export interface ShowcaseApp {
  listen(port: number, host: string): Server;
  close(): Promise<void>;
}

export const { openStore, sqliteAvailable } = require('../../examples/showcase/lib/store') as {
  openStore(dir: string, kind?: string): Store;
  sqliteAvailable(): boolean;
};
export const { createApp } = require('../../examples/showcase/app') as {
  createApp(framework: unknown, options: Record<string, unknown>): ShowcaseApp;
};

// Named (prepared) statements: the registry of every statement's name, and the pg client class that sends them named.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Config } from './config.ts';

/**
 * Named (prepared) statements. A statement sent with a name is parsed and planned once per connection and then only
 * bound and executed: the service's hot statements (pg-boss' fetch, insert and complete, the settlement, the daemon's
 * updates) are planned in less time than they run, and on a busy machine PostgreSQL spent as much CPU planning as
 * executing. Every statement of the service is declared once with its name (`statement(name, text)`, sql.ts), so one
 * text is one name on every connection; pg-boss' own texts are named by their hash as they pass (`foreignStatement`).
 * The pools' connections are `NamingClient`s (given as node-postgres' documented `Client` pool option, db.ts and
 * pg.ts), which send a registered text under its name. Behind a pooler in transaction mode
 * (DATABASE_POOL_MODE=transaction) a statement prepared on one server connection may be executed on another: nothing
 * is named there (the pools get node-postgres' own Client).
 */
export const canPrepare = (config: Pick<Config, 'databasePoolMode'>): boolean =>
  config.databasePoolMode !== 'transaction';

const MAX_NAMES = 4000; // distinct texts named per process; past it (texts built from input, a bug) statements go unnamed
const nameOf = new Map<string, string>(); // text -> name
const textOf = new Map<string, string>(); // name -> text

// Registers `text` under `name`: the same name for another text is a bug, found when the module loads.
export function registerStatement(name: string, text: string): void {
  const known = textOf.get(name);
  if (known !== undefined && known !== text) throw new Error(`statement ${name} declared twice with two texts`);
  if (known === undefined && nameOf.size < MAX_NAMES) {
    nameOf.set(text, name);
    textOf.set(name, text);
  }
}

// A text written by a library (pg-boss): named by its hash the first time it passes.
export function foreignStatement(text: string, values: readonly unknown[] | undefined): void {
  if (!values?.length || nameOf.has(text) || nameOf.size >= MAX_NAMES) return;
  nameOf.set(text, `s${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`);
}

// A prepared statement whose tables changed shape under it (a migration while this process runs) fails with this for
// as long as its connection lives under that name.
export const planOutdated = (err: unknown): boolean =>
  (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test(String(err));

type QueryArgs = [config: unknown, values?: unknown, callback?: unknown];

/**
 * node-postgres' client, sending a registered text under its name. A name whose plan went stale on this connection (a
 * migration while the process runs) fails its statement once, as anything may; the connection then names the text
 * afresh (a new epoch), so the retry (a new transaction, or pg.ts' query) runs it planned anew.
 */
export class NamingClient extends pg.Client {
  #epoch = 0;

  // @ts-expect-error node-postgres' overloads: every form is passed on unchanged but (text, values[]) of a known text
  override query(...args: QueryArgs): unknown {
    const [config, values, callback] = args;
    const name = typeof config === 'string' && Array.isArray(values) ? nameOf.get(config) : undefined;
    const send = super.query.bind(this) as (...a: unknown[]) => unknown;
    if (name === undefined) return send(...args);
    const named = { name: this.#epoch ? `${name}_${this.#epoch}` : name, text: config, values };
    const stale = (err: unknown) => {
      if (err && planOutdated(err)) this.#epoch++;
    };
    // pg-pool's pool.query passes a callback; everything else awaits the promise
    if (typeof callback === 'function')
      return send(
        named,
        (err: unknown, res: unknown) => (stale(err), (callback as (e: unknown, r: unknown) => void)(err, res)),
      );
    return (send(named) as Promise<pg.QueryResult>).catch((err: unknown) => {
      stale(err);
      throw err;
    });
  }
}

// The pool option that names statements when it may (`prepare`), for node-postgres' Pool and MikroORM's driverOptions.
export const clientFor = (prepare: boolean): { Client?: typeof pg.Client } =>
  prepare ? { Client: NamingClient as unknown as typeof pg.Client } : {};

// The machine's HTTP + database limit: a bare Express 5 endpoint doing one INSERT into a table shaped like charges.
import express from 'express';
import pg from 'pg';
import { randomUUID } from 'node:crypto';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query(`create table if not exists bench_items (id uuid primary key, merchant_id uuid not null, amount int not null,
  description varchar(255) not null, status text not null, created_at timestamptz not null default now())`);
await pool.query(
  'create index if not exists bench_items_merchant_idx on bench_items (merchant_id, created_at desc, id desc)',
);
const app = express();
app.use(express.json());
app.post('/items', async (req, res) => {
  const { rows } = await pool.query(
    'insert into bench_items (id, merchant_id, amount, description, status) values ($1, $2, $3, $4, $5) returning id, created_at',
    [randomUUID(), req.body.merchantId, req.body.amount, req.body.description, 'PENDING'],
  );
  res.status(201).json({ item: rows[0] });
});
const server = app.listen(Number(process.env.PORT), () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
